// SPDX-License-Identifier: GPL-2.0-or-later
/* An image read through the caller's callbacks: a struct sqk_file over a struct sqk_io. */
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

struct sqk_file *sqk_api_io_file(const struct sqk_io *io)
{
	struct io_file *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->io = *io;
	x->f.read_at = io_read_at;
	x->f.write_at = io_write_at;
	x->f.size = io_size;
	x->f.sync = io_sync;
	x->f.destroy = io_destroy;
	return &x->f;
}
