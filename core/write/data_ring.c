// SPDX-License-Identifier: BSD-2-Clause
/*
 * The items in flight: a ring in submission order, a few block buffers,
 * and the pool that compresses and hashes. The main thread reserves and
 * pushes at the tail and consumes at the head; a worker or the main
 * thread, whichever claims a slot first, processes it.
 */
#include <stdlib.h>

#include "data_int.h"
#include "util/error.h"

/*
 * Compress and hash one item with compressor c; the caller has claimed it.
 * With --reuse, buf is the caller's block of room to prove candidates in.
 */
static void process(struct slot *s, struct sqk_compressor *c, uint8_t *buf)
{
	struct sqk_data_writer *dw = s->dw;
	size_t out = 0;
	int err;

	s->sparse = s->raw = s->err = 0;
	s->reused = s->compressed = 0;
	memset(s->result, CAND_UNTRIED, sizeof(s->result));
	if (s->kind == K_BLOCK) {
		if (s->hole && !dw->o.no_sparse) {
			s->sparse = 1;
		} else if (s->hole) {
			memset(s->in, 0, s->len);
		} else if (!dw->o.no_sparse && sqk_dw_all_zero(s->in, s->len)) {
			s->sparse = 1;
		}
		s->hash = s->sparse ? sqk_dw_zero_hash(s->len) : sqk_hash64(s->in, s->len);
	}
	if (!s->sparse && !(s->ncand && sqk_dw_reuse_try(dw, s, buf))) {
		err = SQK_ERR_OVERFLOW; /* as if it did not shrink: stored raw */
		if (!(s->kind == K_FRAG ? dw->o.raw_fragments : dw->o.raw_data)) {
			err = c->compress(c, s->in, s->len, s->out, dw->bs, &out);
			s->compressed = 1;
		}
		if (err == 0 && out < s->len) {
			s->out_len = (uint32_t)out;
		} else if (err == 0 || err == SQK_ERR_OVERFLOW) {
			s->raw = 1;
			s->out_len = s->len;
		} else {
			s->err = err;
		}
	}
	pthread_mutex_lock(&dw->lock);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	if (dw->waiting == s)
		pthread_cond_signal(&dw->cond);
	pthread_mutex_unlock(&dw->lock);
}

/*
 * A pool task. The main thread may have taken the item while it waited,
 * and the slot may even hold a newer item by now: whoever claims the slot
 * first processes what it holds, and a late task finds it claimed.
 */
static void compress_task(void *arg, unsigned worker)
{
	struct slot *s = arg;
	struct sqk_data_writer *dw;

	if (__atomic_exchange_n(&s->claimed, 1, __ATOMIC_ACQ_REL))
		return;
	dw = s->dw;
	process(s, dw->comps[worker], dw->reuse_buf ? dw->reuse_buf[worker] : NULL);
}

/* The oldest item nobody has started, claimed for the main thread; or NULL. */
static struct slot *claim_unstarted(struct sqk_data_writer *dw)
{
	unsigned i, heavy = 0;

	for (i = 0; i < dw->count && heavy < dw->nbufs; i++) {
		struct slot *t = &dw->ring[(dw->head + i) % dw->cap];

		if (t->kind == K_END)
			continue;
		heavy++;
		if (!__atomic_load_n(&t->claimed, __ATOMIC_ACQUIRE) &&
		    !__atomic_exchange_n(&t->claimed, 1, __ATOMIC_ACQ_REL))
			return t;
	}
	return NULL;
}

int sqk_dw_consume_one(struct sqk_data_writer *dw)
{
	struct slot *s = &dw->ring[dw->head];
	struct sqk_file_data *fd = s->fd;
	int err;

	/* Rather than sleep while the oldest item is pending, compress one ourselves. */
	while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
		struct slot *t = claim_unstarted(dw);

		if (t) {
			process(t, dw->main, dw->reuse_buf ? dw->reuse_buf[dw->nthreads] : NULL);
			continue;
		}
		pthread_mutex_lock(&dw->lock);
		while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
			dw->waiting = s;
			pthread_cond_wait(&dw->cond, &dw->lock);
		}
		dw->waiting = NULL;
		pthread_mutex_unlock(&dw->lock);
	}

	dw->head = (dw->head + 1) % dw->cap;
	dw->count--;
	err = s->err;
	if (!err)
		err = sqk_dw_place(dw, s, fd);
	if (s->kind != K_END) {
		dw->free_bufs[2 * dw->nfree] = s->in;
		dw->free_bufs[2 * dw->nfree + 1] = s->out;
		dw->nfree++;
		s->in = s->out = NULL;
	}
	return err;
}

int sqk_dw_reserve(struct sqk_data_writer *dw, int heavy, struct slot **out)
{
	struct slot *s;

	while (dw->count == dw->cap || (heavy && !dw->nfree)) {
		int err = sqk_dw_consume_one(dw);

		if (err)
			return err;
	}
	s = &dw->ring[(dw->head + dw->count) % dw->cap];
	if (heavy) {
		dw->nfree--;
		s->in = dw->free_bufs[2 * dw->nfree];
		s->out = dw->free_bufs[2 * dw->nfree + 1];
	}
	s->dw = dw;
	__atomic_store_n(&s->done, 0, __ATOMIC_RELAXED);
	s->err = 0;
	s->ncand = 0;
	*out = s;
	return 0;
}

int sqk_dw_push(struct sqk_data_writer *dw, struct slot *s)
{
	dw->count++;
	if (s->kind == K_END) {
		__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
		return 0;
	}
	/* Every field is written: open the slot to whoever comes first. */
	__atomic_store_n(&s->claimed, 0, __ATOMIC_RELEASE);
	return sqk_pool_submit(dw->pool, compress_task, s);
}

int sqk_dw_ring_init(struct sqk_data_writer *dw, unsigned threads)
{
	unsigned i;

	/*
	 * Enough blocks in flight to keep every worker busy while the main
	 * thread reads and writes; memory is these buffers, whatever the data.
	 */
	dw->nthreads = threads;
	dw->nbufs = 3 * threads + 4;
	dw->cap = 4096;
	pthread_mutex_init(&dw->lock, NULL);
	pthread_cond_init(&dw->cond, NULL);
	dw->ring = calloc(dw->cap, sizeof(*dw->ring));
	dw->free_bufs = calloc(2 * (size_t)dw->nbufs, sizeof(*dw->free_bufs));
	if (dw->free_bufs) {
		for (i = 0; i < 2 * dw->nbufs; i++) {
			dw->free_bufs[i] = malloc(dw->bs);
			if (!dw->free_bufs[i])
				break;
		}
		/* Buffers go in pairs: an odd one out would be lost. */
		if (i % 2)
			free(dw->free_bufs[i - 1]);
		dw->nfree = i / 2;
	}
	dw->pool = sqk_pool_create(threads, dw->nbufs + 2);
	if (!dw->ring || dw->nfree != dw->nbufs || !dw->pool)
		return SQK_ERR_NOMEM;
	return 0;
}

void sqk_dw_ring_free(struct sqk_data_writer *dw)
{
	unsigned i;

	sqk_pool_destroy(dw->pool);
	/* Buffers are either free or held by a slot (consumed slots hold none). */
	for (i = 0; dw->free_bufs && i < 2 * dw->nfree; i++)
		free(dw->free_bufs[i]);
	for (i = 0; dw->ring && i < dw->cap; i++) {
		free(dw->ring[i].in);
		free(dw->ring[i].out);
	}
	free(dw->free_bufs);
	pthread_mutex_destroy(&dw->lock);
	pthread_cond_destroy(&dw->cond);
	free(dw->ring);
}
