/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_EXTSORT_H
#define SQK_EXTSORT_H

/*
 * An external sort: records (key, value) in any order, then all of them in
 * key order (sqk_run_keycmp; equal keys in the order added). What fits in
 * its share of memory is sorted there; beyond, each full buffer becomes a
 * sorted run (run.h) and the runs are merged, many at a time, into one
 * stream.
 */
#include <stddef.h>
#include <stdint.h>

#include "run.h"

struct sqk_sorter {
	struct sqk_spill *sp;
	uint64_t limit;	 /* bytes of records held in memory */
	uint8_t *recs;	 /* records as a run holds them */
	size_t len, cap; /* bytes used in recs */
	size_t *at;	 /* each record's offset, to sort */
	size_t n, at_cap;
	struct sqk_run **runs;
	size_t nruns, runs_cap;
	/* Reading back. */
	int reading;
	size_t next; /* the next record in memory */
	struct sqk_run_cursor *cur;
	struct sqk_rec_src *src;
	struct sqk_merge merge;
};

void sqk_sorter_init(struct sqk_sorter *s, struct sqk_spill *sp, uint64_t limit);
void sqk_sorter_release(struct sqk_sorter *s);
int sqk_sorter_add(struct sqk_sorter *s, const void *key, uint32_t klen, const void *val,
		   uint16_t vlen);
/* Every record added: read them back with sqk_sorter_next. */
int sqk_sorter_done(struct sqk_sorter *s);
/* 0 and *rec (valid until the next call), 1 at the end, or an error. */
int sqk_sorter_next(void *sorter, struct sqk_rec *rec);

#endif
