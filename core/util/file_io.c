// SPDX-License-Identifier: BSD-2-Clause
/* A file read through a caller's callbacks (struct sqk_io of the public API). */
#include <squashkit/image.h>
#include <stdlib.h>

#include "error.h"
#include "file.h"

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

struct sqk_file *sqk_file_io(const struct sqk_io *io)
{
	struct io_file *x = calloc(1, sizeof(*x));

	if (!x) {
		if (io->close)
			io->close(io->ctx);
		return NULL;
	}
	x->io = *io;
	x->f.read_at = io_read_at;
	x->f.write_at = io_write_at;
	x->f.size = io_size;
	x->f.sync = io_sync;
	x->f.destroy = io_destroy;
	return &x->f;
}

const struct sqk_io *sqk_file_io_of(const struct sqk_file *f)
{
	return f->destroy == io_destroy ? &((const struct io_file *)f)->io : NULL;
}
