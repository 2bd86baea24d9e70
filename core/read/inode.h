/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_INODE_H
#define SQK_INODE_H

/*
 * Inodes, all 14 types, decoded into one struct. Owners are resolved
 * through the id table; the block list of a file is read in full.
 */
#include <stdint.h>
#include <sys/types.h>

#include "format/fmt_type.h"

struct sqk_image;

struct sqk_inode {
	uint64_t ref;  /* where it was read from */
	unsigned type; /* on-disk type 1..14 */
	mode_t mode;   /* S_IFxxx | permission bits */
	uint32_t uid, gid;
	uint32_t mtime;
	uint32_t number;
	uint32_t nlink;
	uint32_t xattr; /* SQK_INVALID_XATTR when none */

	/* regular file */
	uint64_t size; /* file bytes; symlink target length; directory listing bytes */
	uint64_t blocks_start;
	uint64_t sparse;
	uint32_t frag_index; /* SQK_INVALID_FRAG when none */
	uint32_t frag_offset;
	uint32_t nblocks;
	uint32_t *blocks; /* size words */

	/* directory */
	uint32_t dir_block; /* relative to the directory table */
	uint32_t dir_offset;
	uint32_t parent;
	uint32_t index_count;
	uint64_t index_block; /* where its index starts (inode table, relative) */
	uint32_t index_offset;

	/* symlink */
	char *target;

	/* devices */
	uint32_t rdev; /* as stored: 20-bit-minor encoding */
};

int sqk_inode_read(struct sqk_image *img, uint64_t ref, struct sqk_inode *ino);
/*
 * The same without a file's block list (nblocks 0, blocks NULL) and a
 * symlink's target (NULL; size is its length): its attributes, for a
 * reader that keeps an inode's reference and reads it again on demand.
 */
int sqk_inode_read_attrs(struct sqk_image *img, uint64_t ref, struct sqk_inode *ino);
void sqk_inode_free(struct sqk_inode *ino);

static inline int sqk_inode_extended(const struct sqk_inode *ino)
{
	return sqk_fmt_type_extended(ino->type);
}

/* Size of the tail in a fragment (0 when the file has no fragment). */
uint32_t sqk_inode_tail(const struct sqk_inode *ino, uint32_t block_size);

#endif
