// SPDX-License-Identifier: BSD-2-Clause
/*
 * The inode writer: the values of one inode into the codec's struct, the
 * codec's bytes into the metadata stream (fmt_inode.h knows the layout).
 */
#include <string.h>

#include "format/fmt_block.h"
#include "format/fmt_dir.h"
#include "format/fmt_inode.h"
#include "format/format.h"
#include "inode_writer.h"
#include "util/error.h"

static void to_fmt(const struct sqk_inode_info *in, unsigned type, struct sqk_fmt_inode *fi)
{
	memset(fi, 0, sizeof(*fi));
	fi->type = (uint16_t)type;
	fi->mode = in->mode;
	fi->uid_idx = in->uid_idx;
	fi->gid_idx = in->gid_idx;
	fi->mtime = in->mtime;
	fi->number = in->number;
	fi->nlink = in->nlink;
	fi->xattr = in->xattr;
	fi->blocks_start = in->blocks_start;
	fi->file_size = in->file_size;
	fi->sparse = in->sparse;
	fi->frag_index = in->frag_index;
	fi->frag_offset = in->frag_offset;
	fi->dir_block = in->dir_block;
	fi->dir_offset = in->dir_offset;
	fi->dir_size = in->dir_size;
	fi->parent = in->parent;
	fi->index_count = in->index_count;
	fi->target_len = in->target_len;
	fi->rdev = in->rdev;
}

unsigned sqk_inode_type(const struct sqk_inode_info *in)
{
	struct sqk_fmt_inode fi;

	to_fmt(in, in->basic_type, &fi);
	return sqk_fmt_inode_pick_type(&fi);
}

static int write_blocks(struct sqk_meta_writer *mw, const uint32_t *blocks, uint32_t n)
{
	uint8_t buf[1024];

	while (n) {
		uint32_t k = n < sizeof(buf) / 4 ? n : sizeof(buf) / 4;
		int err;

		sqk_fmt_blocks_encode(blocks, k, buf);
		err = sqk_mw_write(mw, buf, 4 * k);
		if (err)
			return err;
		blocks += k;
		n -= k;
	}
	return 0;
}

/*
 * The reader's rules on the inode about to be written: its header, body
 * and links, a symlink's target, and a file's list of blocks, each size
 * word and how many there are.
 */
static int check(const struct sqk_fmt_inode *fi, const struct sqk_inode_info *in,
		 const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r)
{
	uint32_t i;

	if (sqk_fmt_inode_check_header(fi, lim, r) || sqk_fmt_inode_check_body(fi, lim, r) ||
	    sqk_fmt_inode_check_links(fi, lim, fi->number == lim->inode_count, r))
		return SQK_ERR_OVERFLOW;
	switch (sqk_basic_type(fi->type)) {
	case SQK_SYMLINK:
		if (sqk_fmt_symlink_check(in->target, in->target_len, r))
			return SQK_ERR_OVERFLOW;
		break;
	case SQK_FILE:
		if (in->nblocks !=
		    sqk_fmt_file_blocks(fi->file_size, fi->frag_index, lim->block_size)) {
			sqk_fmt_fail(r, "file_size", fi->file_size,
				     "does not match the number of blocks listed");
			return SQK_ERR_OVERFLOW;
		}
		for (i = 0; i < in->nblocks; i++)
			if (sqk_fmt_block_check(
				    in->blocks[i], lim->block_size,
				    sqk_fmt_block_len(fi->file_size, i, lim->block_size))) {
				sqk_fmt_fail(r, "blocks", in->blocks[i], "is a bad size word");
				return SQK_ERR_OVERFLOW;
			}
		break;
	}
	return 0;
}

/* A directory inode's fixed part, once its listing's block has a start (meta_writer.h). */
static void fix_dir(const void *data, uint64_t start, uint8_t *out)
{
	struct sqk_fmt_inode fi = *(const struct sqk_fmt_inode *)data;

	fi.dir_block = (uint32_t)start;
	sqk_fmt_inode_encode(&fi, out);
}

/* An index entry, once the block of the header it names has a start. */
static void fix_index(const void *data, uint64_t start, uint8_t *out)
{
	struct sqk_fmt_dir_index x = *(const struct sqk_fmt_dir_index *)data;

	x.start = (uint32_t)start;
	sqk_fmt_dir_index_encode(&x, out);
}

/* The index of an extended directory: entries, each naming a block of the listing. */
static int write_index(struct sqk_meta_writer *mw, const uint8_t *index, uint32_t len)
{
	uint32_t at = 0;
	int err = 0;

	while (!err && at + SQK_FMT_DIR_INDEX_SIZE <= len) {
		struct sqk_fmt_dir_index x;

		sqk_fmt_dir_index_decode(index + at, &x);
		err = sqk_mw_write_fixed(mw, x.start, fix_index, &x, sizeof(x),
					 SQK_FMT_DIR_INDEX_SIZE);
		at += SQK_FMT_DIR_INDEX_SIZE;
		if (!err)
			err = sqk_mw_write(mw, index + at, (size_t)x.name_size);
		at += (uint32_t)x.name_size;
	}
	return err;
}

int sqk_inode_write(struct sqk_meta_writer *mw, const struct sqk_inode_info *in,
		    const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r)
{
	unsigned type = in->type ? in->type : sqk_inode_type(in);
	uint8_t b[SQK_FMT_INODE_FIXED_MAX];
	struct sqk_fmt_inode fi;
	size_t len;
	int err;

	if (!sqk_fmt_inode_fixed_size(type))
		return SQK_ERR_ARG;
	to_fmt(in, type, &fi);
	if (lim) {
		err = check(&fi, in, lim, r);
		if (err)
			return err;
	}
	len = sqk_fmt_inode_encode(&fi, b);
	/* A directory's says where its listing's block starts: known once that is placed. */
	if (sqk_basic_type(type) == SQK_DIR)
		err = sqk_mw_write_fixed(mw, fi.dir_block, fix_dir, &fi, sizeof(fi), len);
	else
		err = sqk_mw_write(mw, b, len);
	if (err)
		return err;
	switch (sqk_basic_type(type)) {
	case SQK_DIR:
		if (type == SQK_LDIR && in->index_len)
			err = write_index(mw, in->index, in->index_len);
		break;
	case SQK_FILE:
		err = write_blocks(mw, in->blocks, in->nblocks);
		break;
	case SQK_SYMLINK:
		err = sqk_mw_write(mw, in->target, in->target_len);
		break;
	}
	len = sqk_fmt_inode_encode_tail(&fi, b);
	if (!err && len)
		err = sqk_mw_write(mw, b, len);
	return err;
}
