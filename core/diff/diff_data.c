// SPDX-License-Identifier: BSD-2-Clause
/*
 * File contents, compared on the pool: each file is cut into chunks of
 * DIFF_CHUNK bytes (diff_chunk.c compares one), small files' chunks go to
 * the workers in batches, and a job counts the chunks of its file still
 * out. A chunk that starts past a difference already found is skipped, so
 * a job ends knowing the first byte that differs. Between two images with
 * one block size and codec ("raw") chunks compare stored bytes first;
 * otherwise ("plain") both sides are read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"
#include "format/format.h"
#include "read/image.h"
#include "util/error.h"
#include "util/pool.h"

/* Chunks of small files that go to a worker together, at most. */
#define BATCH_CHUNKS 64

struct chunk {
	struct diff_job *job;
	uint64_t off;
	uint32_t len;
	struct chunk *next;
};

struct diff_batch {
	struct diff *d;
	struct chunk *head, *tail;
	unsigned n;
	uint64_t bytes;
};

static void run_batch(void *arg, unsigned worker)
{
	struct diff_batch *b = arg;
	struct diff *d = b->d;
	struct chunk *c, *next;

	if (!d->wbuf[worker])
		d->wbuf[worker] = malloc(2 * (size_t)DIFF_CHUNK);
	for (c = b->head; c; c = next) {
		struct diff_job *j = c->job;
		struct diff_cmp x = {d, j, d->wbuf[worker], NULL, UINT64_MAX, -1, 0, 0};
		int skip, err = 0, errnum = 0;

		next = c->next;
		pthread_mutex_lock(&d->lock);
		skip = d->cancel || j->err || c->off >= j->first;
		pthread_mutex_unlock(&d->lock);
		if (!skip && !x.a) {
			err = SQK_ERR_NOMEM;
		} else if (!skip) {
			x.b = x.a + DIFF_CHUNK;
			err = d->raw ? sqk_diff_chunk_stored(&x, c->off, c->len)
				     : sqk_diff_chunk_plain(&x, c->off, c->len);
			errnum = errno;
		}
		pthread_mutex_lock(&d->lock);
		if (err == 1 && x.at < j->first)
			j->first = x.at;
		if (err < 0 && !j->err) {
			j->err = err;
			j->side = x.side;
			j->errnum = errnum;
		}
		d->blocks_stored += x.stored;
		d->bytes_read += x.read;
		if (--j->left == 0)
			pthread_cond_broadcast(&d->done);
		pthread_mutex_unlock(&d->lock);
		free(c);
	}
	free(b);
}

int sqk_diff_data_flush(struct diff *d)
{
	int err;

	if (!d->batch)
		return 0;
	err = sqk_pool_submit(d->pool, run_batch, d->batch);
	if (!err)
		d->batch = NULL;
	return err;
}

static int add_chunk(struct diff *d, struct diff_job *j, uint64_t off, uint32_t len)
{
	struct chunk *c = malloc(sizeof(*c));

	if (!c)
		return SQK_ERR_NOMEM;
	if (!d->batch && !(d->batch = calloc(1, sizeof(*d->batch)))) {
		free(c);
		return SQK_ERR_NOMEM;
	}
	*c = (struct chunk){j, off, len, NULL};
	if (d->batch->tail)
		d->batch->tail->next = c;
	else
		d->batch->head = c;
	d->batch->tail = c;
	d->batch->d = d;
	d->batch->bytes += len;
	if (++d->batch->n >= BATCH_CHUNKS || d->batch->bytes >= DIFF_CHUNK)
		return sqk_diff_data_flush(d);
	return 0;
}

int sqk_diff_contents(struct diff *d, struct sqk_dnode *a, struct sqk_dnode *b)
{
	struct diff_job *j = calloc(1, sizeof(*j));
	uint64_t off;
	int err, s;

	if (!j)
		return sqk_diff_fail(d, -1, SQK_ERR_NOMEM);
	for (s = 0; s < 2; s++) {
		err = d->t[s]->ops->open(d->t[s], s ? b : a, &j->f[s]);
		if (err) {
			err = sqk_diff_fail(d, s, err);
			sqk_diff_job_free(j);
			return err;
		}
	}
	j->size = a->size;
	j->first = UINT64_MAX;
	j->left = (unsigned)((j->size + DIFF_CHUNK - 1) / DIFF_CHUNK);
	pthread_mutex_lock(&d->lock);
	d->files++;
	pthread_mutex_unlock(&d->lock);
	err = sqk_diff_emit_job(d, j, b->size);
	for (off = 0; !err && off < j->size; off += DIFF_CHUNK) {
		uint64_t left = j->size - off;

		err = add_chunk(d, j, off, left < DIFF_CHUNK ? (uint32_t)left : DIFF_CHUNK);
		if (err)
			err = sqk_diff_fail(d, -1, err);
	}
	return err;
}

int sqk_diff_job_done(struct diff *d, struct diff_job *j, int wait)
{
	int done, err;

	pthread_mutex_lock(&d->lock);
	done = j->left == 0;
	pthread_mutex_unlock(&d->lock);
	if (done || !wait)
		return done;
	err = sqk_diff_data_flush(d);
	if (err)
		return err;
	pthread_mutex_lock(&d->lock);
	while (j->left)
		pthread_cond_wait(&d->done, &d->lock);
	pthread_mutex_unlock(&d->lock);
	return 1;
}

int sqk_diff_job_result(struct diff_job *j, uint64_t *offset, int *side)
{
	if (j->err) {
		*side = j->side;
		errno = j->errnum;
		return j->err;
	}
	*offset = j->first;
	return j->first != UINT64_MAX;
}

void sqk_diff_job_free(struct diff_job *j)
{
	int s;

	if (!j)
		return;
	for (s = 0; s < 2; s++)
		if (j->f[s])
			j->f[s]->tree->ops->close(j->f[s]);
	free(j);
}

int sqk_diff_data_start(struct diff *d)
{
	unsigned threads = d->threads = d->o->threads ? d->o->threads : 1;

	if (d->t[0]->img && d->t[1]->img) {
		const struct sqk_super *sa = sqk_image_super(d->t[0]->img);
		const struct sqk_super *sb = sqk_image_super(d->t[1]->img);
		const struct sqk_comp_config *ca = sqk_image_comp(d->t[0]->img);
		const struct sqk_comp_config *cb = sqk_image_comp(d->t[1]->img);

		/* The same stored bytes must decompress alike: same codec, same window. */
		d->raw = sa->block_size == sb->block_size && ca->id == cb->id &&
			 ca->window == cb->window;
		d->block_size = sa->block_size;
	}
	if (pthread_mutex_init(&d->lock, NULL) != 0)
		return SQK_ERR_NOMEM;
	if (pthread_cond_init(&d->done, NULL) != 0) {
		pthread_mutex_destroy(&d->lock);
		return SQK_ERR_NOMEM;
	}
	d->sync = 1;
	d->wbuf = calloc(threads, sizeof(*d->wbuf));
	d->pool = d->wbuf ? sqk_pool_create(threads, 0) : NULL;
	return d->pool ? 0 : SQK_ERR_NOMEM;
}

void sqk_diff_data_stop(struct diff *d, int cancel)
{
	unsigned i;

	if (!d->sync)
		return;
	pthread_mutex_lock(&d->lock);
	d->cancel = cancel;
	pthread_mutex_unlock(&d->lock);
	if (d->pool && sqk_diff_data_flush(d) != 0) {
		/* No room to queue them: the held-back chunks are dropped, their jobs with them. */
		struct chunk *c, *next;

		for (c = d->batch->head; c; c = next) {
			next = c->next;
			free(c);
		}
		free(d->batch);
		d->batch = NULL;
	}
	sqk_pool_destroy(d->pool);
	d->pool = NULL;
	for (i = 0; d->wbuf && i < d->threads; i++)
		free(d->wbuf[i]);
	free(d->wbuf);
	d->wbuf = NULL;
	sqk_hash_release(&d->frags);
	if (d->sync) {
		pthread_cond_destroy(&d->done);
		pthread_mutex_destroy(&d->lock);
		d->sync = 0;
	}
}
