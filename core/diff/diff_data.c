// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * File contents, compared on the pool: each file is cut into chunks of
 * DIFF_CHUNK bytes, small files' chunks go to the workers in batches, and
 * a job counts the chunks of its file still out. A chunk that starts past
 * a difference already found is skipped, so a job ends knowing the first
 * byte that differs.
 *
 * Two images with one block size and codec ("raw"): blocks are compared
 * by their size words and stored bytes first, a run of blocks at a time,
 * and only those that differ there are decompressed (through the data
 * cache) and compared; equal stored bytes under equal words decompress to
 * equal bytes. A tail in a fragment block compares equal when the two
 * fragment blocks are stored alike and it sits at the same offset; each
 * pair of fragment blocks is compared once. A hole equals a block of zeros.
 * Otherwise ("plain") both sides are read and compared a chunk at a time.
 *
 * A worker holds at most one block of each image's cache at a time, A's
 * first, so that workers never wait on each other for an entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "cache.h"
#include "data.h"
#include "diff_int.h"
#include "error.h"
#include "format.h"
#include "image.h"
#include "pool.h"

/* Bytes a chunk covers: a multiple of every block size. */
#define DIFF_CHUNK (1u << 20)
/* Chunks of small files that go to a worker together, at most. */
#define BATCH_CHUNKS 64

struct diff_job {
	struct sqk_dfile *f[2];
	uint64_t size;
	/* Under the lock: */
	unsigned left;	/* chunks not finished */
	uint64_t first; /* the first byte found to differ; UINT64_MAX: none */
	int err, side, errnum;
};

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

/* One chunk's comparison, in a worker. */
struct cmp {
	struct diff *d;
	struct diff_job *j;
	uint8_t *a, *b; /* DIFF_CHUNK bytes each */
	uint64_t at;	/* the first byte that differs */
	int side;	/* the side that failed */
	uint64_t stored, read;
};

/* Index of the first byte that differs in n bytes; a NULL side is zeros. n when none. */
static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	static const uint8_t zero[4096];
	size_t i = 0;

	while (i < n) {
		size_t step = n - i < sizeof(zero) ? n - i : sizeof(zero);
		const uint8_t *pa = a ? a + i : zero, *pb = b ? b + i : zero;

		if (memcmp(pa, pb, step) != 0) {
			while (pa[0] == pb[0]) {
				pa++;
				pb++;
				i++;
			}
			return i;
		}
		i += step;
	}
	return n;
}

/* Both sides' bytes [off, off + len) read and compared. */
static int plain_range(struct cmp *x, uint64_t off, size_t len)
{
	struct sqk_dfile *fa = x->j->f[0], *fb = x->j->f[1];
	size_t ga, gb, n, i;
	int err;

	err = fa->tree->ops->read(fa, off, x->a, len, &ga);
	if (err) {
		x->side = 0;
		return err;
	}
	err = fb->tree->ops->read(fb, off, x->b, len, &gb);
	if (err) {
		x->side = 1;
		return err;
	}
	x->read += len;
	n = ga < gb ? ga : gb;
	i = first_diff(x->a, x->b, n);
	if (i < n || ga != len || gb != len) {
		x->at = off + i;
		return 1;
	}
	return 0;
}

static uint32_t block_len(const struct sqk_inode *ino, uint32_t index, uint32_t bs)
{
	uint64_t left = ino->size - (uint64_t)index * bs;

	return left < bs ? (uint32_t)left : bs;
}

/* The rules sqk_data_next() applies to a block before reading it. */
static int check_block(struct sqk_image *img, const struct sqk_inode *ino, uint32_t index,
		       uint64_t pos)
{
	uint32_t bs = sqk_image_super(img)->block_size, word = ino->blocks[index];
	uint64_t start, end;

	sqk_image_data_area(img, &start, &end);
	if (sqk_block_word_bad(word, bs, block_len(ino, index, bs)) ||
	    !sqk_block_in_area(pos, word & SQK_BLOCK_SIZE_MASK, start, end))
		return SQK_ERR_CORRUPT;
	return 0;
}

/* Stored bytes [pos, pos + len) of side s into buf. */
static int read_stored(struct cmp *x, int s, uint64_t pos, void *buf, size_t len)
{
	int err = len ? sqk_image_pread(x->j->f[s]->img, pos, buf, len) : 0;

	if (err)
		x->side = s;
	return err;
}

/* Block index of both files, at pa in A and pb in B, checked; its stored bytes read when get. */
static int stored_pair(struct cmp *x, uint32_t index, uint64_t pa, uint64_t pb, int get)
{
	const struct sqk_inode *ia = &x->j->f[0]->inode, *ib = &x->j->f[1]->inode;
	int err;

	err = check_block(x->j->f[0]->img, ia, index, pa);
	if (err) {
		x->side = 0;
		return err;
	}
	err = check_block(x->j->f[1]->img, ib, index, pb);
	if (err) {
		x->side = 1;
		return err;
	}
	if (!get)
		return 0;
	err = read_stored(x, 0, pa, x->a, ia->blocks[index] & SQK_BLOCK_SIZE_MASK);
	if (!err)
		err = read_stored(x, 1, pb, x->b, ib->blocks[index] & SQK_BLOCK_SIZE_MASK);
	return err;
}

/* Block index of both files decompressed (at the cursors) and compared. */
static int unpacked_block(struct cmp *x, struct sqk_data_cursor *ca, struct sqk_data_cursor *cb,
			  uint32_t index)
{
	struct sqk_cache_entry *ea = NULL, *eb = NULL;
	uint32_t la, lb;
	size_t i;
	int err;

	err = sqk_data_next(x->j->f[0]->img, ca, &ea, &la);
	if (err) {
		x->side = 0;
		return err;
	}
	err = sqk_data_next(x->j->f[1]->img, cb, &eb, &lb);
	if (err) {
		sqk_cache_put(ea);
		x->side = 1;
		return err;
	}
	x->read += la;
	i = first_diff(ea ? ea->data : NULL, eb ? eb->data : NULL, la < lb ? la : lb);
	sqk_cache_put(ea);
	sqk_cache_put(eb);
	if (i < la || la != lb) {
		x->at = (uint64_t)index * x->d->block_size + i;
		return 1;
	}
	return 0;
}

/* Blocks [i, k), present in both files, with the cursors anywhere before i. */
static int stored_blocks(struct cmp *x, struct sqk_data_cursor *ca, struct sqk_data_cursor *cb,
			 uint32_t i, uint32_t k)
{
	const struct sqk_inode *ia = ca->ino, *ib = cb->ino;
	uint64_t total = 0, base_a, base_b;
	int err, same;
	uint32_t m;

	sqk_data_seek(ca, i);
	sqk_data_seek(cb, i);
	base_a = ca->position;
	base_b = cb->position;
	/* The same words for the whole run: one read a side, most often all equal. */
	same = memcmp(ia->blocks + i, ib->blocks + i, (size_t)(k - i) * 4) == 0;
	for (m = i; same && m < k; m++) {
		err = stored_pair(x, m, base_a + total, base_b + total, 0);
		if (err)
			return err;
		total += ia->blocks[m] & SQK_BLOCK_SIZE_MASK;
	}
	if (same) {
		err = read_stored(x, 0, base_a, x->a, total);
		if (!err)
			err = read_stored(x, 1, base_b, x->b, total);
		if (err)
			return err;
		if (memcmp(x->a, x->b, total) == 0) {
			x->stored += k - i;
			return 0;
		}
	}
	for (m = i; m < k; m++) {
		uint32_t size = ia->blocks[m] & SQK_BLOCK_SIZE_MASK;

		sqk_data_seek(ca, m);
		sqk_data_seek(cb, m);
		if (ia->blocks[m] == ib->blocks[m]) {
			/* Read for the run already, or now for this block alone. */
			const uint8_t *pa = x->a + (ca->position - base_a);
			const uint8_t *pb = x->b + (cb->position - base_b);

			if (!same) {
				err = stored_pair(x, m, ca->position, cb->position, 1);
				if (err)
					return err;
				pa = x->a;
				pb = x->b;
			}
			if (memcmp(pa, pb, size) == 0) {
				x->stored++;
				continue;
			}
		}
		err = unpacked_block(x, ca, cb, m);
		if (err)
			return err;
	}
	return 0;
}

/* Fragment blocks fa of A and fb of B: stored alike (1), or not (0). Each pair once. */
static int fragments_alike(struct cmp *x, uint32_t fa, uint32_t fb)
{
	struct diff *d = x->d;
	uint64_t key = (uint64_t)fa << 32 | fb, sa, sb, v;
	uint32_t wa, wb;
	int err;

	pthread_mutex_lock(&d->lock);
	v = sqk_hash_get(&d->frags, key);
	pthread_mutex_unlock(&d->lock);
	if (v)
		return v == 1;
	err = sqk_fragment_entry(x->j->f[0]->img, fa, &sa, &wa);
	if (err) {
		x->side = 0;
		return err;
	}
	err = sqk_fragment_entry(x->j->f[1]->img, fb, &sb, &wb);
	if (err) {
		x->side = 1;
		return err;
	}
	v = 2;
	if (wa == wb) {
		size_t size = wa & SQK_BLOCK_SIZE_MASK;

		err = read_stored(x, 0, sa, x->a, size);
		if (!err)
			err = read_stored(x, 1, sb, x->b, size);
		if (err)
			return err;
		v = memcmp(x->a, x->b, size) == 0 ? 1 : 2;
	}
	pthread_mutex_lock(&d->lock);
	/* Only a shortcut: without the memory for it, the pair is compared again. */
	if (!sqk_hash_get(&d->frags, key))
		sqk_hash_add(&d->frags, key, v);
	pthread_mutex_unlock(&d->lock);
	return v == 1;
}

/* Both files' tails, each in a fragment block. */
static int tails(struct cmp *x)
{
	const struct sqk_inode *ia = &x->j->f[0]->inode, *ib = &x->j->f[1]->inode;
	struct sqk_cache_entry *ea = NULL, *eb = NULL;
	const uint8_t *ta, *tb;
	uint32_t la, lb;
	size_t i;
	int err;

	if (ia->frag_offset == ib->frag_offset) {
		err = fragments_alike(x, ia->frag_index, ib->frag_index);
		if (err < 0)
			return err;
		if (err) {
			x->stored++;
			return 0;
		}
	}
	err = sqk_data_tail(x->j->f[0]->img, ia, &ea, &ta, &la);
	if (err) {
		x->side = 0;
		return err;
	}
	err = sqk_data_tail(x->j->f[1]->img, ib, &eb, &tb, &lb);
	if (err) {
		sqk_cache_put(ea);
		x->side = 1;
		return err;
	}
	x->read += la;
	i = first_diff(ta, tb, la < lb ? la : lb);
	sqk_cache_put(ea);
	sqk_cache_put(eb);
	if (i < la || la != lb) {
		x->at = (uint64_t)ia->nblocks * x->d->block_size + i;
		return 1;
	}
	return 0;
}

/* A chunk of two images' files: block by block, stored bytes first. */
static int raw_chunk(struct cmp *x, uint64_t off, uint32_t len)
{
	const struct sqk_inode *ia = &x->j->f[0]->inode, *ib = &x->j->f[1]->inode;
	uint32_t bs = x->d->block_size, i = (uint32_t)(off / bs);
	uint32_t end = (uint32_t)((off + len + bs - 1) / bs);
	struct sqk_data_cursor ca, cb;
	int err = 0;

	sqk_data_begin(&ca, ia);
	sqk_data_begin(&cb, ib);
	while (!err && i < end) {
		if (i < ia->nblocks && i < ib->nblocks) {
			uint32_t k = end;

			if (ia->nblocks < k)
				k = ia->nblocks;
			if (ib->nblocks < k)
				k = ib->nblocks;
			err = stored_blocks(x, &ca, &cb, i, k);
			i = k;
			continue;
		}
		if (i == ia->nblocks && i == ib->nblocks && ia->frag_index != SQK_INVALID_FRAG &&
		    ib->frag_index != SQK_INVALID_FRAG)
			err = tails(x);
		else /* a block on one side, a tail in a fragment on the other */
			err = plain_range(x, (uint64_t)i * bs, block_len(ia, i, bs));
		i++;
	}
	return err;
}

static void run_batch(void *arg, unsigned worker)
{
	struct diff_batch *b = arg;
	struct diff *d = b->d;
	struct chunk *c, *next;

	if (!d->wbuf[worker])
		d->wbuf[worker] = malloc(2 * (size_t)DIFF_CHUNK);
	for (c = b->head; c; c = next) {
		struct diff_job *j = c->job;
		struct cmp x = {d, j, d->wbuf[worker], NULL, UINT64_MAX, -1, 0, 0};
		int skip, err = 0, errnum = 0;

		next = c->next;
		pthread_mutex_lock(&d->lock);
		skip = d->cancel || j->err || c->off >= j->first;
		pthread_mutex_unlock(&d->lock);
		if (!skip && !x.a) {
			err = SQK_ERR_NOMEM;
		} else if (!skip) {
			x.b = x.a + DIFF_CHUNK;
			err = d->raw ? raw_chunk(&x, c->off, c->len)
				     : plain_range(&x, c->off, c->len);
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
	int done;

	pthread_mutex_lock(&d->lock);
	done = j->left == 0;
	pthread_mutex_unlock(&d->lock);
	if (done || !wait)
		return done;
	if (sqk_diff_data_flush(d) != 0)
		return 0;
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
