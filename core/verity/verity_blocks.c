// SPDX-License-Identifier: BSD-2-Clause
/* Hashing a run of blocks on worker threads (verity_blocks.h). */
#include <pthread.h>
#include <stdlib.h>

#include "util/error.h"
#include "util/file.h"
#include "util/pool.h"
#include "verity_blocks.h"

/* Blocks a worker takes at a time: 32 KiB reads, which the hashing finds in the L1 cache. */
#define CHUNK 8

struct job {
	struct sqk_verity_run *r;
	uint64_t next; /* atomic: the next chunk to take */
	uint64_t chunks;
	pthread_mutex_t lock;
	int err;
};

static void fail(struct job *j, int err, uint64_t block)
{
	pthread_mutex_lock(&j->lock);
	if (!j->err || block < j->r->failed_block) {
		j->err = err;
		j->r->failed_block = block;
	}
	pthread_mutex_unlock(&j->lock);
}

/* Blocks [i, i + n) of the run, read in one go and hashed. */
static void span(struct job *j, struct sqk_verity_ctx *c, uint8_t *buf, uint64_t i, uint64_t n)
{
	struct sqk_verity_run *r = j->r;
	uint64_t k;
	int err;

	err = r->f->read_at(r->f, (r->first + i) * r->bs, buf, (size_t)(n * r->bs));
	if (err && n > 1) {
		/* Which block it was: one at a time. */
		for (k = 0; k < n; k++)
			span(j, c, buf, i + k, 1);
		return;
	}
	if (err) {
		if (r->failed)
			r->failed[i] = 1;
		fail(j, err, r->first + i);
		return;
	}
	for (k = 0; k < n; k++) {
		err = sqk_verity_hash(r->h, c, buf + k * r->bs, r->bs, r->out + (i + k) * r->slot);
		if (err) {
			fail(j, err, r->first + i + k);
			return;
		}
	}
}

static void work(void *arg, unsigned worker)
{
	struct job *j = arg;
	struct sqk_verity_run *r = j->r;
	struct sqk_verity_ctx *c = sqk_verity_ctx_new();
	uint8_t *buf = malloc((size_t)CHUNK * r->bs);
	uint64_t ch;

	if (!c || !buf) {
		fail(j, SQK_ERR_NOMEM, r->first);
		goto out;
	}
	while ((ch = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->chunks) {
		uint64_t i = ch * CHUNK, end = i + CHUNK < r->n ? i + CHUNK : r->n;

		while (i < end) {
			uint64_t k = i;

			if (r->need && !r->need[i]) {
				i++;
				continue;
			}
			while (k < end && (!r->need || r->need[k]))
				k++;
			span(j, c, buf, i, k - i);
			i = k;
		}
	}
out:
	free(buf);
	sqk_verity_ctx_free(c);
}

int sqk_verity_hash_run(struct sqk_verity_run *r)
{
	struct job j = {.r = r, .chunks = (r->n + CHUNK - 1) / CHUNK};
	unsigned t = r->threads ? r->threads : 1, i;
	struct sqk_pool *pool = NULL;

	r->failed_block = 0;
	if (!r->n)
		return 0;
	pthread_mutex_init(&j.lock, NULL);
	if (t > j.chunks)
		t = (unsigned)j.chunks;
	if (t > 1)
		pool = sqk_pool_create(t, t);
	if (!pool) {
		work(&j, 0);
	} else {
		for (i = 0; i < t; i++)
			if (sqk_pool_submit(pool, work, &j))
				fail(&j, SQK_ERR_NOMEM, r->first);
		sqk_pool_destroy(pool);
	}
	pthread_mutex_destroy(&j.lock);
	return j.err;
}
