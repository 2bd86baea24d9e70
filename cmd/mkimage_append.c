// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkimage --append: IMAGE is opened twice, once by the reader (the old
 * tree) and once for writing in place. The writer never touches a byte
 * the file holds (core/write/append.c) but the superblock, last. A signal
 * cuts the file back to its old length while the old superblock stands; a
 * failure too, after putting the old superblock back if the new one's
 * sync failed.
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
#include "util/signals.h"

int sqk_mkimage_append_open(struct args *a, const char *image, struct sqk_append_target *t)
{
	struct sqk_image_opts io;
	const struct sqk_super *sb;
	const struct sqk_codec *codec;
	struct sqk_file *rf;
	struct stat st;
	int err = 0, r;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->guard = -1;
	if (strcmp(image, "-") == 0)
		return sqk_usage_error("--append needs an IMAGE file, not '-'");
	if (a->force)
		return sqk_usage_error("--append and --force exclude each other");
	if (a->level >= 0 || a->comp_opts.n)
		return sqk_usage_error("--append keeps the image's compressor settings; "
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
	r = sqk_read_full(t->fd, t->super, sizeof(t->super), a->offset);
	if (r != 0) {
		cli_error(image, "%s", r < 0 ? strerror(errno) : "not a squashfs image");
		return EXIT_FAIL;
	}
	/* A signal from now on cuts the file back, while the old superblock stands. */
	t->guard = sqk_sig_cut_back(t->fd, t->size, a->offset, t->super, sizeof(t->super));
	if (t->guard < 0) {
		sqk_error_code(image, t->guard);
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
		sqk_error_code(image, err);
		return EXIT_FAIL;
	}
	sqk_image_opts_default(&io);
	err = sqk_image_open(rf, &io, &t->img);
	if (err) {
		sqk_error_code(image, err);
		return EXIT_FAIL;
	}
	sb = sqk_image_super(t->img);
	codec = sqk_codec_by_id(sb->compressor);
	if (!codec) {
		sqk_error_code(image, SQK_ERR_UNSUPPORTED);
		return EXIT_FAIL;
	}
	if (a->comp_given && strcmp(a->comp_name, codec->name) != 0)
		return sqk_usage_error("%s is compressed with %s; --append cannot add %s blocks",
				       image, codec->name, a->comp_name);
	if (a->block_given && a->o.block_size != sb->block_size)
		return sqk_usage_error("%s has a block size of %u; --append cannot use %u", image,
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
		sqk_error_code(image, SQK_ERR_NOMEM);
		return EXIT_FAIL;
	}
	return 0;
}

struct sqk_file *sqk_mkimage_append_file(struct sqk_append_target *t)
{
	return t->window ? t->window : t->file;
}

void sqk_mkimage_append_close(struct sqk_append_target *t, uint64_t offset, int failed)
{
	uint8_t now[SQK_SUPER_SIZE];

	/* Only while the old superblock is in place: the new one needs every byte after it. */
	/* Only once the old superblock was read (the guard comes with it). */
	if (failed && t->guard >= 0 && sqk_read_full(t->fd, now, sizeof(now), offset) == 0) {
		/*
		 * The new superblock is in place only when its own sync failed:
		 * the old one goes back, then the file is cut back.
		 */
		if (memcmp(now, t->super, sizeof(now)) != 0 &&
		    sqk_write_full(t->fd, t->super, sizeof(t->super), offset) == 0)
			memcpy(now, t->super, sizeof(now));
		if (memcmp(now, t->super, sizeof(now)) == 0 &&
		    ftruncate(t->fd, (off_t)t->size) == 0)
			fsync(t->fd);
	}
	sqk_sig_forget(t->guard);
	sqk_file_destroy(t->window);
	sqk_file_destroy(t->file);
	if (t->img)
		sqk_image_close(t->img);
	if (t->fd >= 0)
		close(t->fd);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->guard = -1;
}
