// SPDX-License-Identifier: BSD-2-Clause
/*
 * Where an inode and its data lie: the positions, block list and stored
 * counts `squashkit stat` shows.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api_int.h"
#include "format/fmt_block.h"
#include "format/fmt_inode.h"
#include "format/format.h"
#include "read/inode.h"

int(sqk_inode_layout)(struct sqk_image *img, const struct sqk_inode *ino,
		      struct sqk_inode_layout *given, size_t size)
{
	uint32_t bs = sqk_image_super(img)->block_size, i;
	struct sqk_inode_layout layout, *l = &layout;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_inode_layout, size_mounted),
			 "sqk_inode_layout"))
		return SQK_ERR_ARG;
	memset(l, 0, sizeof(*l));
	l->inode_block = SQK_REF_BLOCK(ino->ref);
	l->inode_offset = SQK_REF_OFFSET(ino->ref);
	l->xattr_index = ino->xattr;
	l->size_mounted = ino->size;
	l->fragment = SQK_INVALID_FRAG;
	if (S_ISREG(ino->mode)) {
		l->blocks_start = ino->blocks_start;
		l->fragment = ino->frag_index;
		l->fragment_offset = ino->frag_offset;
		l->tail = sqk_inode_tail(ino, bs);
		l->has_sparse_field = sqk_inode_extended(ino);
		l->sparse_field = ino->sparse;
		for (i = 0; i < ino->nblocks; i++)
			if (sqk_fmt_block_size(ino->blocks[i]) == 0)
				l->sparse_bytes += sqk_fmt_block_len(ino->size, i, bs);
	} else if (S_ISDIR(ino->mode)) {
		l->listing_block = ino->dir_block;
		l->listing_offset = ino->dir_offset;
		l->parent = ino->parent;
		l->index_count = ino->index_count;
		l->size_mounted = sqk_fmt_dir_size(ino->size);
	}
	sqk_api_out(given, size, &layout, sizeof(layout), 0, NULL);
	return sqk_api_ok();
}

int(sqk_inode_blocks)(const struct sqk_inode *ino, struct sqk_block *blocks, size_t max,
		      size_t size)
{
	uint64_t pos = ino->blocks_start;
	struct sqk_block one;
	uint32_t i;

	if (max && sqk_api_size(size, SQK_API_V1(struct sqk_block, compressed), "sqk_block"))
		return SQK_ERR_ARG;
	if (!S_ISREG(ino->mode))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "inode %u is not a regular file",
				    ino->number);
	for (i = 0; i < ino->nblocks; i++) {
		uint32_t w = ino->blocks[i], stored = sqk_fmt_block_size(w);

		if (i < max) {
			memset(&one, 0, sizeof(one));
			one.start = pos;
			one.size = stored;
			one.compressed = stored && !sqk_fmt_block_raw(w);
			sqk_api_out((char *)blocks + i * size, size, &one, sizeof(one), 0, NULL);
		}
		pos += stored;
	}
	sqk_api_ok();
	return (int)ino->nblocks;
}
