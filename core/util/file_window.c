// SPDX-License-Identifier: BSD-2-Clause
/*
 * A window over a file: an image inside another file (an AppImage's
 * runtime in front, a firmware blob) is read and written as a file of its
 * own that starts where the image does.
 */
#include <stdlib.h>

#include "error.h"
#include "file.h"

struct window {
	struct sqk_file base;
	struct sqk_file *inner;
	uint64_t start;
	int owned; /* read-only and destroyed with the window; else writable, borrowed */
};

/* The inner file's errno is the window's. */
static int inner_errnum(struct window *w, int err)
{
	if (err)
		__atomic_store_n(&w->base.errnum,
				 __atomic_load_n(&w->inner->errnum, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	return err;
}

static int window_read_at(struct sqk_file *f, uint64_t off, void *buf, size_t len)
{
	struct window *w = (struct window *)f;

	if (off > UINT64_MAX - w->start)
		return SQK_ERR_TRUNCATED;
	__atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&f->bytes_read, len, __ATOMIC_RELAXED);
	return inner_errnum(w, w->inner->read_at(w->inner, w->start + off, buf, len));
}

static int window_write_at(struct sqk_file *f, uint64_t off, const void *buf, size_t len)
{
	struct window *w = (struct window *)f;

	if (w->owned)
		return SQK_ERR_ARG;
	if (off > UINT64_MAX - w->start)
		return SQK_ERR_OVERFLOW;
	return inner_errnum(w, w->inner->write_at(w->inner, w->start + off, buf, len));
}

static uint64_t window_size(struct sqk_file *f)
{
	struct window *w = (struct window *)f;
	uint64_t size = w->inner->size(w->inner);

	return size > w->start ? size - w->start : 0;
}

static int window_sync(struct sqk_file *f)
{
	struct window *w = (struct window *)f;

	return w->owned ? 0 : inner_errnum(w, w->inner->sync(w->inner));
}

static int window_truncate(struct sqk_file *f, uint64_t size)
{
	struct window *w = (struct window *)f;

	if (w->owned || !w->inner->truncate)
		return SQK_ERR_ARG;
	if (size > UINT64_MAX - w->start)
		return SQK_ERR_OVERFLOW;
	return inner_errnum(w, w->inner->truncate(w->inner, w->start + size));
}

static void window_destroy(struct sqk_file *f)
{
	struct window *w = (struct window *)f;

	if (w->owned)
		sqk_file_destroy(w->inner);
	free(w);
}

static struct sqk_file *window_new(struct sqk_file *inner, uint64_t base, int owned)
{
	struct window *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->base.read_at = window_read_at;
	w->base.write_at = window_write_at;
	w->base.size = window_size;
	w->base.sync = window_sync;
	w->base.destroy = window_destroy;
	w->base.truncate = owned ? NULL : window_truncate;
	w->base.origin = inner->origin + base;
	w->inner = inner;
	w->start = base;
	w->owned = owned;
	return &w->base;
}

struct sqk_file *sqk_file_window(struct sqk_file *inner, uint64_t base)
{
	return window_new(inner, base, 1);
}

struct sqk_file *sqk_file_window_rw(struct sqk_file *inner, uint64_t base)
{
	return window_new(inner, base, 0);
}

uint64_t sqk_file_window_base(struct sqk_file *f)
{
	return f->destroy == window_destroy ? ((struct window *)f)->start : 0;
}

struct sqk_file *sqk_file_window_inner(struct sqk_file *f)
{
	return f->destroy == window_destroy ? ((struct window *)f)->inner : NULL;
}
