// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "error.h"
#include "format.h"
#include "inode_writer.h"
#include "le.h"

unsigned sqk_inode_type(const struct sqk_inode_info *in)
{
	int xattr = in->xattr != SQFS_INVALID_XATTR;
	unsigned t = in->basic_type;

	switch (t) {
	case SQFS_DIR:
		if (xattr || in->index_count || in->dir_size > 0xffff)
			return SQFS_LDIR;
		return SQFS_DIR;
	case SQFS_FILE:
		if (xattr || in->nlink > 1 || in->sparse || in->blocks_start > 0xffffffffull ||
		    in->file_size > 0xffffffffull)
			return SQFS_LFILE;
		return SQFS_FILE;
	default:
		return xattr ? t + 7 : t;
	}
}

static int write_blocks(struct sqk_meta_writer *mw, const uint32_t *blocks, uint32_t n)
{
	uint8_t buf[1024];

	while (n) {
		uint32_t k = n < sizeof(buf) / 4 ? n : sizeof(buf) / 4, i;
		int err;

		for (i = 0; i < k; i++)
			put_le32(buf + 4 * i, blocks[i]);
		err = sqk_mw_write(mw, buf, 4 * k);
		if (err)
			return err;
		blocks += k;
		n -= k;
	}
	return 0;
}

int sqk_inode_write(struct sqk_meta_writer *mw, const struct sqk_inode_info *in)
{
	uint8_t b[64];
	unsigned type = in->type ? in->type : sqk_inode_type(in);
	uint8_t *p = b + 16;
	int err;

	put_le16(b + 0, (uint16_t)type);
	put_le16(b + 2, in->mode & 07777);
	put_le16(b + 4, in->uid_idx);
	put_le16(b + 6, in->gid_idx);
	put_le32(b + 8, in->mtime);
	put_le32(b + 12, in->ino);

	switch (type) {
	case SQFS_DIR:
		put_le32(p, in->dir_start);
		put_le32(p + 4, in->nlink);
		put_le16(p + 8, (uint16_t)in->dir_size);
		put_le16(p + 10, in->dir_offset);
		put_le32(p + 12, in->parent);
		p += 16;
		break;
	case SQFS_LDIR:
		put_le32(p, in->nlink);
		put_le32(p + 4, in->dir_size);
		put_le32(p + 8, in->dir_start);
		put_le32(p + 12, in->parent);
		put_le16(p + 16, (uint16_t)in->index_count);
		put_le16(p + 18, in->dir_offset);
		put_le32(p + 20, in->xattr);
		p += 24;
		break;
	case SQFS_FILE:
		put_le32(p, (uint32_t)in->blocks_start);
		put_le32(p + 4, in->frag);
		put_le32(p + 8, in->frag_offset);
		put_le32(p + 12, (uint32_t)in->file_size);
		p += 16;
		break;
	case SQFS_LFILE:
		put_le64(p, in->blocks_start);
		put_le64(p + 8, in->file_size);
		put_le64(p + 16, in->sparse);
		put_le32(p + 24, in->nlink);
		put_le32(p + 28, in->frag);
		put_le32(p + 32, in->frag_offset);
		put_le32(p + 36, in->xattr);
		p += 40;
		break;
	case SQFS_SYMLINK:
	case SQFS_LSYMLINK:
		put_le32(p, in->nlink);
		put_le32(p + 4, in->target_len);
		p += 8;
		break;
	case SQFS_BLKDEV:
	case SQFS_CHRDEV:
		put_le32(p, in->nlink);
		put_le32(p + 4, in->rdev);
		p += 8;
		break;
	case SQFS_LBLKDEV:
	case SQFS_LCHRDEV:
		put_le32(p, in->nlink);
		put_le32(p + 4, in->rdev);
		put_le32(p + 8, in->xattr);
		p += 12;
		break;
	case SQFS_FIFO:
	case SQFS_SOCKET:
		put_le32(p, in->nlink);
		p += 4;
		break;
	case SQFS_LFIFO:
	case SQFS_LSOCKET:
		put_le32(p, in->nlink);
		put_le32(p + 4, in->xattr);
		p += 8;
		break;
	default:
		return SQK_ERR_ARG;
	}
	err = sqk_mw_write(mw, b, (size_t)(p - b));
	if (err)
		return err;
	switch (type) {
	case SQFS_LDIR:
		return in->index_len ? sqk_mw_write(mw, in->index, in->index_len) : 0;
	case SQFS_FILE:
	case SQFS_LFILE:
		return write_blocks(mw, in->blocks, in->nblocks);
	case SQFS_SYMLINK:
		return sqk_mw_write(mw, in->target, in->target_len);
	case SQFS_LSYMLINK:
		err = sqk_mw_write(mw, in->target, in->target_len);
		if (err)
			return err;
		put_le32(b, in->xattr);
		return sqk_mw_write(mw, b, 4);
	}
	return 0;
}
