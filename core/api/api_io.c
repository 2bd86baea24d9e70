// SPDX-License-Identifier: BSD-2-Clause
/* The file an image is read from: a path, or the caller's callbacks (struct sqk_io). */
#include <errno.h>
#include <stdlib.h>

#include "api_int.h"

struct io_file {
	struct sqk_file f;
	struct sqk_io io;
};

static int io_read_at(struct sqk_file *f, uint64_t off, void *buf, size_t len)
{
	struct io_file *x = (struct io_file *)f;
	uint64_t size = x->io.size(x->io.ctx);

	if (off > size || len > size - off)
		return SQK_ERR_TRUNCATED;
	__atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&f->bytes_read, len, __ATOMIC_RELAXED);
	return x->io.read_at(x->io.ctx, off, buf, len);
}

static int io_write_at(struct sqk_file *f, uint64_t off, const void *buf, size_t len)
{
	return SQK_ERR_UNSUPPORTED;
}

static uint64_t io_size(struct sqk_file *f)
{
	struct io_file *x = (struct io_file *)f;

	return x->io.size(x->io.ctx);
}

static int io_sync(struct sqk_file *f)
{
	return 0;
}

static void io_destroy(struct sqk_file *f)
{
	struct io_file *x = (struct io_file *)f;

	if (x->io.close)
		x->io.close(x->io.ctx);
	free(x);
}

int sqk_api_io_file(const struct sqk_io *given, size_t given_size, struct sqk_file **out)
{
	struct sqk_io io;
	struct io_file *x;
	int err;

	if (!given)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no struct sqk_io");
	err = sqk_api_in(&io, sizeof(io), given, given_size, SQK_API_V1(struct sqk_io, ctx),
			 "sqk_io");
	if (err)
		return err;
	if (!io.read_at || !io.size)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "read_at and size are required");
	x = calloc(1, sizeof(*x));
	if (!x) {
		if (io.close)
			io.close(io.ctx);
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	}
	x->io = io;
	x->f.read_at = io_read_at;
	x->f.write_at = io_write_at;
	x->f.size = io_size;
	x->f.sync = io_sync;
	x->f.destroy = io_destroy;
	*out = &x->f;
	return 0;
}

int sqk_api_path_file(const char *path, struct sqk_file **out)
{
	int err = 0;

	errno = 0;
	*out = sqk_file_open(path, SQK_FILE_READ, &err);
	if (!*out)
		return sqk_api_fail(err, err == SQK_ERR_NOMEM ? 0 : errno, path, NULL);
	return 0;
}
