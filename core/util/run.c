// SPDX-License-Identifier: BSD-2-Clause
/* Sorted runs, finding a key in one, and the k-way merge (run.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "run.h"

/* A record on disk: u32 key length, u16 value length, the key, the value. */
#define HDR	    6
#define STRIDE	    (16u << 10) /* bytes between the keys kept in memory */
#define WRITE_BUF   (256u << 10)
#define READ_BUF    (64u << 10)
#define BLOOM_BITS  10 /* a key: about 1% false "maybe" */
#define BLOOM_PROBE 7

struct run_mark {
	uint64_t off;
	uint32_t klen;
	uint8_t *key;
};

int sqk_run_keycmp(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	if (r)
		return r;
	return alen < blen ? -1 : alen > blen;
}

int sqk_run_create(struct sqk_spill *sp, uint64_t bloom_count, struct sqk_run **out)
{
	struct sqk_run *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r)
		return SQK_ERR_NOMEM;
	r->sp = sp;
	if (bloom_count) {
		r->bloom_bits = (bloom_count * BLOOM_BITS + 63) / 64 * 64;
		r->bloom = calloc(r->bloom_bits / 64, sizeof(uint64_t));
	}
	r->cap = WRITE_BUF;
	r->buf = malloc(r->cap);
	if (!r->buf || (bloom_count && !r->bloom)) {
		sqk_run_destroy(r);
		return SQK_ERR_NOMEM;
	}
	err = sqk_tmp_create(sp, &r->tmp);
	if (err) {
		sqk_run_destroy(r);
		return err;
	}
	*out = r;
	return 0;
}

void sqk_run_destroy(struct sqk_run *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nmarks; i++)
		free(r->marks[i].key);
	free(r->marks);
	free(r->bloom);
	free(r->buf);
	sqk_tmp_destroy(r->tmp);
	free(r);
}

static int flush(struct sqk_run *r)
{
	int err;

	if (!r->len)
		return 0;
	err = sqk_tmp_write(r->tmp, r->size, r->buf, r->len);
	if (err)
		return err;
	r->size += r->len;
	r->len = 0;
	return 0;
}

static void bloom_set(struct sqk_run *r, uint64_t h)
{
	uint64_t h2 = (h >> 29) | 1;
	unsigned i;

	for (i = 0; i < BLOOM_PROBE; i++, h += h2)
		r->bloom[(h % r->bloom_bits) / 64] |= 1ull << (h % r->bloom_bits % 64);
}

int sqk_run_maybe(const struct sqk_run *r, uint64_t h)
{
	uint64_t h2 = (h >> 29) | 1;
	unsigned i;

	if (!r->bloom)
		return 1;
	for (i = 0; i < BLOOM_PROBE; i++, h += h2)
		if (!(r->bloom[(h % r->bloom_bits) / 64] & (1ull << (h % r->bloom_bits % 64))))
			return 0;
	return 1;
}

int sqk_run_add(struct sqk_run *r, const void *key, uint32_t klen, const void *val, uint16_t vlen,
		uint64_t hash)
{
	size_t need = HDR + (size_t)klen + vlen;
	uint64_t at = r->size + r->len;
	int err;

	if (at >= r->next_mark) {
		struct run_mark *mk;

		if (SQK_ARRAY_GROW(r->marks, r->marks_cap, r->nmarks + 1))
			return SQK_ERR_NOMEM;
		mk = &r->marks[r->nmarks];
		mk->key = malloc(klen ? klen : 1);
		if (!mk->key)
			return SQK_ERR_NOMEM;
		memcpy(mk->key, key, klen);
		mk->klen = klen;
		mk->off = at;
		r->nmarks++;
		r->next_mark = at + (r->sp->tiny ? 1 : STRIDE);
	}
	if (r->len + need > r->cap && (err = flush(r)))
		return err;
	if (need > r->cap) {
		uint8_t *b = realloc(r->buf, need);

		if (!b)
			return SQK_ERR_NOMEM;
		r->buf = b;
		r->cap = need;
	}
	memcpy(r->buf + r->len, &klen, 4);
	memcpy(r->buf + r->len + 4, &vlen, 2);
	memcpy(r->buf + r->len + HDR, key, klen);
	memcpy(r->buf + r->len + HDR + klen, val, vlen);
	r->len += need;
	r->count++;
	if (r->bloom)
		bloom_set(r, hash);
	return 0;
}

int sqk_run_finish(struct sqk_run *r)
{
	int err = flush(r);

	if (err)
		return err;
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
	sqk_spill_count(&r->sp->runs, 1);
	return 0;
}

static int cursor_at(struct sqk_run *r, struct sqk_run_cursor *c, uint64_t off)
{
	memset(c, 0, sizeof(*c));
	c->run = r;
	c->cap = READ_BUF;
	c->buf = malloc(c->cap);
	c->off = off;
	return c->buf ? 0 : SQK_ERR_NOMEM;
}

int sqk_run_cursor_open(struct sqk_run *r, struct sqk_run_cursor *c)
{
	return cursor_at(r, c, 0);
}

void sqk_run_cursor_close(struct sqk_run_cursor *c)
{
	free(c->buf);
	c->buf = NULL;
}

/* At least need bytes buffered after pos, if the run has them; 1 when it does not. */
static int fill(struct sqk_run_cursor *c, size_t need)
{
	size_t have = c->len - c->pos, n;
	int err;

	if (have >= need)
		return 0;
	if (c->off + (need - have) > c->run->size)
		return 1;
	memmove(c->buf, c->buf + c->pos, have);
	c->pos = 0;
	c->len = have;
	if (need > c->cap) {
		uint8_t *b = realloc(c->buf, need);

		if (!b)
			return SQK_ERR_NOMEM;
		c->buf = b;
		c->cap = need;
	}
	n = c->cap - c->len;
	if (n > c->run->size - c->off)
		n = (size_t)(c->run->size - c->off);
	err = sqk_tmp_read(c->run->tmp, c->off, c->buf + c->len, n);
	if (err)
		return err;
	c->len += n;
	c->off += n;
	return 0;
}

int sqk_run_cursor_next(void *cursor, struct sqk_rec *rec)
{
	struct sqk_run_cursor *c = cursor;
	uint32_t klen;
	uint16_t vlen;
	int r;

	if (c->pos == c->len && c->off == c->run->size)
		return 1;
	r = fill(c, HDR);
	if (!r) {
		memcpy(&klen, c->buf + c->pos, 4);
		memcpy(&vlen, c->buf + c->pos + 4, 2);
		r = fill(c, HDR + (size_t)klen + vlen);
	}
	if (r)
		return r < 0 ? r : SQK_ERR_CORRUPT; /* a record cut short */
	rec->klen = klen;
	rec->vlen = vlen;
	rec->key = c->buf + c->pos + HDR;
	rec->val = rec->key + klen;
	c->pos += HDR + (size_t)klen + vlen;
	return 0;
}

/* A cursor at the last mark strictly below key: equal keys may begin before a mark. */
static int cursor_below(struct sqk_run *r, const void *key, uint32_t klen, struct sqk_run_cursor *c)
{
	size_t lo = 0, hi = r->nmarks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sqk_run_keycmp(r->marks[mid].key, r->marks[mid].klen, key, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return cursor_at(r, c, lo ? r->marks[lo - 1].off : 0);
}

int sqk_run_find(struct sqk_run *r, const void *key, uint32_t klen, uint64_t hash,
		 sqk_run_found_fn fn, void *ctx)
{
	struct sqk_run_cursor c;
	struct sqk_rec rec;
	int err;

	if (!sqk_run_maybe(r, hash))
		return 0;
	err = cursor_below(r, key, klen, &c);
	while (!err && !(err = sqk_run_cursor_next(&c, &rec))) {
		int cmp = sqk_run_keycmp(rec.key, rec.klen, key, klen);

		if (cmp > 0)
			break;
		if (cmp == 0 && (err = fn(ctx, &rec)))
			break;
	}
	sqk_run_cursor_close(&c);
	return err == 1 ? 0 : err;
}

int sqk_run_scan(struct sqk_run *r, const void *key, uint32_t klen, sqk_run_found_fn fn,
		 void *ctx)
{
	struct sqk_run_cursor c;
	struct sqk_rec rec;
	int err = cursor_below(r, key, klen, &c);

	while (!err && !(err = sqk_run_cursor_next(&c, &rec)))
		if (sqk_run_keycmp(rec.key, rec.klen, key, klen) >= 0 && (err = fn(ctx, &rec)))
			break;
	sqk_run_cursor_close(&c);
	return err == 1 ? 0 : err;
}

/* Is source a's record before source b's? */
static int before(const struct sqk_merge *m, size_t a, size_t b)
{
	int c = sqk_run_keycmp(m->cur[a].key, m->cur[a].klen, m->cur[b].key, m->cur[b].klen);

	return c < 0 || (c == 0 && a < b);
}

static void sift_down(struct sqk_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, s = i, t;

		if (l < m->nheap && before(m, m->heap[l], m->heap[s]))
			s = l;
		if (l + 1 < m->nheap && before(m, m->heap[l + 1], m->heap[s]))
			s = l + 1;
		if (s == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

int sqk_merge_init(struct sqk_merge *m, struct sqk_rec_src *src, size_t n)
{
	size_t i;
	int err;

	memset(m, 0, sizeof(*m));
	m->src = src;
	m->n = n;
	m->cur = calloc(n ? n : 1, sizeof(*m->cur));
	m->heap = calloc(n ? n : 1, sizeof(*m->heap));
	if (!m->cur || !m->heap)
		return SQK_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		err = src[i].next(src[i].ctx, &m->cur[i]);
		if (err < 0)
			return err;
		if (!err)
			m->heap[m->nheap++] = i;
	}
	for (i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

int sqk_merge_next(void *merge, struct sqk_rec *rec)
{
	struct sqk_merge *m = merge;
	int err;

	/* The source of the record given last moves on only now: that record stayed valid. */
	if (m->started) {
		size_t s = m->heap[0];

		err = m->src[s].next(m->src[s].ctx, &m->cur[s]);
		if (err < 0)
			return err;
		if (err)
			m->heap[0] = m->heap[--m->nheap];
		sift_down(m, 0);
		m->started = 0;
	}
	if (!m->nheap)
		return 1;
	*rec = m->cur[m->heap[0]];
	m->started = 1;
	return 0;
}

void sqk_merge_release(struct sqk_merge *m)
{
	free(m->cur);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

int sqk_run_merge(struct sqk_run *const *r, size_t n, sqk_run_hash_fn hash_of, struct sqk_run **out)
{
	struct sqk_run_cursor *c = calloc(n ? n : 1, sizeof(*c));
	struct sqk_rec_src *src = calloc(n ? n : 1, sizeof(*src));
	struct sqk_merge m = {0};
	struct sqk_run *dst = NULL;
	struct sqk_rec rec;
	uint64_t total = 0;
	size_t i, opened = 0;
	int err = 0;

	*out = NULL;
	if (!c || !src)
		err = SQK_ERR_NOMEM;
	for (i = 0; !err && i < n; i++, opened++) {
		err = sqk_run_cursor_open(r[i], &c[i]);
		src[i] = (struct sqk_rec_src){sqk_run_cursor_next, &c[i]};
		total += r[i]->count;
	}
	if (!err)
		err = sqk_run_create(r[0]->sp, hash_of ? total : 0, &dst);
	if (!err)
		err = sqk_merge_init(&m, src, n);
	while (!err && !(err = sqk_merge_next(&m, &rec)))
		err = sqk_run_add(dst, rec.key, rec.klen, rec.val, rec.vlen,
				  hash_of ? hash_of(&rec) : 0);
	if (err == 1)
		err = sqk_run_finish(dst);
	sqk_merge_release(&m);
	for (i = 0; i < opened; i++)
		sqk_run_cursor_close(&c[i]);
	free(c);
	free(src);
	if (err) {
		sqk_run_destroy(dst);
		return err;
	}
	sqk_spill_count(&dst->sp->merges, 1);
	*out = dst;
	return 0;
}
