/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_PARRAY_H
#define SQK_PARRAY_H

/*
 * A paged array: records of a fixed size by index (or bytes by offset,
 * with records of one byte), in pages of which at most a share of the
 * budget stays in memory; the others wait in a temporary file. Access
 * copies in and out, so no pointer into a page outlives a call: a page
 * may go to disk at any later call. Pages leave memory least recently
 * used first (a clock), written back only when changed.
 *
 * A failure of the temporary sticks: every later call returns it.
 */
#include <stddef.h>
#include <stdint.h>

#include "spill.h"

struct pa_page;

struct sqk_parray {
	struct sqk_spill *sp;
	struct sqk_tmp *tmp; /* made at the first page out */
	size_t rec, per_page, page_bytes;
	struct pa_page *pages;
	size_t npages, pages_cap;
	size_t *resident; /* page numbers in memory, swept by the clock's hand */
	size_t nres, res_cap, hand, max_res;
	uint64_t count; /* records (or bytes) so far: one past the highest written */
	int err;
};

/*
 * Records of rec bytes, pages of about page_bytes, at most mem bytes of
 * pages in memory (never fewer than one page).
 */
int sqk_parray_init(struct sqk_parray *pa, struct sqk_spill *sp, size_t rec, size_t page_bytes,
		    uint64_t mem);
void sqk_parray_release(struct sqk_parray *pa);
/* Record idx into out; one never written reads as zeros. */
int sqk_parray_get(struct sqk_parray *pa, uint64_t idx, void *out);
/* Record idx from in (anywhere: the array grows to hold it). */
int sqk_parray_put(struct sqk_parray *pa, uint64_t idx, const void *in);
/* Bytes (records of one byte): len at off into buf, and len more at the end (*off). */
int sqk_parray_read(struct sqk_parray *pa, uint64_t off, void *buf, size_t len);
int sqk_parray_append(struct sqk_parray *pa, const void *buf, size_t len, uint64_t *off);
/* Bytes the pages in memory hold now. */
uint64_t sqk_parray_memory(const struct sqk_parray *pa);

#endif
