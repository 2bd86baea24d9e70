/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_INODE_WRITER_H
#define SQK_INODE_WRITER_H

/*
 * Encodes one inode of any of the 14 types into a metadata stream. The
 * caller fills a struct sqk_inode_info; sqk_inode_type() picks the basic
 * or the extended form, whichever the values need.
 */
#include <stdint.h>

#include "meta_writer.h"

struct sqk_inode_info {
	unsigned type; /* 1..14; 0 = let sqk_inode_write pick from basic_type */
	unsigned basic_type;
	uint16_t mode, uid_idx, gid_idx;
	uint32_t mtime, number, nlink;
	uint32_t xattr; /* SQK_INVALID_XATTR for none */
	/* directory */
	uint32_t dir_block;  /* listing's metadata block, relative to the table */
	uint16_t dir_offset; /* offset in that block */
	uint32_t dir_size;   /* listing bytes + 3 */
	uint32_t parent;
	uint32_t index_count;
	const uint8_t *index; /* encoded index entries */
	uint32_t index_len;
	/* regular file */
	uint64_t blocks_start, file_size, sparse;
	uint32_t frag_index, frag_offset;
	const uint32_t *blocks; /* size words */
	uint32_t nblocks;
	/* symlink */
	const char *target;
	uint32_t target_len;
	/* devices */
	uint32_t rdev; /* already encoded */
};

/* The inode type the values need: the basic form where it fits. */
unsigned sqk_inode_type(const struct sqk_inode_info *in);
/*
 * Write the inode (type chosen by sqk_inode_type when in->type is 0).
 * With lim, the inode first passes the reader's rules (fmt_inode.h) for an
 * image of those counts: SQK_ERR_OVERFLOW, reported through r, when it
 * would not. Only the encoder's own tests pass no lim.
 */
struct sqk_fmt_limits;
struct sqk_fmt_report;
int sqk_inode_write(struct sqk_meta_writer *mw, const struct sqk_inode_info *in,
		    const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r);

#endif
