/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DATA_H
#define SQK_DATA_H

/*
 * File data: full blocks through the data cache, tails through the
 * fragment cache. A sparse block (size word 0) has no entry: the caller
 * sees a NULL entry and writes a hole or zeros.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_image;
struct sqk_inode;
struct sqk_cache_entry;

/* A cursor over a file's blocks: their positions are a running sum. */
struct sqk_data_cursor {
	const struct sqk_inode *ino;
	uint32_t index;	   /* next block */
	uint64_t position; /* where block index starts */
};

void sqk_data_begin(struct sqk_data_cursor *c, const struct sqk_inode *ino);
/* Move the cursor to block index (forward or backward). */
int sqk_data_seek(struct sqk_data_cursor *c, uint32_t index);

/*
 * Get the cursor's block and advance. *e is NULL for a sparse block;
 * *len is the block's length in the file either way.
 */
int sqk_data_next(struct sqk_image *img, struct sqk_data_cursor *c, struct sqk_cache_entry **e,
		  uint32_t *len);

/* The fragment block holding ino's tail, and the tail's place in it. */
int sqk_data_tail(struct sqk_image *img, const struct sqk_inode *ino, struct sqk_cache_entry **e,
		  const uint8_t **tail, uint32_t *len);

/* A fragment table entry: its block's position and size word. */
int sqk_fragment_entry(struct sqk_image *img, uint32_t index, uint64_t *start, uint32_t *size);

/* Read up to len bytes of the file at off into buf (for cat and small reads). */
int sqk_data_pread(struct sqk_image *img, const struct sqk_inode *ino, uint64_t off, void *buf,
		   size_t len, size_t *got);

/*
 * From off, the first byte of data (*data) and the first byte of a hole
 * after it (*hole), as lseek's SEEK_DATA and SEEK_HOLE: the file's size
 * when there is none. Holes are whole blocks stored as no block.
 */
int sqk_data_extent(struct sqk_image *img, const struct sqk_inode *ino, uint64_t off,
		    uint64_t *data, uint64_t *hole);

#endif
