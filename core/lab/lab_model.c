// SPDX-License-Identifier: BSD-2-Clause
/*
 * The model: a workload's operations through an open image, every block
 * through its shared caches, as the kernel's squashfs reads them for a
 * reader that its page cache does not serve.
 */
#include "lab_int.h"
#include "read/data.h"
#include "read/image.h"
#include "read/inode.h"
#include "walk/walk.h"

/* Read len bytes at off in block-sized pieces, as read(2) of a page-cache-less reader would. */
static int read_range(struct sqk_lab_io *io, const struct sqk_inode *ino, uint64_t off,
		      uint64_t len)
{
	uint64_t end = off + len < ino->size ? off + len : ino->size;

	while (off < end) {
		uint64_t want = end - off < io->f->block_size ? end - off : io->f->block_size;
		size_t got;
		int err = sqk_data_pread(io->t->img, ino, off, io->buf, (size_t)want, &got);

		if (err)
			return err;
		if (got == 0)
			break;
		off += got;
		io->bytes += got;
	}
	return 0;
}

int sqk_lab_model_op(struct sqk_lab_io *io, enum sqk_workload wl, size_t i, uint64_t off)
{
	struct sqk_image *img = io->t->img;
	struct sqk_inode ino, again;
	int err;

	err = sqk_resolve(img, io->f->path[i], &ino);
	if (err)
		return err;
	switch (wl) {
	case SQK_WL_STAT:
		break;
	case SQK_WL_RANDREAD:
		err = read_range(io, &ino, off, io->f->block_size);
		break;
	default:
		err = read_range(io, &ino, 0, ino.size);
		break;
	}
	if (!err && wl == SQK_WL_MIXED) {
		/* The stat after the read looks the inode up again. */
		err = sqk_inode_read(img, ino.ref, &again);
		if (!err)
			sqk_inode_free(&again);
	}
	sqk_inode_free(&ino);
	return err;
}
