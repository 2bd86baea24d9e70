// SPDX-License-Identifier: BSD-2-Clause
/*
 * File data: every block decompressed once, by the worker pool through the
 * shared data cache, and checked against the length the inode implies.
 * Block positions and sizes are checked in the scanning thread before any
 * work is handed out. A file whose block list repeats one already checked
 * (a duplicate, which shares its blocks) is not decompressed again, and
 * fragment blocks are decompressed once each from the fragment table,
 * whatever number of files keep their tails there.
 *
 * Blocks are decoded as the kernel decodes them. One that does not
 * decompress, or that its decoder refuses but the readers' decoder reads
 * whole, is reported for every file it holds data of: the one it was
 * checked for, the files sharing it (kept aside until every block is
 * checked) and the files whose tails are in it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "format/fmt_block.h"
#include "format/fmt_inode.h"
#include "fsck_int.h"
#include "read/block.h"
#include "read/image.h"
#include "util/array.h"
#include "util/error.h"
#include "util/pool.h"
#include "util/store.h"
#include "util/u64set.h"

/* Blocks per task: enough to amortise a hand-off, few enough to spread a big file. */
#define CHUNK 16

struct chunk {
	struct sqk_fsck *f;
	uint64_t key; /* sort key of the first block's problems */
	uint32_t rec;
	uint32_t count;
	int fragment;	       /* a fragment block: index[0] is the fragment's */
	uint32_t index[CHUNK]; /* block numbers in the file */
	uint64_t pos[CHUNK];
	uint32_t word[CHUNK];
	uint32_t len[CHUNK]; /* expected length; fragments: 0 */
};

/* A block handed out for checking, and the length the file needs. */
struct fsck_dup {
	uint64_t pos;
	uint32_t word;
	uint32_t len;
	uint64_t next; /* another block at pos (with another size word): its index + 1 */
};

/* A file sharing a block that was checked for another. */
struct fsck_shared {
	uint64_t key, pos;
	uint32_t rec, index;
};

/* Block pos, of a kind the files sharing it are named for, into set (under lock). */
static int note_block(struct sqk_fsck *f, struct sqk_u64set *set, uint64_t pos)
{
	int err;

	pthread_mutex_lock(&f->lock);
	err = sqk_u64set_add(set, pos);
	pthread_mutex_unlock(&f->lock);
	return err < 0 && sqk_fsck_fatal(f, err);
}

static void run_chunk(void *arg, unsigned worker)
{
	struct chunk *c = arg;
	struct sqk_fsck *f = c->f;
	struct sqk_cache *cache =
		sqk_image_cache(f->img, c->fragment ? SQK_CACHE_FRAGMENT : SQK_CACHE_DATA);
	struct sqk_blocks *b = sqk_image_blocks(f->img);
	uint32_t i;

	for (i = 0; i < c->count && !fsck_stopped(f); i++) {
		struct sqk_cache_entry *e;
		uint32_t got;
		int err, refused;

		/* The length is checked here, to say what it is. */
		err = sqk_block_data(b, cache, c->pos[i], c->word[i], 0, &e);
		if (sqk_fsck_fatal(f, err))
			break;
		if (err) {
			if (c->fragment)
				f->frags[c->index[0]].bad = 1; /* each task owns its own slot */
			else if (note_block(f, &f->bad, c->pos[i]))
				break;
			if (c->fragment)
				sqk_fsck_err_key(
					f, c->key + i, FSCK_NONE, T_FRAG, C_FRAGMENT,
					"fragment block %u at %llu does not decompress: %s",
					f->frags[c->index[0]].index, (unsigned long long)c->pos[i],
					sqk_fsck_why(err));
			else
				sqk_fsck_err_key(f, c->key + i, c->rec, T_INODE, C_DATA,
						 "block %u at %llu does not decompress: %s",
						 c->index[i], (unsigned long long)c->pos[i],
						 sqk_fsck_why(err));
			continue;
		}
		got = (uint32_t)e->length;
		sqk_cache_put(e);
		refused = sqk_blocks_refused(b, c->pos[i]);
		if (c->fragment) {
			__atomic_add_fetch(&f->counts.fragments, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&f->counts.bytes, got, __ATOMIC_RELAXED);
			/* each task owns its own slot; the tails are checked later */
			f->frags[c->index[0]].len = got;
			f->frags[c->index[0]].refused = (uint8_t)refused;
			continue;
		}
		__atomic_add_fetch(&f->counts.blocks, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&f->counts.bytes, got, __ATOMIC_RELAXED);
		if (got != c->len[i]) {
			sqk_fsck_err_key(
				f, c->key + i, c->rec, T_INODE, C_DATA,
				"block %u at %llu decompresses to %u bytes; the file needs %u",
				c->index[i], (unsigned long long)c->pos[i], got, c->len[i]);
		} else if (refused) {
			sqk_fsck_err_key(f, c->key + i, c->rec, T_INODE, C_KERNEL,
					 "block %u at %llu: " FSCK_REFUSED, c->index[i],
					 (unsigned long long)c->pos[i]);
			if (note_block(f, &f->refused, c->pos[i]))
				break;
		}
	}
	free(c);
}

static void submit(struct sqk_fsck *f, struct chunk *c)
{
	c->key = sqk_fsck_reserve_keys(f, CHUNK);
	if (!f->pool || sqk_pool_submit(f->pool, run_chunk, c) != 0)
		run_chunk(c, 0);
}

void sqk_fsck_data_wait(struct sqk_fsck *f)
{
	if (f->pool)
		sqk_pool_wait(f->pool);
}

void sqk_fsck_fragment_block(struct sqk_fsck *f, uint32_t slot, uint64_t start, uint32_t size)
{
	struct chunk *c = calloc(1, sizeof(*c));

	if (!c) {
		sqk_fsck_fatal(f, SQK_ERR_NOMEM);
		return;
	}
	c->f = f;
	c->rec = FSCK_NONE;
	c->fragment = 1;
	c->index[0] = slot;
	c->count = 1;
	c->pos[0] = start;
	c->word[0] = size;
	submit(f, c);
}

/*
 * A file sharing a block checked for another: reported too if the block does
 * not decompress, or the kernel refuses it.
 */
static void keep_shared(struct sqk_fsck *f, uint32_t rec, uint32_t index, uint64_t pos)
{
	struct fsck_shared s;
	int err;

	s.key = sqk_fsck_reserve_keys(f, 1);
	s.pos = pos;
	s.rec = rec;
	s.index = index;
	err = f->shared ? 0 : sqk_store_create(f->budget, 0, 0, &f->shared);
	if (!err)
		err = sqk_store_put(f->shared, f->nshared, &s, sizeof(s));
	sqk_fsck_fail(f, err);
	if (!err)
		f->nshared++;
}

void sqk_fsck_data_shared(struct sqk_fsck *f)
{
	uint64_t i;

	for (i = 0; i < f->nshared && !fsck_stopped(f); i++) {
		struct fsck_shared s;
		int err = sqk_store_get(f->shared, i, &s, sizeof(s));

		sqk_fsck_fail(f, err);
		if (err)
			break;
		if (sqk_u64set_has(&f->bad, s.pos))
			sqk_fsck_err_key(f, s.key, s.rec, T_INODE, C_DATA,
					 "block %u at %llu, which it shares with another file, "
					 "does not decompress",
					 s.index, (unsigned long long)s.pos);
		else if (sqk_u64set_has(&f->refused, s.pos))
			sqk_fsck_err_key(f, s.key, s.rec, T_INODE, C_KERNEL,
					 "block %u at %llu: " FSCK_REFUSED, s.index,
					 (unsigned long long)s.pos);
	}
}

/*
 * Remember a block handed out for checking. Returns 1 when the same block
 * (position and size word) was handed out already, so it is not
 * decompressed again (duplicate files share their blocks), 0 for a new
 * one; a block met again with another length is reported. The blocks go to
 * a store within the image's budget: a record each, found by position.
 */
static int block_seen(struct sqk_fsck *f, uint32_t rec, uint32_t index, uint64_t pos, uint32_t word,
		      uint32_t len)
{
	struct fsck_dup d;
	uint64_t first = 0, k;
	int err = 0, found;

	if (!f->dups) {
		f->dup_at = calloc(1, sizeof(*f->dup_at));
		err = f->dup_at ? sqk_store_create(f->budget, 0, 0, &f->dups) : SQK_ERR_NOMEM;
		if (f->dup_at)
			sqk_store_hash_init(f->dup_at, f->budget);
	}
	if (!err)
		err = sqk_store_hash_get(f->dup_at, pos, &first);
	found = err > 0;
	if (found)
		err = 0;
	for (k = found ? first : 0; k; k = d.next) {
		err = sqk_store_get(f->dups, k - 1, &d, sizeof(d));
		if (err)
			break;
		if (d.word != word)
			continue;
		if (d.len != len)
			sqk_fsck_err(
				f, rec, T_INODE, C_DATA,
				"block %u at %llu is also a block of %u bytes of another file; "
				"this "
				"file needs %u",
				index, (unsigned long long)pos, d.len, len);
		else
			keep_shared(f, rec, index, pos);
		return 1;
	}
	if (!err) {
		d = (struct fsck_dup){pos, word, len, found ? first : 0};
		err = sqk_store_put(f->dups, f->ndups, &d, sizeof(d));
	}
	if (!err)
		err = sqk_store_hash_set(f->dup_at, pos, f->ndups + 1);
	if (err < 0) {
		sqk_fsck_fail(f, err);
		return 1; /* the run stops: nothing more is handed out */
	}
	f->ndups++;
	return 0;
}

/*
 * The compressed bytes of all distinct blocks fit in the data area in any
 * image, as no two blocks share bytes. More means blocks overlap; checking
 * them all could then take time quadratic in the image size, so the rest is
 * left unchecked.
 */
static int over_budget(struct sqk_fsck *f, uint32_t rec, uint32_t size)
{
	uint64_t area = f->sb.inode_table - f->data_start;

	f->data_bytes += size;
	if (f->data_bytes <= area)
		return 0;
	if (!f->data_overflow)
		sqk_fsck_err(
			f, rec, T_INODE, C_DATA,
			"the data and fragment blocks listed hold more bytes than the data area "
			"(%llu): blocks overlap; blocks from here on are not decompressed",
			(unsigned long long)area);
	f->data_overflow = 1;
	return 1;
}

/*
 * The sparse field of an extended file inode. mksquashfs stores the bytes
 * the file's sparse blocks stand for (a short last block counts its
 * length), or that minus one when the whole file is sparse, or 0 when the
 * source file had no holes (zero blocks it found itself still become sparse
 * blocks); squashfs-tools-ng and squashkit store the sum exactly. Readers
 * use it only as a hint that holes are worth making.
 */
static void check_sparse(struct sqk_fsck *f, const struct fsck_file *file, uint64_t sparse)
{
	uint64_t v = file->sparse;

	if (!file->extended || v == 0 || v == sparse)
		return;
	if (sparse == file->size && v == file->size - 1)
		return;
	if (v > file->size)
		sqk_fsck_err(f, file->rec, T_INODE, C_SPARSE,
			     "the sparse count %llu is larger than the file (%llu bytes)",
			     (unsigned long long)v, (unsigned long long)file->size);
	else
		sqk_fsck_err(f, file->rec, T_INODE, C_SPARSE,
			     "the sparse count is %llu, but the sparse blocks hold %llu bytes",
			     (unsigned long long)v, (unsigned long long)sparse);
}

static void check_tail(struct sqk_fsck *f, const struct fsck_file *file, uint32_t tail)
{
	uint32_t idx = file->frag_index, len;
	const struct fsck_frag *fr;

	if (!f->frag.ok) {
		/* An unusable table was reported already; with no table at all, say so. */
		if (f->sb.fragment_table == SQK_INVALID_TABLE && f->sb.fragment_count == 0)
			sqk_fsck_err(
				f, file->rec, T_INODE, C_FRAGMENT,
				"the tail is in fragment %u, but the image has no fragment table",
				idx);
		return;
	}
	if (idx >= f->sb.fragment_count) {
		sqk_fsck_err(f, file->rec, T_INODE, C_FRAGMENT,
			     "the tail is in fragment %u, beyond the %u fragments", idx,
			     f->sb.fragment_count);
		return;
	}
	fr = sqk_fsck_frag_find(f, idx);
	if (fr && fr->bad) {
		/* Reported for the fragment; every file that keeps its tail there is named too. */
		sqk_fsck_err(f, file->rec, T_INODE, C_FRAGMENT,
			     "the tail is in fragment %u, whose block does not decompress", idx);
		return;
	}
	if (fr && fr->size) {
		char what[64];

		snprintf(what, sizeof(what), "its tail, in fragment %u", idx);
		sqk_fsck_verity_file(f, file->rec, fr->start, fr->start + fr->size, what);
	}
	if (!fr || !fr->len)
		return; /* that fragment's entry is bad, and was reported */
	len = fr->len;
	if (file->frag_offset >= len || tail > len - file->frag_offset)
		sqk_fsck_err(f, file->rec, T_INODE, C_FRAGMENT,
			     "the tail of %u bytes at offset %u runs past the end of fragment %u "
			     "(%u bytes)",
			     tail, file->frag_offset, idx, len);
	else if (fr->refused)
		sqk_fsck_err(f, file->rec, T_INODE, C_KERNEL,
			     "the tail is in fragment %u: " FSCK_REFUSED, idx);
}

void sqk_fsck_file_data(struct sqk_fsck *f, const struct fsck_file *file)
{
	uint32_t bs = f->sb.block_size, i;
	uint32_t tail = sqk_fmt_file_tail(file->size, file->frag_index, bs);
	uint64_t pos = file->blocks_start, end = f->sb.inode_table, sparse = 0;
	int has_frag = file->frag_index != SQK_INVALID_FRAG, ok = 1;
	struct chunk *c = NULL;

	/* A fragment with no tail was reported with the inode and is not looked up. */
	/* First the list as a whole: positions, sizes and the sparse count. */
	for (i = 0; i < file->nblocks; i++) {
		uint32_t word = file->blocks[i], size = sqk_fmt_block_size(word);
		uint32_t len = sqk_fmt_block_len(file->size, i, bs);
		/* The reader's rule; the two messages say which part of it failed. */
		enum sqk_fmt_block_rule rule = sqk_fmt_block_check(word, bs, len);

		if (rule == SQK_FMT_BLOCK_BITS) {
			sqk_fsck_err(f, file->rec, T_INODE, C_DATA,
				     "block %u has the bad size word 0x%08x", i, word);
			ok = 0;
			break;
		}
		if (size == 0) {
			sparse += len;
			continue;
		}
		if (rule != SQK_FMT_BLOCK_SOUND) {
			sqk_fsck_err(f, file->rec, T_INODE, C_DATA,
				     "block %u is %u bytes %s; the file needs %u", i, size,
				     sqk_fmt_block_raw(word) ? "stored uncompressed" : "compressed",
				     len);
			ok = 0;
		}
		if (!sqk_fmt_block_in_area(pos, size, f->data_start, end)) {
			sqk_fsck_err(
				f, file->rec, T_INODE, C_DATA,
				"block %u at %llu (%u bytes) is outside the data area %llu..%llu",
				i, (unsigned long long)pos, size, (unsigned long long)f->data_start,
				(unsigned long long)end);
			ok = 0;
			break; /* every later position is off too */
		}
		pos += size;
	}
	check_sparse(f, file, sparse);
	if (ok && pos > file->blocks_start)
		sqk_fsck_verity_file(f, file->rec, file->blocks_start, pos, "its data");
	if (has_frag)
		check_tail(f, file, tail);
	if (!ok || file->nblocks == 0)
		return;

	/* Then the blocks themselves, a chunk at a time. */
	pos = file->blocks_start;
	for (i = 0; i < file->nblocks && !fsck_stopped(f); i++) {
		uint32_t word = file->blocks[i], size = sqk_fmt_block_size(word), len;

		if (size == 0)
			continue;
		pos += size;
		len = sqk_fmt_block_len(file->size, i, bs);
		if (block_seen(f, file->rec, i, pos - size, word, len) ||
		    over_budget(f, file->rec, size))
			continue;
		if (!c) {
			c = malloc(sizeof(*c));
			if (!c) {
				sqk_fsck_fatal(f, SQK_ERR_NOMEM);
				return;
			}
			c->f = f;
			c->rec = file->rec;
			c->count = 0;
			c->fragment = 0;
		}
		c->index[c->count] = i;
		c->pos[c->count] = pos - size;
		c->word[c->count] = word;
		c->len[c->count++] = len;
		if (c->count == CHUNK) {
			submit(f, c);
			c = NULL;
		}
	}
	if (c)
		submit(f, c);
}

void sqk_fsck_data_free(struct sqk_fsck *f)
{
	sqk_store_destroy(f->dups);
	f->dups = NULL;
	if (f->dup_at)
		sqk_store_hash_release(f->dup_at);
	free(f->dup_at);
	f->dup_at = NULL;
	sqk_store_destroy(f->shared);
	f->shared = NULL;
	sqk_u64set_free(&f->bad);
	sqk_u64set_free(&f->refused);
}
