/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_RUN_H
#define SQK_RUN_H

/*
 * Sorted runs: records (a key of bytes, a short value) written in key
 * order to a temporary, read back in order, found by key, and merged k
 * ways into one stream. Keys compare as names do in a directory: bytes,
 * then the shorter first (sqk_run_keycmp). A run keeps in memory the key
 * of a record every few KiB (to find a key with one read) and, if asked,
 * a Bloom filter of the records' hashes (to say "not here" with none).
 */
#include <stddef.h>
#include <stdint.h>

#include "spill.h"

struct run_mark;

struct sqk_run {
	struct sqk_spill *sp;
	struct sqk_tmp *tmp;
	uint64_t size, count;
	struct run_mark *marks;
	size_t nmarks, marks_cap;
	uint64_t *bloom;
	uint64_t bloom_bits;
	/* The writer's state until sqk_run_finish. */
	uint8_t *buf;
	size_t len, cap;
	uint64_t next_mark;
};

int sqk_run_keycmp(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen);

/* A run to write, with a Bloom filter for about bloom_count records (0: none). */
int sqk_run_create(struct sqk_spill *sp, uint64_t bloom_count, struct sqk_run **out);
/* The next record; keys never go down. hash feeds the Bloom filter. */
int sqk_run_add(struct sqk_run *r, const void *key, uint32_t klen, const void *val, uint16_t vlen,
		uint64_t hash);
/* Every record is added: flushed and counted. */
int sqk_run_finish(struct sqk_run *r);
void sqk_run_destroy(struct sqk_run *r);
/* May the run hold a record of this hash? */
int sqk_run_maybe(const struct sqk_run *r, uint64_t hash);

/* A source of records in key order: a run, or the caller's (memory). */
struct sqk_rec {
	const uint8_t *key, *val;
	uint32_t klen;
	uint16_t vlen;
};
struct sqk_rec_src {
	/* 0 and *rec, 1 at the end, or an error. */
	int (*next)(void *ctx, struct sqk_rec *rec);
	void *ctx;
};

/* Reading a run in order from its start. */
struct sqk_run_cursor {
	struct sqk_run *run;
	uint8_t *buf;
	size_t cap, pos, len;
	uint64_t off; /* of buf[len] in the file */
};
int sqk_run_cursor_open(struct sqk_run *r, struct sqk_run_cursor *c);
int sqk_run_cursor_next(void *cursor, struct sqk_rec *rec);
void sqk_run_cursor_close(struct sqk_run_cursor *c);

/*
 * Every record of key (hash: its Bloom hash, when the run has a filter),
 * in order, to fn until it returns non-zero (which is returned).
 */
typedef int (*sqk_run_found_fn)(void *ctx, const struct sqk_rec *rec);
int sqk_run_find(struct sqk_run *r, const void *key, uint32_t klen, uint64_t hash,
		 sqk_run_found_fn fn, void *ctx);
/* Every record from key on, in order, to fn until it returns non-zero (1: 0 returned). */
int sqk_run_scan(struct sqk_run *r, const void *key, uint32_t klen, sqk_run_found_fn fn,
		 void *ctx);

/*
 * A k-way merge of sources into one stream in key order; of equal keys,
 * the record of the earlier source comes first.
 */
struct sqk_merge {
	struct sqk_rec_src *src;
	struct sqk_rec *cur;
	size_t *heap;
	size_t n, nheap;
	int started;
};
int sqk_merge_init(struct sqk_merge *m, struct sqk_rec_src *src, size_t n);
int sqk_merge_next(void *merge, struct sqk_rec *rec);
void sqk_merge_release(struct sqk_merge *m);

/*
 * Runs r[0..n) merged into one new run (with a Bloom filter when hashes
 * can be had: hash_of gives a record's, or NULL). Counted as a merge.
 */
typedef uint64_t (*sqk_run_hash_fn)(const struct sqk_rec *rec);
int sqk_run_merge(struct sqk_run *const *r, size_t n, sqk_run_hash_fn hash_of,
		  struct sqk_run **out);

#endif
