// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit cat: write files of an image to stdout.
 *
 * Like cat(1), a path that cannot be written (missing, a directory, not a
 * regular file) is reported and the next one is tried; the exit status is 1
 * when any failed. Symlinks in the image are followed inside the image, as a
 * mounted image would follow them (at most 40 on one path).
 *
 * Past the inspectors' driver, which parses the options and opens the
 * image, this uses the public API alone (<squashkit/squashkit.h>), as a
 * program linking libsquashkit would.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "show.h"

static const char usage_text[] =
	"Usage: squashkit cat [OPTIONS] IMAGE PATH...\n"
	"Write the contents of the files PATH... of IMAGE to stdout, in order.\n"
	"Symlinks are followed inside the image; sparse blocks read as "
	"zeros.\n\n" SQK_HELP_INSPECTOR_TAIL;

struct cat {
	char *buf;
	size_t cap;
	int out_failed; /* stdout failed: nothing more can be written */
};

/* Stream one file through the image's caches: 0, or the library's error. */
static int cat_file(struct cat *ct, struct sqk_image *img, const struct sqk_inode *ino)
{
	uint64_t off = 0;
	size_t got;
	int err;

	while (!(err = sqk_inode_pread(img, ino, off, ct->buf, ct->cap, &got)) && got) {
		if (fwrite(ct->buf, 1, got, stdout) != got) {
			cli_stdout_error(errno);
			ct->out_failed = 1;
			return 0;
		}
		off += got;
	}
	return err;
}

static int cat_path(struct sqk_show *s, const char *path)
{
	struct sqk_inode *ino;
	struct sqk_stat st;
	int err = sqk_inode_open_follow(s->img, path, &ino);

	if (err) {
		cli_show_path_error(s->image, path, cli_api_why(err));
		return -1;
	}
	sqk_inode_stat(ino, &st);
	if (S_ISDIR(st.mode)) {
		cli_show_path_error(s->image, path, "is a directory");
		err = -1;
	} else if (!S_ISREG(st.mode)) {
		cli_show_path_error(s->image, path, "not a regular file");
		err = -1;
	} else {
		err = cat_file(s->ctx, s->img, ino);
		if (err) {
			cli_show_path_error(s->image, path, cli_api_why(err));
			err = -1;
		}
	}
	sqk_inode_destroy(ino);
	return err;
}

static int run(struct sqk_show *s)
{
	struct cat *ct = s->ctx;
	struct sqk_image_info info;
	int ret = EXIT_OK;
	unsigned i;

	/* A block at a time: each read is one block of the data cache. */
	sqk_image_info(s->img, &info);
	ct->cap = info.block_size;
	ct->buf = malloc(ct->cap);
	if (!ct->buf) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	for (i = 0; i < s->npaths && !ct->out_failed; i++)
		if (cat_path(s, s->paths[i]) != 0)
			ret = EXIT_FAIL;
	if (cli_stdout_flush() != 0)
		ret = EXIT_FAIL;
	free(ct->buf);
	return ret;
}

int cli_cat(int argc, char **argv)
{
	static const struct sqk_show_cmd cat_cmd = {
		.usage = usage_text,
		.shortopts = "",
		.min_paths = 1,
		.max_paths = ~0u,
		.run = run,
	};
	struct cat ct = {NULL, 0, 0};

	return cli_show_main(argc, argv, &cat_cmd, &ct);
}
