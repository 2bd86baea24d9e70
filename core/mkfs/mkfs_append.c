// SPDX-License-Identifier: BSD-2-Clause
/*
 * The image an append adds to: its file opened twice, once by the reader
 * (the old tree) and once for writing in place, locked against a second
 * append, with the roll-back guard armed (core/write/append_guard.c). The
 * writer never touches a byte the file holds but the superblock, last; so
 * a failure or a signal before then cuts the file back to its old bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkfs.h"
#include "read/image.h"
#include "util/error.h"
#include "util/file.h"
#include "write/append.h"

struct sqk_mkfs_append {
	struct sqk_image *img;
	struct sqk_file *file, *window;
	int fd;
	dev_t dev;
	ino_t ino;
	struct sqk_append_guard guard; /* cuts it back on a failure or a signal */
};

/* Say why (and the errno, when one says it) and return err. */
static int refuse(int *why, int *errnum, int what, int e, int err)
{
	*why = what;
	*errnum = e;
	return err;
}

/* Open, lock, check the length and arm the guard: the file side of the open. */
static int open_file(struct sqk_mkfs_append *a, const char *path, uint64_t offset, int *why,
		     int *errnum)
{
	struct stat st;
	uint64_t size;
	int r;

	a->fd = open(path, O_RDWR | O_CLOEXEC);
	if (a->fd < 0)
		return refuse(why, errnum, SQK_APPEND_OPEN, errno, SQK_ERR_IO);
	/* A file, or a block device (a partition holding an image), as mksquashfs appends to. */
	if (fstat(a->fd, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)))
		return refuse(why, errnum, SQK_APPEND_NOT_REGULAR, 0, SQK_ERR_ARG);
	size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(a->fd, BLKGETSIZE64, &size) != 0)
		return refuse(why, errnum, SQK_APPEND_IO, errno, SQK_ERR_IO);
	/* Two appends at once would each write after the same end. */
	if (flock(a->fd, LOCK_EX | LOCK_NB) != 0)
		return refuse(why, errnum, SQK_APPEND_LOCKED, errno, SQK_ERR_IO);
	if (offset >= size)
		return refuse(why, errnum, SQK_APPEND_PAST_END, 0, SQK_ERR_ARG);
	a->dev = st.st_dev;
	a->ino = st.st_ino;
	/*
	 * A signal from now on cuts the file back, while the old superblock
	 * stands (a device cannot be cut: what follows the old image there is
	 * not part of it).
	 */
	r = sqk_append_guard_arm(&a->guard, a->fd, size, offset);
	if (r == SQK_ERR_IO)
		return refuse(why, errnum, SQK_APPEND_IO, errno, r);
	if (r > 0)
		return refuse(why, errnum, SQK_APPEND_NOT_IMAGE, 0, SQK_ERR_MAGIC);
	if (r)
		return refuse(why, errnum, SQK_APPEND_IMAGE, 0, r);
	return 0;
}

/* The reader's side: the old image, which must be one this build can add to. */
static int open_image(struct sqk_mkfs_append *a, const char *path, uint64_t offset, int *why)
{
	struct sqk_image_opts io;
	struct sqk_file *rf;
	int err = 0;

	*why = SQK_APPEND_IMAGE;
	errno = 0;
	rf = sqk_file_open(path, SQK_FILE_READ, &err);
	if (rf && offset) {
		struct sqk_file *w = sqk_file_window(rf, offset);

		if (!w) {
			sqk_file_destroy(rf);
			err = SQK_ERR_NOMEM;
		}
		rf = w;
	}
	if (!rf)
		return err;
	sqk_image_opts_default(&io);
	err = sqk_image_open(rf, &io, &a->img);
	if (err)
		return err;
	if (!sqk_codec_by_id(sqk_image_super(a->img)->compressor))
		return SQK_ERR_UNSUPPORTED;
	a->file = sqk_file_fdopen(a->fd, 0);
	if (a->file && offset)
		a->window = sqk_file_window_rw(a->file, offset);
	if (!a->file || (offset && !a->window))
		return SQK_ERR_NOMEM;
	return 0;
}

int sqk_mkfs_append_open(const char *path, uint64_t offset, struct sqk_mkfs_append **out, int *why,
			 int *errnum)
{
	struct sqk_mkfs_append *a = calloc(1, sizeof(*a));
	int err;

	*out = NULL;
	*why = 0;
	*errnum = 0;
	if (!a)
		return refuse(why, errnum, SQK_APPEND_IMAGE, 0, SQK_ERR_NOMEM);
	a->fd = -1;
	err = open_file(a, path, offset, why, errnum);
	if (!err)
		err = open_image(a, path, offset, why);
	if (err) {
		sqk_mkfs_append_close(a, 1);
		return err;
	}
	*why = 0;
	*out = a;
	return 0;
}

void sqk_mkfs_append_say(int why, int errnum, uint64_t offset, const char *opt, char *buf,
			 size_t cap)
{
	switch (why) {
	case SQK_APPEND_OPEN:
		if (errnum == ENOENT)
			snprintf(buf, cap, "no such file (%s adds to an existing image)", opt);
		else
			snprintf(buf, cap, "%s", strerror(errnum));
		break;
	case SQK_APPEND_NOT_REGULAR:
		snprintf(buf, cap, "%s needs a regular file or a block device", opt);
		break;
	case SQK_APPEND_LOCKED:
		snprintf(buf, cap, "is locked by another process (%s)", strerror(errnum));
		break;
	case SQK_APPEND_PAST_END:
		snprintf(buf, cap, "offset %llu is past the end of the file",
			 (unsigned long long)offset);
		break;
	case SQK_APPEND_NOT_IMAGE:
		snprintf(buf, cap, "not a squashfs image");
		break;
	case SQK_APPEND_IO:
		snprintf(buf, cap, "%s", strerror(errnum));
		break;
	default:
		snprintf(buf, cap, "%s", "");
	}
}

const struct sqk_codec *sqk_mkfs_append_codec(const struct sqk_mkfs_append *a)
{
	return sqk_codec_by_id(sqk_image_super(a->img)->compressor);
}

uint32_t sqk_mkfs_append_block_size(const struct sqk_mkfs_append *a)
{
	return sqk_image_super(a->img)->block_size;
}

int sqk_mkfs_append_settle(struct sqk_mkfs_append *a, struct sqk_mkfs_opts *o,
			   const struct sqk_codec *codec, uint32_t block_size)
{
	if ((codec && codec != sqk_mkfs_append_codec(a)) ||
	    (block_size && block_size != sqk_mkfs_append_block_size(a)))
		return SQK_ERR_ARG;
	if ((size_t)o->nskip >= sizeof(o->skip_dev) / sizeof(o->skip_dev[0]))
		return SQK_ERR_OVERFLOW;
	o->codec = sqk_mkfs_append_codec(a);
	o->comp = *sqk_image_comp(a->img);
	o->block_size = sqk_mkfs_append_block_size(a);
	o->append = a->img;
	/* Never read the image into itself. */
	o->skip_dev[o->nskip] = a->dev;
	o->skip_ino[o->nskip++] = a->ino;
	return 0;
}

struct sqk_file *sqk_mkfs_append_file(struct sqk_mkfs_append *a)
{
	return a->window ? a->window : a->file;
}

void sqk_mkfs_append_close(struct sqk_mkfs_append *a, int failed)
{
	if (!a)
		return;
	sqk_append_guard_release(&a->guard, failed);
	sqk_file_destroy(a->window);
	sqk_file_destroy(a->file);
	if (a->img)
		sqk_image_destroy(a->img);
	if (a->fd >= 0)
		close(a->fd);
	free(a);
}
