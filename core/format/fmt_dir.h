/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_DIR_H
#define SQK_FMT_DIR_H

/*
 * Directory listings on disk and the index of an extended directory: the
 * one place that knows their fields and rules.
 *
 * A listing is a run of headers, each followed by its entries; each entry
 * is followed by its name. A header gives the metadata block of its
 * entries' inodes and a base inode number; an entry gives its inode's
 * offset in that block and its number as a signed 16-bit delta from the
 * base. Counts and name sizes are stored minus one.
 *
 * An index entry names a header by its offset in the listing, the
 * directory table block that header starts in, and the header's first
 * name, so a lookup can skip whole blocks.
 *
 * Rules that must hold before a name can be read (its size) are apart from
 * the others, so a stream reader knows whether it can go on.
 */
#include <stdint.h>

#include "fmt_check.h"
#include "fmt_inode.h"
#include "fmt_name.h"

#define SQK_FMT_DIR_HEADER_SIZE 12
#define SQK_FMT_DIR_ENTRY_SIZE	8  /* before the name */
#define SQK_FMT_DIR_INDEX_SIZE	12 /* before the name */
#define SQK_FMT_DIR_DELTA_MIN	(-32768)
#define SQK_FMT_DIR_DELTA_MAX	32767

struct sqk_fmt_dir_header {
	uint64_t count; /* entries under it, 1..256 */
	uint32_t start; /* metadata block of their inodes, relative to the inode table */
	uint32_t base;	/* the inode number their deltas count from */
};

struct sqk_fmt_dir_entry {
	uint16_t offset;    /* of the inode in the header's block */
	int16_t delta;	    /* inode number - base */
	uint16_t type;	    /* basic type 1..7 */
	uint32_t name_size; /* bytes of the name that follows, 1..256 */
};

struct sqk_fmt_dir_index {
	uint32_t offset;    /* where its header starts in the listing */
	uint32_t start;	    /* directory table block holding that header, relative */
	uint64_t name_size; /* bytes of the name that follows: the header's first name */
};

void sqk_fmt_dir_header_decode(const uint8_t *raw, struct sqk_fmt_dir_header *h);
void sqk_fmt_dir_header_encode(const struct sqk_fmt_dir_header *h, uint8_t *raw);
void sqk_fmt_dir_entry_decode(const uint8_t *raw, struct sqk_fmt_dir_entry *e);
void sqk_fmt_dir_entry_encode(const struct sqk_fmt_dir_entry *e, uint8_t *raw);
void sqk_fmt_dir_index_decode(const uint8_t *raw, struct sqk_fmt_dir_index *x);
void sqk_fmt_dir_index_encode(const struct sqk_fmt_dir_index *x, uint8_t *raw);

/* The inode an entry names: its number and its reference. */
static inline int64_t sqk_fmt_dir_entry_number(const struct sqk_fmt_dir_header *h,
					       const struct sqk_fmt_dir_entry *e)
{
	return (int64_t)h->base + e->delta;
}

static inline uint64_t sqk_fmt_dir_entry_ref(const struct sqk_fmt_dir_header *h,
					     const struct sqk_fmt_dir_entry *e)
{
	return ((uint64_t)h->start << 16) | e->offset;
}

/* Can an entry for inode number under a header with this base be written? */
static inline int sqk_fmt_dir_delta_fits(uint32_t base, uint32_t number)
{
	int64_t d = (int64_t)number - (int64_t)base;

	return d >= SQK_FMT_DIR_DELTA_MIN && d <= SQK_FMT_DIR_DELTA_MAX;
}

/*
 * Where the header an index entry names starts in its block x->start: the
 * listing's own offset in its first block plus the listing offset, as every
 * metadata block but the last holds exactly 8 KiB.
 */
uint32_t sqk_fmt_dir_index_block_offset(uint32_t dir_offset, const struct sqk_fmt_dir_index *x);

/*
 * The rules; each returns 0 or SQK_ERR_CORRUPT after reporting through r
 * (NULL: stop at the first, report nothing).
 */
/* count (1..256). */
int sqk_fmt_dir_header_check(const struct sqk_fmt_dir_header *h, struct sqk_fmt_report *r);
/* name_size (1..256): before the name is read. */
int sqk_fmt_dir_entry_check_size(const struct sqk_fmt_dir_entry *e, struct sqk_fmt_report *r);
/*
 * type (1..7), inode_number (1..inode_count; reported as an int64_t, as
 * base + delta can be below 0), offset (inside a metadata block).
 */
int sqk_fmt_dir_entry_check(const struct sqk_fmt_dir_entry *e, const struct sqk_fmt_dir_header *h,
			    const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r);
/* name_size (1..256): before the name is read. */
int sqk_fmt_dir_index_check_size(const struct sqk_fmt_dir_index *x, struct sqk_fmt_report *r);
/*
 * offset: inside the listing of listing bytes, and after the previous
 * entry's (prev NULL for the first).
 */
int sqk_fmt_dir_index_check(const struct sqk_fmt_dir_index *x, const struct sqk_fmt_dir_index *prev,
			    uint32_t listing, struct sqk_fmt_report *r);

#endif
