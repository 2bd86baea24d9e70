// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkimage --append: IMAGE is opened twice, once by the reader (the old
 * tree) and once for writing in place. The writer never touches a byte
 * the file holds (core/write/append.c) but the superblock, last; its
 * guard (core/write/append_guard.c) cuts the file back on a failure or a
 * signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "compressors/compressor.h"
#include "format/format.h"
#include "mkimage.h"
#include "read/image.h"
#include "read/offset.h"
#include "util/error.h"

int cli_mkimage_append_open(struct args *a, const char *image, struct sqk_append_target *t)
{
	struct sqk_image_opts io;
	const struct sqk_super *sb;
	const struct sqk_codec *codec;
	struct sqk_file *rf;
	struct stat st;
	int err = 0, r;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (strcmp(image, "-") == 0)
		return cli_usage_error("--append needs an IMAGE file, not '-'");
	if (a->force)
		return cli_usage_error("--append and --force exclude each other");
	if (a->level >= 0 || a->comp_opts.n)
		return cli_usage_error("--append keeps the image's compressor settings; "
				       "--level and --comp-opt cannot change them");
	t->fd = open(image, O_RDWR | O_CLOEXEC);
	if (t->fd < 0) {
		if (errno == ENOENT)
			cli_error(image, "no such file (--append adds to an existing image)");
		else
			cli_error(image, "%s", strerror(errno));
		return EXIT_FAIL;
	}
	if (fstat(t->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		cli_error(image, "--append needs a regular file");
		return EXIT_FAIL;
	}
	/* Two appends at once would each write after the same end. */
	if (flock(t->fd, LOCK_EX | LOCK_NB) != 0) {
		cli_error(image, "is locked by another process (%s)", strerror(errno));
		return EXIT_FAIL;
	}
	t->size = (uint64_t)st.st_size;
	if (a->offset >= t->size) {
		cli_error(image, "offset %llu is past the end of the file",
			  (unsigned long long)a->offset);
		return EXIT_FAIL;
	}
	/* A signal from now on cuts the file back, while the old superblock stands. */
	r = sqk_append_guard_arm(&t->guard, t->fd, t->size, a->offset);
	if (r != 0) {
		if (r == SQK_ERR_IO)
			cli_error(image, "%s", strerror(errno));
		else if (r > 0)
			cli_error(image, "not a squashfs image");
		else
			cli_error_code(image, r);
		return EXIT_FAIL;
	}
	errno = 0;
	rf = sqk_file_open(image, SQK_FILE_READ, &err);
	if (rf && a->offset) {
		struct sqk_file *w = sqk_file_window(rf, a->offset);

		if (!w) {
			sqk_file_destroy(rf);
			err = SQK_ERR_NOMEM;
		}
		rf = w;
	}
	if (!rf) {
		cli_error_code(image, err);
		return EXIT_FAIL;
	}
	sqk_image_opts_default(&io);
	err = sqk_image_open(rf, &io, &t->img);
	if (err) {
		cli_error_code(image, err);
		return EXIT_FAIL;
	}
	sb = sqk_image_super(t->img);
	codec = sqk_codec_by_id(sb->compressor);
	if (!codec) {
		cli_error_code(image, SQK_ERR_UNSUPPORTED);
		return EXIT_FAIL;
	}
	if (a->comp_given && strcmp(a->comp_name, codec->name) != 0)
		return cli_usage_error("%s is compressed with %s; --append cannot add %s blocks",
				       image, codec->name, a->comp_name);
	if (a->block_given && a->o.block_size != sb->block_size)
		return cli_usage_error("%s has a block size of %u; --append cannot use %u", image,
				       sb->block_size, a->o.block_size);
	a->o.codec = codec;
	a->o.comp = *sqk_image_comp(t->img);
	a->o.block_size = sb->block_size;
	a->o.append = t->img;
	/* Never read the image into itself. */
	a->o.skip_dev[a->o.nskip] = st.st_dev;
	a->o.skip_ino[a->o.nskip++] = st.st_ino;
	t->file = sqk_file_fdopen(t->fd, 0);
	if (t->file && a->offset)
		t->window = sqk_file_window_rw(t->file, a->offset);
	if (!t->file || (a->offset && !t->window)) {
		cli_error_code(image, SQK_ERR_NOMEM);
		return EXIT_FAIL;
	}
	return 0;
}

struct sqk_file *cli_mkimage_append_file(struct sqk_append_target *t)
{
	return t->window ? t->window : t->file;
}

void cli_mkimage_append_close(struct sqk_append_target *t, int failed)
{
	sqk_append_guard_release(&t->guard, failed);
	sqk_file_destroy(t->window);
	sqk_file_destroy(t->file);
	if (t->img)
		sqk_image_close(t->img);
	if (t->fd >= 0)
		close(t->fd);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}
