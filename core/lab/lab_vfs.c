// SPDX-License-Identifier: BSD-2-Clause
/*
 * The real thing: a workload's operations as system calls on the files of
 * a mounted image (stat, open, read, close), so that the kernel's VFS,
 * page cache and file system (squashfs, or FUSE and squashkit mount) do
 * the work the model does in the image's caches.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_int.h"

/* Read from fd until the end, a block at a time. */
static int read_all(struct sqk_lab_io *io, int fd)
{
	for (;;) {
		ssize_t n = read(fd, io->buf, io->f->block_size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		io->bytes += (uint64_t)n;
	}
}

/*
 * fio's randread with its default hints: no readahead around the block,
 * and the block's pages dropped first, so that every read reaches the file
 * system as it does in the model.
 */
static int read_block(struct sqk_lab_io *io, int fd, uint64_t off)
{
	ssize_t n;

	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	posix_fadvise(fd, (off_t)off, io->f->block_size, POSIX_FADV_DONTNEED);
	do
		n = pread(fd, io->buf, io->f->block_size, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	io->bytes += (uint64_t)n;
	return 0;
}

int sqk_lab_vfs_op(struct sqk_lab_io *io, enum sqk_workload wl, size_t i, uint64_t off)
{
	struct stat st;
	int fd, err;

	if (snprintf(io->path, PATH_MAX, "%s/%s", io->t->root, io->f->path[i]) >= PATH_MAX)
		return -1;
	if (wl == SQK_WL_STAT)
		return stat(io->path, &st);
	fd = open(io->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	err = wl == SQK_WL_RANDREAD ? read_block(io, fd, off) : read_all(io, fd);
	if (!err && wl == SQK_WL_MIXED)
		err = fstat(fd, &st);
	close(fd);
	return err;
}
