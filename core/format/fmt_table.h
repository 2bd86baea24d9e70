/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_TABLE_H
#define SQK_FMT_TABLE_H

/*
 * The lookup tables: fixed-size entries packed into metadata blocks, and a
 * list of the u64 positions of those blocks, which the superblock points
 * at (for the xattr ids, a 16-byte header comes between the blocks and the
 * list). The id, fragment, export and xattr id entries, the xattr table
 * header and the list are decoded and encoded here, with their rules:
 * where each table may lie (after the table before it, in the order the
 * format stores them), where its blocks may lie, how many bytes each block
 * holds, and what each entry may say.
 */
#include <stdint.h>

#include "fmt_check.h"
#include "format.h"

/* Entry sizes. */
#define SQK_FMT_ID_SIZE	       4
#define SQK_FMT_FRAG_SIZE      SQK_FRAG_ENTRY_SIZE
#define SQK_FMT_EXPORT_SIZE    8
#define SQK_FMT_XATTR_ID_SIZE  SQK_XATTR_ID_SIZE
#define SQK_FMT_XATTR_HDR_SIZE 16
#define SQK_FMT_LOOKUP_SIZE    8 /* one block position in a lookup list */

/* The smallest metadata block: a header and one stored byte. */
#define SQK_FMT_META_MIN 3

uint32_t sqk_fmt_id_decode(const uint8_t *raw);
void sqk_fmt_id_encode(uint8_t *raw, uint32_t id);

/* Export entry n - 1: the reference of inode n. */
uint64_t sqk_fmt_export_decode(const uint8_t *raw);
void sqk_fmt_export_encode(uint8_t *raw, uint64_t ref);

struct sqk_fmt_frag {
	uint64_t start; /* the fragment block's position */
	uint32_t size;	/* its size word: bit 24 = stored uncompressed */
	uint32_t unused;
};

void sqk_fmt_frag_decode(struct sqk_fmt_frag *e, const uint8_t *raw);
void sqk_fmt_frag_encode(const struct sqk_fmt_frag *e, uint8_t *raw);
/*
 * A fragment block is never a hole, is at most a block, and lies wholly in
 * the data area [area_start, area_end). Reports "size" or "start".
 */
int sqk_fmt_frag_check(const struct sqk_fmt_frag *e, uint32_t block_size, uint64_t area_start,
		       uint64_t area_end, struct sqk_fmt_report *r);

struct sqk_fmt_xattr_id {
	uint64_t ref;	/* where the pairs start, relative to the key/value area */
	uint32_t count; /* pairs */
	uint32_t size;	/* bytes the pairs take */
};

void sqk_fmt_xattr_id_decode(struct sqk_fmt_xattr_id *e, const uint8_t *raw);
void sqk_fmt_xattr_id_encode(const struct sqk_fmt_xattr_id *e, uint8_t *raw);
/*
 * A set holds at least one pair and starts inside the key/value area of
 * kv_size bytes (stored). Reports "count" or "ref".
 */
int sqk_fmt_xattr_id_check(const struct sqk_fmt_xattr_id *e, uint64_t kv_size,
			   struct sqk_fmt_report *r);

/* The header the superblock's xattr_table points at; the lookup list follows it. */
struct sqk_fmt_xattr_table {
	uint64_t kv_start; /* the key/value area's first block */
	uint32_t count;	   /* xattr ids */
	uint32_t unused;
};

void sqk_fmt_xattr_table_decode(struct sqk_fmt_xattr_table *h, const uint8_t *raw);
void sqk_fmt_xattr_table_encode(const struct sqk_fmt_xattr_table *h, uint8_t *raw);
/* The key/value area starts after lo (the table before it) and by the header at table. */
int sqk_fmt_xattr_table_check(const struct sqk_fmt_xattr_table *h, uint64_t lo, uint64_t table,
			      struct sqk_fmt_report *r);

/* Lookup lists. */
uint64_t sqk_fmt_lookup_decode(const uint8_t *raw);
void sqk_fmt_lookup_encode(uint8_t *raw, uint64_t pos);
/* The metadata blocks entries of entry_size bytes fill, and what block i holds. */
uint64_t sqk_fmt_table_blocks(uint64_t entries, uint32_t entry_size);
uint32_t sqk_fmt_table_block_bytes(uint64_t entries, uint32_t entry_size, uint64_t i);

/*
 * The tables after the directory table come in this order: fragments,
 * export, ids, xattrs; each (blocks, then its list) after the one before
 * and before bytes_used. A structure of len bytes at pos (reported as
 * field) must lie in [lo, hi].
 */
int sqk_fmt_span_check(const char *field, uint64_t pos, uint64_t len, uint64_t lo, uint64_t hi,
		       struct sqk_fmt_report *r);
/*
 * The n block positions of a list (reported as field): increasing, the
 * first at or after lo, each at least a minimal block after the one
 * before, the last ending by end (the list, or the xattr header).
 */
int sqk_fmt_lookup_check(const char *field, const uint64_t *pos, uint64_t n, uint64_t lo,
			 uint64_t end, struct sqk_fmt_report *r);
/*
 * Block i of a lookup table decompressed to len bytes and ended at next:
 * it holds exactly want bytes (8 KiB but the last) and ends where expect
 * says (the next block, or for the last the list or the xattr header).
 * Reports "length" or "next".
 */
int sqk_fmt_table_block_check(uint64_t len, uint32_t want, uint64_t next, uint64_t expect,
			      struct sqk_fmt_report *r);
/* The last table ends at bytes_used: nothing is stored after it. */
int sqk_fmt_tables_end_check(uint64_t end, uint64_t bytes_used, struct sqk_fmt_report *r);

#endif
