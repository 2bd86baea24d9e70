/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_META_H
#define SQK_META_H

/*
 * Metadata: 8 KiB blocks, each behind a header (fmt_meta.h), read through the
 * metadata cache. A cursor reads a byte stream that starts at (block,
 * offset) and runs on across block boundaries, never past its table's end.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_image;
struct sqk_cache_entry;

struct sqk_meta_cursor {
	struct sqk_image *img;
	uint64_t block;	 /* absolute position of the current block */
	uint32_t offset; /* into its decompressed bytes */
	uint64_t start;	 /* the table's first block */
	uint64_t limit;	 /* the table's end: no block starts here or later */
	struct sqk_cache_entry *e;
};

/* Position a cursor at table_start + rel_block, offset. */
int sqk_meta_seek(struct sqk_meta_cursor *m, struct sqk_image *img, uint64_t table_start,
		  uint64_t rel_block, uint32_t offset);
/* Read len bytes; SQK_ERR_CORRUPT when the table ends first. */
int sqk_meta_read(struct sqk_meta_cursor *m, void *buf, size_t len);
void sqk_meta_release(struct sqk_meta_cursor *m);

/* The cursor's place as a reference relative to its table. */
static inline uint64_t sqk_meta_tell_block(const struct sqk_meta_cursor *m)
{
	return m->block - m->start;
}

/* Get the metadata block at pos (absolute) through the cache. */
int sqk_meta_block(struct sqk_image *img, uint64_t pos, struct sqk_cache_entry **e);

/* Entry idx of a lookup table (SQK_TABLE_FRAG, _EXPORT, _ID or _XATTR). */
int sqk_meta_table_entry(struct sqk_image *img, int table, uint64_t idx, void *out);

/* The metadata blocks from start up to end: how many, their bytes decompressed and stored. */
struct sqk_meta_count {
	uint64_t blocks, uncompressed, stored;
};
int sqk_meta_count(struct sqk_image *img, uint64_t start, uint64_t end, struct sqk_meta_count *c);

#endif
