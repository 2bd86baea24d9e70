// SPDX-License-Identifier: BSD-2-Clause
/*
 * One chunk of two files compared, in a worker (diff_data.c hands them
 * out). Between two images with one block size and codec, blocks compare
 * by their size words and stored bytes first, a run of blocks at a time;
 * only those that differ there are decompressed (through the data cache)
 * and compared: equal stored bytes under equal words decompress to equal
 * bytes. A tail in a fragment block compares equal when the two fragment
 * blocks are stored alike and it sits at the same offset; each pair of
 * fragment blocks is compared once. A hole equals a block of zeros.
 * Otherwise both sides are read and compared as bytes.
 *
 * A worker holds at most one block of each image's cache at a time, A's
 * first, so that workers never wait on each other for an entry. The
 * comparison stops at the first byte that differs.
 */
#include <pthread.h>
#include <string.h>

#include "cache/cache.h"
#include "diff_int.h"
#include "format/fmt_block.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "util/error.h"

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
int sqk_diff_chunk_plain(struct diff_cmp *x, uint64_t off, size_t len)
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

/* The rules sqk_data_next() applies to a block before reading it. */
static int check_block(struct sqk_image *img, const struct sqk_inode *ino, uint32_t index,
		       uint64_t pos)
{
	uint32_t bs = sqk_image_super(img)->block_size, word = ino->blocks[index];
	uint64_t start, end;

	sqk_image_data_area(img, &start, &end);
	if (sqk_fmt_block_check(word, bs, sqk_fmt_block_len(ino->size, index, bs)) ||
	    !sqk_fmt_block_in_area(pos, sqk_fmt_block_size(word), start, end))
		return SQK_ERR_CORRUPT;
	return 0;
}

/* Stored bytes [pos, pos + len) of side s into buf. */
static int read_stored(struct diff_cmp *x, int s, uint64_t pos, void *buf, size_t len)
{
	int err = len ? sqk_image_pread(x->j->f[s]->img, pos, buf, len) : 0;

	if (err)
		x->side = s;
	return err;
}

/* Block index of both files, at pa in A and pb in B, checked; its stored bytes read when get. */
static int stored_pair(struct diff_cmp *x, uint32_t index, uint64_t pa, uint64_t pb, int get)
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
	err = read_stored(x, 0, pa, x->a, sqk_fmt_block_size(ia->blocks[index]));
	if (!err)
		err = read_stored(x, 1, pb, x->b, sqk_fmt_block_size(ib->blocks[index]));
	return err;
}

/* Block index of both files decompressed (at the cursors) and compared. */
static int unpacked_block(struct diff_cmp *x, struct sqk_data_cursor *ca,
			  struct sqk_data_cursor *cb, uint32_t index)
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
static int stored_blocks(struct diff_cmp *x, struct sqk_data_cursor *ca, struct sqk_data_cursor *cb,
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
		total += sqk_fmt_block_size(ia->blocks[m]);
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
		uint32_t size = sqk_fmt_block_size(ia->blocks[m]);

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
static int fragments_alike(struct diff_cmp *x, uint32_t fa, uint32_t fb)
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
		size_t size = sqk_fmt_block_size(wa);

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
static int tails(struct diff_cmp *x)
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
int sqk_diff_chunk_stored(struct diff_cmp *x, uint64_t off, uint32_t len)
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
			err = sqk_diff_chunk_plain(x, (uint64_t)i * bs,
						   sqk_fmt_block_len(ia->size, i, bs));
		i++;
	}
	return err;
}
