/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_LAYOUT_H
#define SQK_LAYOUT_H

/*
 * Where each table of an image starts and ends: the one answer the reader,
 * fsck and `squashkit inspect` use. Read once, at open, from the
 * superblock, the options block's header, the lookup lists and the xattr
 * table's header; every rule of their order and place (core/format) is
 * checked on the way.
 *
 * A table's start is its first byte: for the inode and directory tables
 * the superblock's pointer; for the fragment, export and id tables their
 * first metadata block (the superblock points at the list of block
 * positions after the blocks), or the list itself when there are no
 * blocks; for the xattrs the key/value area's first block. Its metadata
 * blocks run to blocks_end: for the inode and directory tables the next
 * table's start (or bytes_used), for lookup tables their list (the xattr
 * table: its 16-byte header; its blocks are the key/value area and then
 * the id blocks). It ends after its last byte: the end of its list.
 */
#include <squashkit/image.h>
#include <stdint.h>

#include "block.h"
#include "format/fmt_check.h"
#include "format/format.h"

/* The tables, SQK_TABLE_INODE ... SQK_TABLE_XATTR: enum sqk_table_kind of the public API. */
enum { SQK_TABLE_COUNT = SQK_TABLE_XATTR + 1 };

struct sqk_table {
	int present;	     /* the superblock points at it */
	int ok;		     /* present, and where it lies breaks no rule */
	uint64_t ptr;	     /* the superblock's pointer */
	uint64_t start;	     /* first byte */
	uint64_t blocks_end; /* its metadata blocks end here */
	uint64_t end;	     /* one past its last byte */
	/* Lookup tables: the list, and the entries its blocks hold. */
	uint64_t list;
	uint32_t nblocks;
	uint64_t *pos; /* nblocks block positions */
	uint64_t entries;
	uint32_t entry_size;
};

struct sqk_layout {
	uint64_t bytes_used;
	uint64_t options_size;	   /* the options block with its header; 0 when none */
	uint64_t data_start;	   /* the data area: from here to the inode table */
	uint64_t kv_start, kv_end; /* the xattr key/value area (0, 0 without xattrs) */
	int placed;		   /* the inode and directory tables are where they may be */
	struct sqk_table t[SQK_TABLE_COUNT];
};

/*
 * Read the layout of the image in file, whose superblock sb passed
 * sqk_fmt_super_check(). Returns 0, the error of the first broken rule
 * (reported through r), or a read's error. With r NULL it stops at the
 * first; with a report that goes on, a lookup table that breaks a rule is
 * left not ok, the rest is read, and placed says whether the inode and
 * directory tables could be placed (nothing can be read otherwise).
 */
int sqk_layout_read(struct sqk_layout *l, struct sqk_file *file, const struct sqk_super *sb,
		    struct sqk_fmt_report *r);
void sqk_layout_free(struct sqk_layout *l);

/*
 * Where the metadata starting at start ends: the inode table's, the
 * directory table's or the key/value area's blocks_end, or otherwise the
 * first table that starts after start.
 */
uint64_t sqk_layout_meta_end(const struct sqk_layout *l, uint64_t start);

/*
 * Entry idx of the lookup table t, read through the metadata cache meta.
 * The block holding it must keep the table rules (its length, its end).
 */
int sqk_table_entry(struct sqk_blocks *b, struct sqk_cache *meta, const struct sqk_table *t,
		    uint64_t idx, void *out);

#endif
