// SPDX-License-Identifier: BSD-2-Clause
/* Reads checked against the hash tree (verity_read.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/file.h"
#include "verity_read.h"

struct reader {
	struct sqk_file base;
	struct sqk_file *image;
	struct sqk_verity_area *a;
	/* Hash blocks checked up to the root, by their number from the tree's first (atomic). */
	uint8_t **checked;
	uint64_t nchecked;
	pthread_mutex_t lock;
	uint64_t failures;
	struct sqk_verity_bad first;
	void (*on_bad)(void *ctx, const struct sqk_verity_bad *b);
	void *ctx;
};

static void bad(struct reader *r, int level, uint64_t block, uint64_t pos, enum sqk_verity_why why)
{
	struct sqk_verity_bad b = {level, block, pos, why, block, 1, 0};

	if (level >= 0)
		sqk_verity_covers(&r->a->g, (unsigned)level, block, &b.covers, &b.ncovers);
	b.top = level + 1 == (int)r->a->g.levels;
	pthread_mutex_lock(&r->lock);
	if (!r->failures++)
		r->first = b;
	pthread_mutex_unlock(&r->lock);
	if (r->on_bad)
		r->on_bad(r->ctx, &b);
}

static int eio(struct reader *r)
{
	__atomic_store_n(&r->base.errnum, EIO, __ATOMIC_RELAXED);
	return SQK_ERR_IO;
}

/* Is d (a digest of a child) what its parent's slot, or the root, holds? */
static int same(const struct sqk_verity_area *a, const uint8_t *d, const uint8_t *want)
{
	return memcmp(d, want, a->g.digest) == 0;
}

/* Hash block j of level l, checked up to the root (kept once checked): 0 and *out, or an error. */
static int hash_block(struct reader *r, struct sqk_verity_ctx *c, unsigned l, uint64_t j,
		      const uint8_t **out)
{
	const struct sqk_verity_area *a = r->a;
	const struct sqk_verity_geo *g = &a->g;
	uint64_t n = g->level_block[l] + j - g->tree_block, pos = sqk_verity_hash_pos(g, l, j);
	uint8_t *p = __atomic_load_n(&r->checked[n], __ATOMIC_ACQUIRE), *none = NULL;
	uint8_t d[SQK_VERITY_DIGEST_MAX];
	const uint8_t *want = a->root, *parent;
	uint64_t pb;
	uint32_t off;
	int err;

	if (p) {
		*out = p;
		return 0;
	}
	if (l + 1 < g->levels) {
		sqk_verity_parent(g, j, &pb, &off);
		err = hash_block(r, c, l + 1, pb, &parent);
		if (err)
			return err;
		want = parent + off;
	}
	p = malloc(g->hash_bs);
	if (!p)
		return SQK_ERR_NOMEM;
	err = a->hash->read_at(a->hash, pos, p, g->hash_bs);
	if (!err)
		err = sqk_verity_hash(&a->h, c, p, g->hash_bs, d);
	if (err == SQK_ERR_IO || err == SQK_ERR_TRUNCATED) {
		free(p);
		bad(r, (int)l, j, pos, SQK_VERITY_UNREADABLE);
		__atomic_store_n(&r->base.errnum, a->hash->errnum ? a->hash->errnum : EIO,
				 __ATOMIC_RELAXED);
		return SQK_ERR_IO;
	}
	if (!err && !same(a, d, want)) {
		free(p);
		bad(r, (int)l, j, pos, SQK_VERITY_MISMATCH);
		return eio(r);
	}
	if (err) {
		free(p);
		return err;
	}
	/* Two threads may check the same block: one copy is kept. */
	if (!__atomic_compare_exchange_n(&r->checked[n], &none, p, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		free(p);
		p = none;
	}
	*out = p;
	return 0;
}

/* Data block i, in buf: 0 when it matches its digest. */
static int data_block(struct reader *r, struct sqk_verity_ctx *c, uint64_t i, const uint8_t *buf)
{
	const struct sqk_verity_area *a = r->a;
	uint8_t d[SQK_VERITY_DIGEST_MAX];
	const uint8_t *want = a->root, *h;
	uint64_t hb;
	uint32_t off;
	int err;

	if (a->g.levels) {
		sqk_verity_parent(&a->g, i, &hb, &off);
		err = hash_block(r, c, 0, hb, &h);
		if (err)
			return err;
		want = h + off;
	}
	err = sqk_verity_hash(&a->h, c, buf, a->g.data_bs, d);
	if (err)
		return err;
	if (!same(a, d, want)) {
		bad(r, -1, i, i * a->g.data_bs, SQK_VERITY_MISMATCH);
		return eio(r);
	}
	return 0;
}

static int reader_read_at(struct sqk_file *f, uint64_t off, void *buf, size_t len)
{
	struct reader *r = (struct reader *)f;
	const struct sqk_verity_geo *g = &r->a->g;
	uint64_t bs = g->data_bs, first, last, i, span;
	struct sqk_verity_ctx *c;
	uint8_t *tmp = NULL, *blocks;
	int err = 0;

	__atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&f->bytes_read, len, __ATOMIC_RELAXED);
	if (!len)
		return 0;
	if (off + len < off)
		return SQK_ERR_TRUNCATED;
	first = off / bs;
	last = (off + len - 1) / bs;
	if (last >= g->data_blocks) {
		/* Past what the tree covers: nothing there can be trusted. */
		if (off + len > r->image->size(r->image))
			return SQK_ERR_TRUNCATED;
		bad(r, -1, last, last * bs, SQK_VERITY_UNCOVERED);
		return eio(r);
	}
	span = (last - first + 1) * bs;
	if (off % bs == 0 && len % bs == 0) {
		blocks = buf;
	} else {
		blocks = tmp = malloc((size_t)span);
		if (!tmp)
			return SQK_ERR_NOMEM;
	}
	c = sqk_verity_ctx_new();
	if (!c) {
		free(tmp);
		return SQK_ERR_NOMEM;
	}
	err = r->image->read_at(r->image, first * bs, blocks, (size_t)span);
	if (err)
		__atomic_store_n(&f->errnum, r->image->errnum, __ATOMIC_RELAXED);
	for (i = 0; !err && i <= last - first; i++)
		err = data_block(r, c, first + i, blocks + i * bs);
	if (!err && tmp)
		memcpy(buf, tmp + (off - first * bs), len);
	sqk_verity_ctx_free(c);
	free(tmp);
	return err;
}

static int reader_write_at(struct sqk_file *f, uint64_t off, const void *buf, size_t len)
{
	return SQK_ERR_UNSUPPORTED;
}

static uint64_t reader_size(struct sqk_file *f)
{
	struct reader *r = (struct reader *)f;
	uint64_t covered = r->a->g.data_blocks * r->a->g.data_bs, size = r->image->size(r->image);

	return size < covered ? size : covered;
}

static int reader_sync(struct sqk_file *f)
{
	return 0;
}

static void reader_destroy(struct sqk_file *f)
{
	struct reader *r = (struct reader *)f;
	uint64_t i;

	for (i = 0; i < r->nchecked; i++)
		free(r->checked[i]);
	free(r->checked);
	sqk_verity_area_free(r->a);
	sqk_file_destroy(r->image);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

int sqk_verity_reader_create(struct sqk_file *image, struct sqk_verity_area *a,
			     struct sqk_file **out)
{
	struct reader *r = calloc(1, sizeof(*r));
	uint64_t n = a->g.end / a->g.hash_bs - a->g.tree_block;

	*out = NULL;
	if (r && n <= SIZE_MAX / sizeof(*r->checked))
		r->checked = calloc(n ? (size_t)n : 1, sizeof(*r->checked));
	if (!r || !r->checked) {
		free(r);
		sqk_verity_area_free(a);
		sqk_file_destroy(image);
		return SQK_ERR_NOMEM;
	}
	r->nchecked = n;
	r->image = image;
	r->a = a;
	pthread_mutex_init(&r->lock, NULL);
	r->base.read_at = reader_read_at;
	r->base.write_at = reader_write_at;
	r->base.size = reader_size;
	r->base.sync = reader_sync;
	r->base.destroy = reader_destroy;
	r->base.origin = image->origin;
	*out = &r->base;
	return 0;
}

int sqk_verity_is_reader(const struct sqk_file *f)
{
	return f && f->destroy == reader_destroy;
}

void sqk_verity_reader_on_bad(struct sqk_file *f,
			      void (*fn)(void *ctx, const struct sqk_verity_bad *b), void *ctx)
{
	struct reader *r = (struct reader *)f;

	if (!sqk_verity_is_reader(f))
		return;
	r->on_bad = fn;
	r->ctx = ctx;
}

uint64_t sqk_verity_reader_failures(struct sqk_file *f, struct sqk_verity_bad *first)
{
	struct reader *r = (struct reader *)f;
	uint64_t n;

	if (!sqk_verity_is_reader(f))
		return 0;
	pthread_mutex_lock(&r->lock);
	n = r->failures;
	if (first && n)
		*first = r->first;
	pthread_mutex_unlock(&r->lock);
	return n;
}

const struct sqk_verity_area *sqk_verity_reader_area(const struct sqk_file *f)
{
	return sqk_verity_is_reader(f) ? ((const struct reader *)f)->a : NULL;
}

struct sqk_file *sqk_verity_reader_inner(struct sqk_file *f)
{
	return sqk_verity_is_reader(f) ? ((struct reader *)f)->image : f;
}
