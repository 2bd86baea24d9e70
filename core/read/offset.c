// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fmt_super.h"
#include "format.h"
#include "layout.h"
#include "offset.h"

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

#define CHUNK (1u << 20)

/*
 * Does a superblock at base of f, as decoded into sb, keep every rule the
 * reader keeps at open: its own, and where each table lies?
 */
static int image_at(struct sqk_file *f, uint64_t base, const struct sqk_super *sb, int *found)
{
	struct sqk_file *w;
	struct sqk_layout l;
	int err;

	*found = 0;
	if (sqk_fmt_super_check(sb, f->size(f) - base, NULL))
		return 0;
	w = sqk_file_window_rw(f, base);
	if (!w)
		return SQK_ERR_NOMEM;
	err = sqk_layout_read(&l, w, sb, NULL);
	sqk_layout_free(&l);
	sqk_file_destroy(w);
	if (err == SQK_ERR_IO || err == SQK_ERR_NOMEM)
		return err;
	*found = !err;
	return 0;
}

int sqk_find_images(struct sqk_file *f, uint64_t found[2], unsigned *count)
{
	return sqk_find_images_before(f, UINT64_MAX, found, count);
}

int sqk_find_images_before(struct sqk_file *f, uint64_t limit, uint64_t found[2], unsigned *count)
{
	static const uint8_t magic[4] = {'h', 's', 'q', 's'};
	uint64_t size = f->size(f), pos;
	uint8_t *buf;
	int err = 0;

	*count = 0;
	found[0] = found[1] = 0;
	buf = malloc(CHUNK + SQK_SUPER_SIZE);
	if (!buf)
		return SQK_ERR_NOMEM;
	/* Chunks overlap by a superblock less a byte, so none is missed at a seam. */
	for (pos = 0; pos < size && pos < limit && !err; pos += CHUNK) {
		size_t n = size - pos < CHUNK + SQK_SUPER_SIZE - 1 ? (size_t)(size - pos)
								   : CHUNK + SQK_SUPER_SIZE - 1;
		size_t i = 0;

		err = f->read_at(f, pos, buf, n);
		while (!err && i + SQK_SUPER_SIZE <= n && i < CHUNK) {
			uint8_t *hit = memmem(buf + i, n - i, magic, sizeof(magic));
			struct sqk_super sb;
			int found_here;

			if (!hit)
				break;
			i = (size_t)(hit - buf);
			if (i >= CHUNK || i + SQK_SUPER_SIZE > n || pos + i >= limit)
				break;
			sqk_fmt_super_decode(&sb, buf + i);
			err = image_at(f, pos + i, &sb, &found_here);
			if (!err && found_here) {
				if (*count < 2)
					found[*count] = pos + i;
				(*count)++;
			}
			i++;
		}
	}
	free(buf);
	return err;
}
