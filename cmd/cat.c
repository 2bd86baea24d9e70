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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/cache.h"
#include "cmd.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "read/inode.h"
#include "show.h"
#include "util/error.h"
#include "util/file.h"

static const char usage_text[] =
	"Usage: squashkit cat [OPTIONS] IMAGE PATH...\n"
	"Write the contents of the files PATH... of IMAGE to stdout, in order.\n"
	"Symlinks are followed inside the image; sparse blocks read as "
	"zeros.\n\n" SQK_HELP_INSPECTOR_TAIL;

struct cat {
	const uint8_t *zeros; /* a block of zeros, for sparse blocks */
	int out_errno;	      /* set when stdout fails: nothing more can be written */
};

static int emit(struct cat *ct, const void *buf, size_t len)
{
	if (sqk_write_full(STDOUT_FILENO, buf, len, SQK_NO_OFFSET) != 0) {
		ct->out_errno = errno;
		return -1;
	}
	return 0;
}

/* Stream one file: full blocks through the data cache, then the tail. */
static int cat_file(struct cat *ct, struct sqk_image *img, const struct sqk_inode *ino)
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
		if (emit(ct, e ? e->data : ct->zeros, len) != 0) {
			sqk_cache_put(e);
			return 0;
		}
		sqk_cache_put(e);
	}
	err = sqk_data_tail(img, ino, &e, &tail, &len);
	if (err || !e)
		return err;
	emit(ct, tail, len);
	sqk_cache_put(e);
	return 0;
}

static int cat_path(struct sqk_show *s, const char *path)
{
	struct sqk_inode ino;
	unsigned type;
	int err;

	if (sqk_show_lookup(s, path, 1, path, &ino) != 0)
		return -1;
	type = sqk_basic_type(ino.type);
	if (type == SQK_DIR) {
		sqk_show_path_error(s->image, path, "is a directory");
		err = -1;
	} else if (type != SQK_FILE) {
		sqk_show_path_error(s->image, path, "not a regular file");
		err = -1;
	} else {
		err = cat_file(s->ctx, s->img, &ino);
		if (err) {
			sqk_show_path_code(s->image, s->img, path, err);
			err = -1;
		}
	}
	sqk_inode_free(&ino);
	return err;
}

static int run(struct sqk_show *s)
{
	struct cat *ct = s->ctx;
	uint8_t *zeros = calloc(1, sqk_image_super(s->img)->block_size);
	int ret = EXIT_OK;
	unsigned i;

	if (!zeros) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	ct->zeros = zeros;
	for (i = 0; i < s->npaths && !ct->out_errno; i++)
		if (cat_path(s, s->paths[i]) != 0)
			ret = EXIT_FAIL;
	if (ct->out_errno) {
		cli_error("stdout", "%s", strerror(ct->out_errno));
		ret = EXIT_FAIL;
	}
	free(zeros);
	return ret;
}

int cmd_cat(int argc, char **argv)
{
	static const struct sqk_show_cmd cat_cmd = {
		.usage = usage_text,
		.shortopts = "",
		.min_paths = 1,
		.max_paths = ~0u,
		.run = run,
	};
	struct cat ct = {NULL, 0};

	return sqk_show_main(argc, argv, &cat_cmd, &ct);
}
