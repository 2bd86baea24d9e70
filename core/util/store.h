/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_STORE_H
#define SQK_STORE_H

/*
 * The paged store of the spill module (spill.h): bytes addressed by
 * offset (or records by index), in pages held in memory while the budget
 * lasts and beyond it in a temporary, least recently used first (a clock),
 * so that a job that fits writes nothing. Bytes never written read as
 * zeros. What a reader keeps about a whole image (fsck's record of every
 * inode, the first path of every hard link, the directories a walk
 * entered) and what a build keeps about a whole tree (its nodes and their
 * names, every file's result, the fragment table) live in stores.
 *
 * The stores of a job draw their pages from its budget together (spill.h:
 * used); a store may also be held to a share of its own. A store is one
 * thread's; a budget may be shared by stores of several threads. Calls
 * return 0 or a negative code; a failure of the temporary leaves its errno
 * and directory in the budget (sqk_spill_failed).
 */
#include <stddef.h>
#include <stdint.h>

#include "spill.h"

struct sqk_store;

/*
 * A store of sp: pages of page bytes (rounded up to a power of two; 0:
 * 4 KiB), at most cap bytes of them in memory (0: no cap of its own).
 * Whatever the budget, a store may hold one page.
 */
int sqk_store_create(struct sqk_spill *sp, size_t page, uint64_t cap, struct sqk_store **out);
/* Frees the pages; the temporary goes with its descriptor. NULL is allowed. */
void sqk_store_destroy(struct sqk_store *s);
int sqk_store_read(struct sqk_store *s, uint64_t off, void *buf, size_t len);
int sqk_store_write(struct sqk_store *s, uint64_t off, const void *buf, size_t len);
/* len bytes at the end; *off gets where they start. */
int sqk_store_append(struct sqk_store *s, const void *buf, size_t len, uint64_t *off);
/* Everything back to zeros, the memory and the temporary given back. */
void sqk_store_clear(struct sqk_store *s);
/* One past the highest byte written. */
uint64_t sqk_store_size(const struct sqk_store *s);
/* Bytes of its pages in memory now. */
uint64_t sqk_store_memory(const struct sqk_store *s);
/* The budget the store draws on. */
struct sqk_spill *sqk_store_spill(const struct sqk_store *s);

/*
 * Bit idx (of a bitmap at offset 0): 1 or 0, or a negative code. set
 * sets it, returning what it was.
 */
int sqk_store_bit(struct sqk_store *s, uint64_t idx, int set);

/*
 * A table of fixed-size records from offset 0 (a record at idx * size), or
 * keys to 64-bit values (store_hash.c). Records to sort go to extsort.h.
 */
static inline int sqk_store_get(struct sqk_store *s, uint64_t idx, void *rec, size_t size)
{
	return sqk_store_read(s, idx * size, rec, size);
}

static inline int sqk_store_put(struct sqk_store *s, uint64_t idx, const void *rec, size_t size)
{
	return sqk_store_write(s, idx * size, rec, size);
}

/*
 * A map of 64-bit keys to nonzero 64-bit values, in a store: open
 * addressing, at most half full, growing by doubling.
 */
struct sqk_store_hash {
	struct sqk_store *s;
	struct sqk_spill *b;
	uint64_t cap, count; /* slots (a power of two, or 0), keys */
};

void sqk_store_hash_init(struct sqk_store_hash *h, struct sqk_spill *b);
void sqk_store_hash_release(struct sqk_store_hash *h);
/* key's value in *val: 1, 0 when it has none, or a negative code. */
int sqk_store_hash_get(struct sqk_store_hash *h, uint64_t key, uint64_t *val);
/* Give key the value val (nonzero), replacing any; 0 or a negative code. */
int sqk_store_hash_set(struct sqk_store_hash *h, uint64_t key, uint64_t val);

#endif
