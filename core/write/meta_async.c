// SPDX-License-Identifier: BSD-2-Clause
/*
 * Metadata blocks compressed on the pool (meta_writer.h). The inode and
 * directory tables refer to each other by where their blocks start once
 * compressed: a directory inode to its listing's block, a listing's
 * header to its entries' inode block. Those bytes wait (a fixup) until the
 * other table has placed the blocks before the one they name; a block is
 * compressed once its fixups are in, and blocks are placed in order as
 * they come back. Every fixup names a block written before it, so both
 * tables always move; the bytes are those of compressing one block after
 * the other on one thread, for any number of workers.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_meta.h"
#include "meta_int.h"
#include "util/array.h"
#include "util/error.h"
#include "util/pool.h"

/* Blocks held at most (sealed and not placed) before the writer waits for the pool. */
#define QUEUE_MAX 64

struct mw_block {
	struct mw_async *a;
	uint64_t no;
	size_t len, out_len;
	unsigned pending; /* fixups not in yet */
	int submitted, err;
	int done; /* atomic */
	uint8_t in[SQK_META_SIZE];
	uint8_t out[SQK_FMT_META_HDR_SIZE + SQK_META_SIZE];
};

/* Bytes [at, at + len) of this table, made by fn once block ub of the peer has a start. */
struct mw_fix {
	uint64_t at, ub;
	size_t len;
	sqk_mw_fix_fn fn;
	void *data;
	int writing; /* its zeros still going in: applying it now would be overwritten */
};

struct mw_async {
	struct sqk_pool *pool;
	struct sqk_compressor **comps;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mw_block **q; /* sealed blocks not placed yet, in order: emitted.. */
	size_t nq, qcap;
	uint64_t sealed, emitted;
	struct mw_fix *fix; /* waiting, by offset */
	size_t nfix, fixcap;
};

int sqk_mw_async(struct sqk_meta_writer *mw, struct sqk_pool *pool, struct sqk_compressor **comps)
{
	struct mw_async *a = calloc(1, sizeof(*a));

	if (!a)
		return SQK_ERR_NOMEM;
	a->pool = pool;
	a->comps = comps;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	mw->async = a;
	mw->numbered = 1;
	mw->keep_starts = 1;
	return 0;
}

void sqk_mw_async_release(struct sqk_meta_writer *mw)
{
	struct mw_async *a = mw->async;
	size_t i;

	if (!a)
		return;
	/* A failed build: let the workers finish with the blocks first. */
	sqk_pool_wait(a->pool);
	for (i = 0; i < a->nq; i++)
		free(a->q[i]);
	for (i = 0; i < a->nfix; i++)
		free(a->fix[i].data);
	free(a->q);
	free(a->fix);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	free(a);
	mw->async = NULL;
}

static void compress_task(void *arg, unsigned worker)
{
	struct mw_block *b = arg;
	struct mw_async *a = b->a;

	b->err = sqk_mw_encode(a->comps ? a->comps[worker] : NULL, b->in, b->len, b->out,
			       &b->out_len);
	pthread_mutex_lock(&a->lock);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

static int submit(struct mw_block *b)
{
	b->submitted = 1;
	return sqk_pool_submit(b->a->pool, compress_task, b);
}

/* The start of block ub of mw once every block before it is placed; 0 while not. */
static int start_of(const struct sqk_meta_writer *mw, uint64_t ub, uint64_t *start)
{
	const struct mw_async *a = mw->async;

	if (ub > a->emitted)
		return 0;
	*start = ub < a->emitted ? mw->starts[ub] : mw->out_len;
	return 1;
}

/* Bytes of the stream at off into the blocks (sealed or filling) that hold them. */
static void put_bytes(struct sqk_meta_writer *mw, uint64_t off, const uint8_t *p, size_t len)
{
	struct mw_async *a = mw->async;

	while (len) {
		uint64_t no = off / SQK_META_SIZE;
		size_t at = (size_t)(off % SQK_META_SIZE), n = SQK_META_SIZE - at;
		uint8_t *dst = no < a->sealed ? a->q[no - a->emitted]->in : mw->buf;

		if (n > len)
			n = len;
		memcpy(dst + at, p, n);
		off += n;
		p += n;
		len -= n;
	}
}

/* Apply the fixups of mw that the peer's placed blocks can answer; submit what is ready. */
static int resolve(struct sqk_meta_writer *mw)
{
	struct mw_async *a = mw->async;
	size_t i = 0, k = 0;
	int err = 0;

	for (; i < a->nfix; i++) {
		struct mw_fix *f = &a->fix[i];
		uint8_t bytes[256];
		uint64_t start, no;

		if (err || f->writing || !start_of(mw->peer, f->ub, &start)) {
			a->fix[k++] = *f;
			continue;
		}
		f->fn(f->data, start, bytes);
		put_bytes(mw, f->at, bytes, f->len);
		free(f->data);
		for (no = f->at / SQK_META_SIZE; no <= (f->at + f->len - 1) / SQK_META_SIZE; no++) {
			struct mw_block *b;

			if (no >= a->sealed)
				break;
			b = a->q[no - a->emitted];
			if (--b->pending == 0)
				err = submit(b);
		}
	}
	a->nfix = k;
	return err;
}

/* Place the blocks of mw that came back, in order. 1 when one was. */
static int place(struct sqk_meta_writer *mw, int *err)
{
	struct mw_async *a = mw->async;
	int moved = 0;

	while (!*err && a->nq && __atomic_load_n(&a->q[0]->done, __ATOMIC_ACQUIRE)) {
		struct mw_block *b = a->q[0];

		*err = b->err ? b->err : sqk_mw_emit(mw, b->out, b->out_len);
		free(b);
		memmove(a->q, a->q + 1, --a->nq * sizeof(*a->q));
		a->emitted++;
		moved = 1;
	}
	return moved;
}

/*
 * Move both tables as far as they go; with wait, until mw has fewer than
 * left blocks held (sleeping on the pool when nothing else can move).
 */
static int pump(struct sqk_meta_writer *mw, size_t left)
{
	struct sqk_meta_writer *peer = mw->peer;
	struct mw_async *a = mw->async;
	int err = 0;

	for (;;) {
		int moved = place(mw, &err);

		if (peer)
			moved |= place(peer, &err);
		if (!err && moved) {
			err = resolve(mw);
			if (!err && peer)
				err = resolve(peer);
		}
		if (err || a->nq < left)
			return err;
		if (moved)
			continue;
		/* Nothing came back yet: wait for the oldest block in flight, of either table. */
		{
			struct mw_block *b = a->nq && a->q[0]->submitted ? a->q[0] : NULL;
			struct mw_async *pa = peer ? peer->async : NULL;

			if (!b && pa && pa->nq && pa->q[0]->submitted)
				b = pa->q[0];
			if (!b)
				return SQK_ERR_CORRUPT; /* a fixup no block can answer: a bug */
			pthread_mutex_lock(&b->a->lock);
			while (!__atomic_load_n(&b->done, __ATOMIC_ACQUIRE))
				pthread_cond_wait(&b->a->cond, &b->a->lock);
			pthread_mutex_unlock(&b->a->lock);
		}
	}
}

/* The filling block is full (or the stream ends): it goes to the pool once its fixups are in. */
int sqk_mw_seal(struct sqk_meta_writer *mw)
{
	struct mw_async *a = mw->async;
	struct mw_block *b;
	size_t i;
	int err;

	if (!mw->used)
		return 0;
	b = malloc(sizeof(*b));
	if (!b || SQK_ARRAY_GROW(a->q, a->qcap, a->nq + 1)) {
		free(b);
		return SQK_ERR_NOMEM;
	}
	memset(b, 0, offsetof(struct mw_block, in));
	b->a = a;
	b->no = a->sealed;
	b->len = mw->used;
	memcpy(b->in, mw->buf, mw->used);
	for (i = a->nfix; i-- > 0;) {
		const struct mw_fix *f = &a->fix[i];

		if (f->at + f->len <= b->no * SQK_META_SIZE)
			break;
		if (f->at < (b->no + 1) * SQK_META_SIZE)
			b->pending++;
	}
	a->q[a->nq++] = b;
	a->sealed++;
	mw->used = 0;
	err = b->pending ? 0 : submit(b);
	return err ? err : pump(mw, QUEUE_MAX);
}

int sqk_mw_defer(struct sqk_meta_writer *mw, uint64_t ub, sqk_mw_fix_fn fn, const void *data,
		 size_t dlen, size_t len)
{
	struct mw_async *a = mw->async;
	uint8_t zero[256] = {0};
	struct mw_fix *f;
	uint64_t start;
	int err;

	if (len > sizeof(zero) || SQK_ARRAY_GROW(a->fix, a->fixcap, a->nfix + 1))
		return SQK_ERR_NOMEM;
	f = &a->fix[a->nfix];
	f->data = malloc(dlen ? dlen : 1);
	if (!f->data)
		return SQK_ERR_NOMEM;
	memcpy(f->data, data, dlen);
	f->at = mw->total;
	f->ub = ub;
	f->len = len;
	f->fn = fn;
	f->writing = 1;
	a->nfix++;
	/*
	 * The zeros may fill the block and seal it, and the peer may then
	 * answer the fixup at once; applied before its last zeros were written
	 * into the next block they would wipe its tail. It is the newest
	 * fixup (none is added meanwhile, and resolve keeps their order).
	 */
	err = sqk_mw_write(mw, zero, len);
	f = &a->fix[a->nfix - 1];
	f->writing = 0;
	/* Answered meanwhile: apply it now, as no later placing may come to do it. */
	if (!err && mw->peer && start_of(mw->peer, f->ub, &start))
		err = resolve(mw);
	return err;
}

int sqk_mw_async_flush(struct sqk_meta_writer *mw)
{
	int err = sqk_mw_seal(mw);

	return err ? err : pump(mw, 1);
}

int sqk_mw_async_known(const struct sqk_meta_writer *mw, uint64_t ub, uint64_t *start)
{
	return start_of(mw, ub, start);
}

uint64_t sqk_mw_async_block(const struct sqk_meta_writer *mw)
{
	return mw->async->sealed;
}
