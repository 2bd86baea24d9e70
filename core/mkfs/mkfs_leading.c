// SPDX-License-Identifier: BSD-2-Clause
/*
 * An image written after bytes kept in front of it (mkimage --offset): the
 * existing file must hold them, and what follows them is replaced only when
 * forced. The temporary file gets those bytes and the file's mode (an
 * AppImage stays executable), so the rename still swaps the whole file at
 * once.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "mkfs.h"
#include "util/error.h"
#include "util/file.h"

int sqk_mkfs_leading_check(const char *image, uint64_t n, int force, uint64_t *size)
{
	struct stat st;
	int err = 0;

	if (stat(image, &st) != 0)
		return SQK_ERR_IO;
	*size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode)) {
		/* A device: the bytes before the offset stay in place. */
		struct sqk_file *f = sqk_file_open(image, SQK_FILE_READ, &err);

		if (!f)
			return err;
		*size = f->size(f);
		sqk_file_destroy(f);
	} else if (!S_ISREG(st.st_mode)) {
		return SQK_ERR_ARG;
	}
	if (*size < n)
		return SQK_ERR_TRUNCATED;
	if (*size > n && !force)
		return SQK_ERR_EXIST;
	return 0;
}

int sqk_mkfs_leading_copy(const char *image, struct sqk_file *out, uint64_t n)
{
	struct sqk_file *in;
	struct stat st;
	uint8_t *buf;
	uint64_t pos;
	int err = 0;

	errno = 0;
	in = sqk_file_open(image, SQK_FILE_READ, &err);
	if (!in)
		return err;
	buf = malloc(1u << 20);
	if (!buf)
		err = SQK_ERR_NOMEM;
	if (!err && in->size(in) < n)
		err = SQK_ERR_TRUNCATED; /* shrunk since it was checked */
	for (pos = 0; !err && pos < n; pos += 1u << 20) {
		size_t len = n - pos < (1u << 20) ? (size_t)(n - pos) : 1u << 20;

		err = in->read_at(in, pos, buf, len);
		if (!err)
			err = out->write_at(out, pos, buf, len);
	}
	if (!err && fstat(sqk_file_fd(in), &st) == 0 &&
	    fchmod(sqk_file_fd(out), st.st_mode & 07777) != 0)
		err = SQK_ERR_IO;
	free(buf);
	sqk_file_destroy(in);
	return err;
}
