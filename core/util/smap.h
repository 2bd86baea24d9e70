/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SMAP_H
#define SQK_SMAP_H

/*
 * A map of 64-bit keys to values of a fixed size that never forgets: a
 * key may carry several values, and every value added is found again,
 * whatever the budget. Up to its share the values are in a hash table in
 * memory; past it they become sorted runs (run.h) with a Bloom filter
 * each, merged into one when they grow many. A find costs nothing on disk
 * for a key no run can hold, one read a run for the others. For the dedup
 * indexes (a content hash to where it is) and the hard links of the
 * sources (a device and inode to their node).
 */
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "run.h"

struct sqk_smap {
	struct sqk_spill *sp;
	size_t vsize;
	uint64_t limit;
	struct sqk_hash h; /* key -> index + 1 into recs */
	uint8_t *recs;	   /* key (8 bytes) then value, each */
	size_t n, cap;
	struct sqk_run **runs;
	size_t nruns, runs_cap;
	uint8_t *scratch; /* a value handed to a find's callback */
};

void sqk_smap_init(struct sqk_smap *m, struct sqk_spill *sp, size_t vsize, uint64_t limit);
void sqk_smap_release(struct sqk_smap *m);
int sqk_smap_add(struct sqk_smap *m, uint64_t key, const void *val);
/*
 * Every value of key to fn (val may be unaligned) until it returns
 * non-zero; 0 or an error (fn's own non-zero is not returned).
 */
typedef int (*sqk_smap_fn)(void *ctx, const void *val);
int sqk_smap_find(struct sqk_smap *m, uint64_t key, sqk_smap_fn fn, void *ctx);
/* Values held, in memory and in runs. */
uint64_t sqk_smap_count(const struct sqk_smap *m);

#endif
