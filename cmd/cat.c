// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit cat: write files of an image to stdout, block by block.
 *
 * Like cat(1), a path that cannot be written (missing, a directory, not a
 * regular file) is reported and the next one is tried; the exit status is 1
 * when any failed. Symlinks in the image are followed inside the image, as a
 * mounted image would follow them (at most 40 on one path).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "cmd.h"
#include "data.h"
#include "error.h"
#include "format.h"
#include "image.h"
#include "imageopt.h"
#include "inode.h"
#include "show.h"

static const char usage_text[] =
	"Usage: squashkit cat [OPTIONS] IMAGE PATH...\n"
	"Write the contents of the files PATH... of IMAGE to stdout, in order.\n"
	"Symlinks are followed inside the image; sparse blocks read as zeros.\n\n"
	"      --stats       print cache counters on stderr at the end\n"
	"  -h, --help        show this help\n";

enum { OPT_STATS = 256 };

static const struct option longopts[] = {
	{"stats", no_argument, NULL, OPT_STATS},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Set when stdout fails: nothing more can be written, so stop. */
static int out_errno;

static int emit(const void *buf, size_t len)
{
	if (sqk_write_all(STDOUT_FILENO, buf, len) != 0) {
		out_errno = errno;
		return -1;
	}
	return 0;
}

/* Stream one file: full blocks through the data cache, then the tail. */
static int cat_file(struct sqk_image *img, const struct sqk_inode *ino, const uint8_t *zeros)
{
	struct sqk_data_cursor c;
	struct sqk_cache_entry *e;
	const uint8_t *tail;
	uint32_t i, len;
	int err;

	sqk_data_begin(&c, ino);
	for (i = 0; i < ino->nblocks; i++) {
		err = sqk_data_next(img, &c, &e, &len);
		if (err)
			return err;
		/* A sparse block has no entry: it reads as zeros. */
		if (emit(e ? e->data : zeros, len) != 0) {
			sqk_cache_put(e);
			return 0;
		}
		sqk_cache_put(e);
	}
	err = sqk_data_tail(img, ino, &e, &tail, &len);
	if (err || !e)
		return err;
	emit(tail, len);
	sqk_cache_put(e);
	return 0;
}

static int cat_path(struct sqk_image *img, const char *image, const char *path,
		    const uint8_t *zeros)
{
	struct sqk_inode ino;
	unsigned type;
	int err;

	err = sqk_show_resolve(img, path, 1, &ino);
	if (err) {
		sqk_show_path_code(image, path, err);
		return -1;
	}
	type = sqfs_basic_type(ino.type);
	if (type == SQFS_DIR) {
		sqk_show_path_error(image, path, "is a directory");
		err = -1;
	} else if (type != SQFS_FILE) {
		sqk_show_path_error(image, path, "not a regular file");
		err = -1;
	} else {
		err = cat_file(img, &ino, zeros);
		if (err) {
			sqk_show_path_code(image, path, err);
			err = -1;
		}
	}
	sqk_inode_free(&ino);
	return err;
}

int cmd_cat(int argc, char **argv)
{
	struct sqk_image_opts io;
	struct sqk_image *img;
	uint8_t *zeros;
	const char *image;
	int c, i, stats = 0, ret = EXIT_OK;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_STATS:
			stats = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return sqk_show_bad_option(argv);
		}
	}
	if (optind >= argc)
		return sqk_usage_error("missing IMAGE operand");
	if (optind + 1 >= argc)
		return sqk_usage_error("missing PATH operand");
	/* A closed pipe is an error to report, never a signal to die of. */
	signal(SIGPIPE, SIG_IGN);
	image = argv[optind];
	sqk_image_opts_default(&io);
	img = sqk_open_image(image, &io);
	if (!img)
		return EXIT_FAIL;
	zeros = calloc(1, sqk_image_super(img)->block_size);
	if (!zeros) {
		sqk_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		sqk_image_close(img);
		return EXIT_FAIL;
	}
	for (i = optind + 1; i < argc && !out_errno; i++)
		if (cat_path(img, image, argv[i], zeros) != 0)
			ret = EXIT_FAIL;
	if (out_errno) {
		sqk_error("stdout", "%s", strerror(out_errno));
		ret = EXIT_FAIL;
	}
	if (stats)
		sqk_print_stats(stderr, img, 0);
	free(zeros);
	sqk_image_close(img);
	return ret;
}
