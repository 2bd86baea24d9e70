// SPDX-License-Identifier: BSD-2-Clause
/* The external sort (extsort.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "extsort.h"

#define HDR   6	 /* u32 key length, u16 value length */
#define FANIN 64 /* runs merged at once */

static int fanin(const struct sqk_sorter *s)
{
	/* Small inputs take the intermediate merges too, under a tiny budget. */
	return s->sp->tiny ? 3 : FANIN;
}

void sqk_sorter_init(struct sqk_sorter *s, struct sqk_spill *sp, uint64_t limit)
{
	memset(s, 0, sizeof(*s));
	s->sp = sp;
	s->limit = limit;
}

void sqk_sorter_release(struct sqk_sorter *s)
{
	size_t i;

	sqk_merge_release(&s->merge);
	for (i = 0; s->cur && i < s->nruns; i++)
		sqk_run_cursor_close(&s->cur[i]);
	for (i = 0; i < s->nruns; i++)
		sqk_run_destroy(s->runs[i]);
	free(s->cur);
	free(s->src);
	free(s->runs);
	free(s->recs);
	free(s->at);
	memset(s, 0, sizeof(*s));
}

static void rec_at(const uint8_t *p, struct sqk_rec *r)
{
	memcpy(&r->klen, p, 4);
	memcpy(&r->vlen, p + 4, 2);
	r->key = p + HDR;
	r->val = r->key + r->klen;
}

/* By key; equal keys in the order they came (their offsets rise with it). */
static int at_cmp(const void *x, const void *y, void *arg)
{
	const uint8_t *recs = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	struct sqk_rec ra, rb;
	int c;

	rec_at(recs + a, &ra);
	rec_at(recs + b, &rb);
	c = sqk_run_keycmp(ra.key, ra.klen, rb.key, rb.klen);
	if (c)
		return c;
	return a < b ? -1 : a > b;
}

/* The records in memory, sorted, become a run. */
static int spill(struct sqk_sorter *s)
{
	struct sqk_run *r;
	size_t i;
	int err;

	qsort_r(s->at, s->n, sizeof(*s->at), at_cmp, s->recs);
	if (SQK_ARRAY_GROW(s->runs, s->runs_cap, s->nruns + 1))
		return SQK_ERR_NOMEM;
	err = sqk_run_create(s->sp, 0, &r);
	for (i = 0; !err && i < s->n; i++) {
		struct sqk_rec rec;

		rec_at(s->recs + s->at[i], &rec);
		err = sqk_run_add(r, rec.key, rec.klen, rec.val, rec.vlen, 0);
	}
	if (!err)
		err = sqk_run_finish(r);
	if (err) {
		sqk_run_destroy(r);
		return err;
	}
	s->runs[s->nruns++] = r;
	s->n = s->len = 0;
	return 0;
}

int sqk_sorter_add(struct sqk_sorter *s, const void *key, uint32_t klen, const void *val,
		   uint16_t vlen)
{
	size_t need = HDR + (size_t)klen + vlen;
	int err;

	if (s->n && s->len + need + (s->n + 1) * sizeof(*s->at) > s->limit && (err = spill(s)))
		return err;
	if (SQK_ARRAY_GROW(s->recs, s->cap, s->len + need) ||
	    SQK_ARRAY_GROW(s->at, s->at_cap, s->n + 1))
		return SQK_ERR_NOMEM;
	memcpy(s->recs + s->len, &klen, 4);
	memcpy(s->recs + s->len + 4, &vlen, 2);
	memcpy(s->recs + s->len + HDR, key, klen);
	memcpy(s->recs + s->len + HDR + klen, val, vlen);
	s->at[s->n++] = s->len;
	s->len += need;
	return 0;
}

int sqk_sorter_done(struct sqk_sorter *s)
{
	size_t i, k = (size_t)fanin(s);
	int err;

	s->reading = 1;
	s->next = 0;
	if (!s->nruns) {
		/* None added is an empty stream (qsort_r takes no null array, even of none). */
		if (s->n)
			qsort_r(s->at, s->n, sizeof(*s->at), at_cmp, s->recs);
		return 0;
	}
	if (s->n && (err = spill(s)))
		return err;
	/* Too many runs to merge at once: the oldest k become one, until few enough. */
	while (s->nruns > k) {
		struct sqk_run *r;

		err = sqk_run_merge(s->runs, k, NULL, &r);
		if (err)
			return err;
		for (i = 0; i < k; i++)
			sqk_run_destroy(s->runs[i]);
		/* In their place: equal keys keep the order they were added in. */
		s->runs[0] = r;
		memmove(s->runs + 1, s->runs + k, (s->nruns - k) * sizeof(*s->runs));
		s->nruns -= k - 1;
	}
	s->cur = calloc(s->nruns, sizeof(*s->cur));
	s->src = calloc(s->nruns, sizeof(*s->src));
	if (!s->cur || !s->src)
		return SQK_ERR_NOMEM;
	for (i = 0; i < s->nruns; i++) {
		err = sqk_run_cursor_open(s->runs[i], &s->cur[i]);
		if (err)
			return err;
		s->src[i] = (struct sqk_rec_src){sqk_run_cursor_next, &s->cur[i]};
	}
	return sqk_merge_init(&s->merge, s->src, s->nruns);
}

int sqk_sorter_next(void *sorter, struct sqk_rec *rec)
{
	struct sqk_sorter *s = sorter;

	if (s->nruns)
		return sqk_merge_next(&s->merge, rec);
	if (s->next == s->n)
		return 1;
	rec_at(s->recs + s->at[s->next++], rec);
	return 0;
}
