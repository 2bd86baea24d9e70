// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit: one binary, one subcommand per job. Invoked through a link
 * named after a command (mkimage, unimage, ...) it runs that command.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "compat.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"mkimage", cli_mkimage, "build an image from directories, an archive or a listing"},
	{"unimage", cli_unimage, "extract an image to a directory or an archive"},
	{"inspect", cli_inspect, "show the superblock, tables and counts of an image"},
	{"ls", cli_ls, "list directories in an image"},
	{"cat", cli_cat, "write files from an image to stdout"},
	{"stat", cli_stat, "show one inode of an image"},
	{"fsck", cli_fsck, "verify every structure and block of an image"},
	{"verity", cli_verity, "add a dm-verity hash tree to an image"},
	{"diff", cli_diff, "compare two images, or an image and a directory"},
	{"bench", cli_bench, "measure the block cache's wait policies"},
	{"mount", cli_mount, "serve an image as a read-only file system (FUSE)"},
	{"umount", cli_umount, "unmount what squashkit mount serves"},
	{NULL, NULL, NULL},
};

/*
 * The peers' command lines, also reached through a link of the peer's name
 * (see squashkit-compat(1)); not native commands, so listed apart.
 */
static const struct command compat[] = {
	{"mksquashfs", cli_compat_mksquashfs_main, "mksquashfs's options, squashkit's writer"},
	{"unsquashfs", cli_compat_unsquashfs_main, "unsquashfs's options, squashkit's reader"},
	{NULL, NULL, NULL},
};

static void usage(FILE *out)
{
	const struct command *c;

	fprintf(out, "Usage: squashkit COMMAND [OPTIONS] [ARGS]\n"
		     "       squashkit --version | --help\n\n"
		     "SquashFS 4.0 image toolkit.\n\nCommands:\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  %-9s %s\n", c->name, c->summary);
	fprintf(out, "\nCompatibility front ends (the peers' options, see squashkit-compat(1)):\n");
	for (c = compat; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\nRun 'squashkit COMMAND --help' for a command's options.\n");
}

static const struct command *find(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	for (c = compat; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const struct command *c;

	base = base ? base + 1 : argv[0];
	c = find(base);
	if (c) {
		cli_cmd_name = c->name;
		return c->run(argc, argv);
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("squashkit %s\n", SQK_VERSION);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "squashkit: unknown command '%s'\n", argv[1]);
		fprintf(stderr, "Try 'squashkit --help'.\n");
		return EXIT_USAGE;
	}
	cli_cmd_name = c->name;
	return c->run(argc - 1, argv + 1);
}
