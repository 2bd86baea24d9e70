// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit umount: unmount what squashkit mount serves, and nothing
 * else: the mount table must name it a squashkit file system.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "mount/serve.h"
#include "util/error.h"
#include "util/path.h"

static const char usage_text[] =
	"Usage: squashkit umount [OPTIONS] MOUNTPOINT\n"
	"Unmount a file system that 'squashkit mount' serves; its daemon then ends.\n\n"
	"  -l, --lazy                detach it now, end it once nothing uses it any more\n"
	"  -h, --help                show this help\n";

static const struct option longopts[] = {
	{"lazy", no_argument, NULL, 'l'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/*
 * Why path, no squashkit mount, cannot be unmounted: the errno's words when
 * it is not there at all (lstat only now: it is no mount of ours, whose
 * dead daemon would answer ENOTCONN, and another's dead one is no mount of
 * ours either).
 */
static const char *not_ours(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0 && errno != ENOTCONN)
		return strerror(errno);
	return "not a squashkit mount point";
}

int cli_umount(int argc, char **argv)
{
	const char *mountpoint;
	char *path;
	int c, lazy = 0, ours;

	while ((c = cli_getopt(argc, argv, "lh", longopts)) != -1) {
		switch (c) {
		case 'l':
			lazy = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error("missing MOUNTPOINT operand");
	if (argc - optind > 1)
		return cli_usage_error("extra operand '%s'", argv[optind + 1]);
	mountpoint = argv[optind];
	/* Never stat the mount point: a dead daemon answers ENOTCONN. */
	path = sqk_path_abs_nofollow(mountpoint);
	if (!path) {
		cli_error(mountpoint, "%s", strerror(errno ? errno : ENOMEM));
		return EXIT_FAIL;
	}
	ours = sqk_serve_is_mounted(path);
	if (ours <= 0) {
		cli_error(mountpoint, "%s",
			  ours < 0 ? "cannot read the mount table" : not_ours(path));
		free(path);
		return EXIT_FAIL;
	}
	errno = 0;
	if (sqk_serve_unmount(path, lazy) != 0) {
		cli_error(mountpoint, "%s", strerror(errno ? errno : EIO));
		free(path);
		return EXIT_FAIL;
	}
	free(path);
	return EXIT_OK;
}
