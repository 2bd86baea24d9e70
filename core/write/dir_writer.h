/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DIR_WRITER_H
#define SQK_DIR_WRITER_H

/*
 * Writes one directory listing into the directory table: entries grouped
 * under headers (at most 256 entries, one inode metadata block, inode
 * number deltas within s16), a new header whenever the listing crosses an
 * 8 KiB metadata block, and an index entry for each such header so the
 * kernel's lookup can skip to the right block.
 */
#include <stdint.h>

#include "meta_writer.h"

struct sqk_dir_entry {
	const char *name;
	uint32_t len;
	uint64_t inode_ref;
	uint32_t number;
	unsigned basic_type;
};

struct sqk_dir_result {
	uint32_t start;	      /* metadata block of the listing, relative to the table */
	uint16_t offset;      /* offset of the listing in that block */
	uint32_t size;	      /* listing bytes (the inode stores size + 3) */
	uint32_t index_count; /* index entries */
	uint8_t *index;	      /* encoded index entries (malloc'd) */
	uint32_t index_len;
};

/*
 * Write the listing of ents[0..n). With lim, every header, entry and index
 * entry first passes the reader's rules (fmt_dir.h) for an image of those
 * counts: SQK_ERR_OVERFLOW, reported through r, when one would not. Only
 * the encoder's own tests pass no lim.
 */
struct sqk_fmt_limits;
struct sqk_fmt_report;
int sqk_dir_write(struct sqk_meta_writer *mw, const struct sqk_dir_entry *ents, uint32_t n,
		  const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r,
		  struct sqk_dir_result *res);
/*
 * The same for entries from next (0 and *e, its name valid until the next
 * call; 1 at the end; or an error, returned): a listing of any length in
 * the memory of one header's entries.
 */
typedef int (*sqk_dir_next_fn)(void *ctx, struct sqk_dir_entry *e);
int sqk_dir_write_stream(struct sqk_meta_writer *mw, sqk_dir_next_fn next, void *ctx,
			 const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r,
			 struct sqk_dir_result *res);

#endif
