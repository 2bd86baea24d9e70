// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit: one binary, one subcommand per job. Invoked through a link
 * named after a command (mkimage, unimage, ...) it runs that command.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "compat.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	int trouble; /* the exit status of a failed write to stdout */
};

static const struct command commands[] = {
	{"mkimage", cli_mkimage, "build an image from directories, an archive or a listing",
	 EXIT_FAIL},
	{"unimage", cli_unimage, "extract an image to a directory or an archive", EXIT_FAIL},
	{"inspect", cli_inspect, "show the superblock, tables and counts of an image", EXIT_FAIL},
	{"ls", cli_ls, "list directories in an image", EXIT_FAIL},
	{"cat", cli_cat, "write files from an image to stdout", EXIT_FAIL},
	{"stat", cli_stat, "show one inode of an image", EXIT_FAIL},
	{"fsck", cli_fsck, "verify every structure and block of an image", 8},
	{"verity", cli_verity, "add a dm-verity hash tree to an image", EXIT_FAIL},
	{"diff", cli_diff, "compare two images, or an image and a directory", 2},
	{"bench", cli_bench, "measure the block cache's wait policies", EXIT_FAIL},
	{"mount", cli_mount, "serve an image as a read-only file system (FUSE)", EXIT_FAIL},
	{"umount", cli_umount, "unmount what squashkit mount serves", EXIT_FAIL},
	{NULL, NULL, NULL, 0},
};

/*
 * The peers' command lines, also reached through a link of the peer's name
 * (see squashkit-compat(1)); not native commands, so listed apart.
 */
static const struct command compat[] = {
	{"mksquashfs", cli_compat_mksquashfs_main, "mksquashfs's options, squashkit's writer",
	 EXIT_FAIL},
	{"unsquashfs", cli_compat_unsquashfs_main, "unsquashfs's options, squashkit's reader",
	 EXIT_FAIL},
	{NULL, NULL, NULL, 0},
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

static int is_compat(const struct command *c)
{
	return c >= compat && c < compat + sizeof(compat) / sizeof(compat[0]);
}

/*
 * A native command: a closed stdout is an error said in one line (its
 * own report, or this last flush's), never a signal to die of. The compat
 * front ends die of SIGPIPE, as the peers' tools do.
 */
static int run(const struct command *c, int argc, char **argv)
{
	int ret;

	cli_cmd_name = c->name;
	if (is_compat(c))
		return c->run(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	ret = c->run(argc, argv);
	if (cli_stdout_flush() != 0 && ret == EXIT_OK)
		ret = c->trouble;
	return ret;
}

/* The top-level --help and --version, into a stdout that may be gone. */
static int said(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return EXIT_OK;
	fprintf(stderr, "squashkit: stdout: %s\n", errno ? strerror(errno) : "write error");
	return EXIT_FAIL;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const struct command *c;

	base = base ? base + 1 : argv[0];
	c = find(base);
	if (c)
		return run(c, argc, argv);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		signal(SIGPIPE, SIG_IGN);
		printf("squashkit %s\n", SQK_VERSION);
		return said();
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		signal(SIGPIPE, SIG_IGN);
		usage(stdout);
		return said();
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "squashkit: unknown command '%s'\n", argv[1]);
		fprintf(stderr, "Try 'squashkit --help'.\n");
		return EXIT_USAGE;
	}
	return run(c, argc - 1, argv + 1);
}
