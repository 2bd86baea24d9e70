/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_SUPER_H
#define SQK_FMT_SUPER_H

/*
 * The superblock codec: its 96 bytes decoded and encoded field by field,
 * and the rules it must keep, about itself and about where the inode and
 * directory tables and the root inode lie. The rules of the tables that
 * follow (their order, their lookup lists) are in fmt_table.h.
 *
 * Rules report through fmt_check.h under the superblock's field names
 * ("magic", "block_size", "inode_table", ...). A check returns 0, or the
 * error of the first broken rule: SQK_ERR_MAGIC, SQK_ERR_VERSION,
 * SQK_ERR_TRUNCATED (bytes_used past the end of the file),
 * SQK_ERR_UNSUPPORTED (an unknown compressor) or SQK_ERR_CORRUPT. A rule
 * that the rest depends on (magic, version, block size, bytes_used) ends
 * the check even when the report asks to go on.
 */
#include <stdint.h>

#include "fmt_check.h"
#include "format.h"

/* The flags by name, as inspect --json keys them; the list ends with a NULL name. */
struct sqk_fmt_flag {
	const char *name;
	uint16_t bit;
};
extern const struct sqk_fmt_flag sqk_fmt_super_flags[];

void sqk_fmt_super_decode(struct sqk_super *sb, const uint8_t raw[SQK_SUPER_SIZE]);
void sqk_fmt_super_encode(const struct sqk_super *sb, uint8_t raw[SQK_SUPER_SIZE]);

/* What the superblock says about itself and an image file of file_size bytes. */
int sqk_fmt_super_check(const struct sqk_super *sb, uint64_t file_size, struct sqk_fmt_report *r);

/*
 * The inode table starts in [data_start, bytes_used), the directory table
 * after it and before bytes_used, and the root inode reference points
 * into the inode table. data_start is the first byte after the superblock
 * and the compressor options block.
 */
int sqk_fmt_main_tables_check(const struct sqk_super *sb, uint64_t data_start,
			      struct sqk_fmt_report *r);

#endif
