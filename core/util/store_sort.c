// SPDX-License-Identifier: BSD-2-Clause
/*
 * Sorting the records of a store: runs of what fits a quarter of the
 * budget, each sorted in memory and written back in place, then merged up
 * to FAN_IN runs at a time into a new store, pass after pass, reading each
 * run and writing the result through buffers of their share of that same
 * quarter.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "store.h"

#define FAN_IN	  16
#define MIN_BYTES (64u << 10)

/* One run being merged: its records left in the store, and a buffer of the next ones. */
struct run {
	uint64_t next, end; /* records, as indexes */
	uint8_t *buf;
	size_t have, at; /* records in buf; the one at its head */
};

struct merge {
	struct sqk_store *in, *out;
	size_t size, per; /* record bytes; records a buffer holds */
	int (*cmp)(const void *a, const void *b);
	struct run run[FAN_IN];
	unsigned heap[FAN_IN], nheap;
};

static const void *head(const struct merge *m, unsigned r)
{
	return m->run[r].buf + m->run[r].at * m->size;
}

/* Runs by their head record; the earlier run first among equals, so the sort is stable. */
static int before(const struct merge *m, unsigned a, unsigned b)
{
	int c = m->cmp(head(m, a), head(m, b));

	return c < 0 || (c == 0 && a < b);
}

static void sift_down(struct merge *m, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, least = i, t;

		if (l < m->nheap && before(m, m->heap[l], m->heap[least]))
			least = l;
		if (r < m->nheap && before(m, m->heap[r], m->heap[least]))
			least = r;
		if (least == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[least];
		m->heap[least] = t;
		i = least;
	}
}

/* Refill run r's buffer when it is used up: 1 when the run has a record, 0 at its end. */
static int fill(struct merge *m, unsigned r)
{
	struct run *u = &m->run[r];
	uint64_t n;
	int err;

	if (u->at < u->have)
		return 1;
	if (u->next == u->end)
		return 0;
	n = u->end - u->next < m->per ? u->end - u->next : m->per;
	err = sqk_store_read(m->in, u->next * m->size, u->buf, n * m->size);
	if (err)
		return err;
	u->next += n;
	u->have = (size_t)n;
	u->at = 0;
	return 1;
}

/* Merge the runs of len records from start up to end into m->out at the same place. */
static int merge_group(struct merge *m, uint64_t start, uint64_t len, uint64_t end, uint8_t *obuf)
{
	uint64_t pos = start;
	size_t nout = 0;
	unsigned r, nruns = 0;
	int err;

	for (r = 0; r < FAN_IN && start + r * len < end; r++, nruns++) {
		struct run *u = &m->run[r];

		u->next = start + r * len;
		u->end = u->next + len < end ? u->next + len : end;
		u->have = u->at = 0;
	}
	m->nheap = 0;
	for (r = 0; r < nruns; r++) {
		err = fill(m, r);
		if (err < 0)
			return err;
		if (err)
			m->heap[m->nheap++] = r;
	}
	for (r = m->nheap / 2; r-- > 0;)
		sift_down(m, r);
	while (m->nheap) {
		unsigned top = m->heap[0];

		memcpy(obuf + nout * m->size, head(m, top), m->size);
		m->run[top].at++;
		if (++nout == m->per) {
			err = sqk_store_write(m->out, pos * m->size, obuf, nout * m->size);
			if (err)
				return err;
			pos += nout;
			nout = 0;
		}
		err = fill(m, top);
		if (err < 0)
			return err;
		if (!err)
			m->heap[0] = m->heap[--m->nheap];
		sift_down(m, 0);
	}
	return nout ? sqk_store_write(m->out, pos * m->size, obuf, nout * m->size) : 0;
}

/* Sorted runs of run records, written back in place. */
static int sort_runs(struct sqk_store *s, uint64_t count, size_t size, uint64_t run,
		     int (*cmp)(const void *a, const void *b))
{
	uint8_t *buf = malloc((size_t)(run < count ? run : count) * size);
	uint64_t at;
	int err = buf ? 0 : SQK_ERR_NOMEM;

	for (at = 0; !err && at < count; at += run) {
		size_t n = (size_t)(count - at < run ? count - at : run);

		err = sqk_store_read(s, at * size, buf, n * size);
		if (err)
			break;
		qsort(buf, n, size, cmp);
		err = sqk_store_write(s, at * size, buf, n * size);
	}
	free(buf);
	return err;
}

int sqk_store_sort(struct sqk_store **sp, uint64_t count, size_t size,
		   int (*cmp)(const void *a, const void *b))
{
	struct sqk_budget *b = sqk_store_budget(*sp);
	uint64_t bytes = b->limit / 4 > MIN_BYTES ? b->limit / 4 : MIN_BYTES;
	uint64_t run = bytes / size > 2 ? bytes / size : 2, len, start;
	struct merge m;
	uint8_t *obuf = NULL;
	unsigned r;
	int err;

	if (count < 2)
		return 0;
	err = sort_runs(*sp, count, size, run, cmp);
	if (err || count <= run)
		return err;
	memset(&m, 0, sizeof(m));
	m.size = size;
	m.cmp = cmp;
	m.per = (size_t)(bytes / (FAN_IN + 1) / size);
	if (m.per == 0)
		m.per = 1;
	obuf = malloc(m.per * size);
	err = obuf ? 0 : SQK_ERR_NOMEM;
	for (r = 0; !err && r < FAN_IN; r++)
		if (!(m.run[r].buf = malloc(m.per * size)))
			err = SQK_ERR_NOMEM;
	for (len = run; !err && len<count; len = len> count / FAN_IN ? count : len * FAN_IN) {
		m.in = *sp;
		err = sqk_store_create(b, &m.out);
		for (start = 0; !err && start < count; start += len * FAN_IN)
			err = merge_group(&m, start, len, count, obuf);
		if (err) {
			sqk_store_destroy(m.out);
			break;
		}
		sqk_store_destroy(m.in);
		*sp = m.out;
	}
	for (r = 0; r < FAN_IN; r++)
		free(m.run[r].buf);
	free(obuf);
	return err;
}
