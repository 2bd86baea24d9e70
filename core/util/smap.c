// SPDX-License-Identifier: BSD-2-Clause
/* The spilling multimap (smap.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "smap.h"

#define MAX_RUNS 8 /* more, and they are merged into one */

static void key_bytes(uint64_t key, uint8_t *b)
{
	int i;

	/* Big-endian: the runs' byte order is the keys' numeric order. */
	for (i = 7; i >= 0; i--, key >>= 8)
		b[i] = (uint8_t)key;
}

static uint64_t key_of(const uint8_t *b)
{
	uint64_t k = 0;
	int i;

	for (i = 0; i < 8; i++)
		k = k << 8 | b[i];
	return k;
}

static uint64_t mix(uint64_t k)
{
	k ^= k >> 31;
	k *= 0x9e3779b97f4a7c15ull;
	return k ^ (k >> 29);
}

static uint64_t rec_hash(const struct sqk_rec *rec)
{
	return mix(key_of(rec->key));
}

void sqk_smap_init(struct sqk_smap *m, struct sqk_spill *sp, size_t vsize, uint64_t limit)
{
	memset(m, 0, sizeof(*m));
	m->sp = sp;
	m->vsize = vsize;
	m->limit = limit;
	sqk_hash_init(&m->h);
}

void sqk_smap_release(struct sqk_smap *m)
{
	size_t i;

	for (i = 0; i < m->nruns; i++)
		sqk_run_destroy(m->runs[i]);
	free(m->runs);
	free(m->recs);
	free(m->scratch);
	sqk_hash_release(&m->h);
	memset(m, 0, sizeof(*m));
}

uint64_t sqk_smap_count(const struct sqk_smap *m)
{
	uint64_t n = m->n;
	size_t i;

	for (i = 0; i < m->nruns; i++)
		n += m->runs[i]->count;
	return n;
}

static size_t rec_size(const struct sqk_smap *m)
{
	return 8 + m->vsize;
}

static int idx_cmp(const void *x, const void *y, void *arg)
{
	const struct sqk_smap *m = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint64_t ka, kb;

	memcpy(&ka, m->recs + (size_t)a * rec_size(m), 8);
	memcpy(&kb, m->recs + (size_t)b * rec_size(m), 8);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The values in memory become a run; too many runs become one. */
static int spill(struct sqk_smap *m)
{
	uint32_t *idx = malloc(m->n * sizeof(*idx));
	struct sqk_run *r = NULL;
	size_t i;
	int err;

	if (!idx || SQK_ARRAY_GROW(m->runs, m->runs_cap, m->nruns + 1)) {
		free(idx);
		return SQK_ERR_NOMEM;
	}
	for (i = 0; i < m->n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, m->n, sizeof(*idx), idx_cmp, m);
	err = sqk_run_create(m->sp, m->n, &r);
	for (i = 0; !err && i < m->n; i++) {
		const uint8_t *p = m->recs + (size_t)idx[i] * rec_size(m);
		uint64_t key;
		uint8_t kb[8];

		memcpy(&key, p, 8);
		key_bytes(key, kb);
		err = sqk_run_add(r, kb, 8, p + 8, (uint16_t)m->vsize, mix(key));
	}
	free(idx);
	if (!err)
		err = sqk_run_finish(r);
	if (err) {
		sqk_run_destroy(r);
		return err;
	}
	m->runs[m->nruns++] = r;
	m->n = 0;
	sqk_hash_release(&m->h);
	sqk_hash_init(&m->h);
	if (m->nruns > (m->sp->tiny ? 2 : MAX_RUNS)) {
		err = sqk_run_merge(m->runs, m->nruns, rec_hash, &r);
		if (err)
			return err;
		for (i = 0; i < m->nruns; i++)
			sqk_run_destroy(m->runs[i]);
		m->runs[0] = r;
		m->nruns = 1;
	}
	return 0;
}

int sqk_smap_add(struct sqk_smap *m, uint64_t key, const void *val)
{
	/* A record, and about two hash slots of 16 bytes. */
	uint64_t each = rec_size(m) + 32;
	int err;

	if (m->n && (m->n + 1) * each > m->limit && (err = spill(m)))
		return err;
	if (m->n >= UINT32_MAX || SQK_ARRAY_GROW(m->recs, m->cap, (m->n + 1) * rec_size(m)))
		return SQK_ERR_NOMEM;
	memcpy(m->recs + m->n * rec_size(m), &key, 8);
	memcpy(m->recs + m->n * rec_size(m) + 8, val, m->vsize);
	if (sqk_hash_add(&m->h, key, m->n + 1))
		return SQK_ERR_NOMEM;
	m->n++;
	return 0;
}

struct finding {
	sqk_smap_fn fn;
	void *ctx;
	struct sqk_smap *m;
	int stop;
};

static int found(void *arg, const struct sqk_rec *rec)
{
	struct finding *f = arg;

	/* The record's bytes may be unaligned in a read buffer: a copy of the value. */
	memcpy(f->m->scratch, rec->val, f->m->vsize);
	f->stop = f->fn(f->ctx, f->m->scratch);
	return f->stop;
}

int sqk_smap_find(struct sqk_smap *m, uint64_t key, sqk_smap_fn fn, void *ctx)
{
	struct finding f = {fn, ctx, m, 0};
	struct sqk_hash_iter it;
	uint64_t v;
	size_t i;
	uint8_t kb[8];
	int err;

	if (m->nruns) {
		if (!m->scratch && !(m->scratch = malloc(m->vsize ? m->vsize : 1)))
			return SQK_ERR_NOMEM;
		key_bytes(key, kb);
		for (i = 0; i < m->nruns && !f.stop; i++) {
			err = sqk_run_find(m->runs[i], kb, 8, mix(key), found, &f);
			if (err && !f.stop)
				return err;
		}
	}
	for (v = sqk_hash_first(&m->h, key, &it); v && !f.stop; v = sqk_hash_next(&it))
		f.stop = fn(ctx, m->recs + (v - 1) * rec_size(m) + 8);
	return 0;
}
