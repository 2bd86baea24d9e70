// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "format.h"
#include "image.h"
#include "inode.h"
#include "le.h"
#include "meta.h"

static const mode_t type_bits[8] = {
	0, S_IFDIR, S_IFREG, S_IFLNK, S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK,
};

const char *sqk_type_name(unsigned t)
{
	static const char *names[8] = {"unknown", "directory", "file", "symlink",
				       "block device", "char device", "fifo", "socket"};

	return t < 8 ? names[t] : names[0];
}

uint32_t sqk_inode_tail(const struct sqk_inode *ino, uint32_t block_size)
{
	if (ino->frag_index == SQFS_INVALID_FRAG)
		return 0;
	return (uint32_t)(ino->size % block_size);
}

/*
 * The block list is read in chunks, so what is allocated never runs ahead
 * of what the image really holds: a hostile size cannot make us allocate
 * gigabytes before the metadata runs out.
 */
static int read_blocks(struct sqk_meta_cursor *m, struct sqk_inode *ino, uint64_t count)
{
	uint32_t have = 0, cap = 0;
	uint8_t raw[4096];

	if (count > UINT32_MAX)
		return SQK_ERR_CORRUPT;
	while (have < count) {
		uint32_t n = (uint32_t)(count - have), i;
		int err;

		if (n > sizeof(raw) / 4)
			n = sizeof(raw) / 4;
		if (have + n > cap) {
			uint32_t ncap = cap ? cap * 2 : 256;
			uint32_t *p;

			while (ncap < have + n)
				ncap *= 2;
			p = realloc(ino->blocks, (size_t)ncap * 4);
			if (!p)
				return SQK_ERR_NOMEM;
			ino->blocks = p;
			cap = ncap;
		}
		err = sqk_meta_read(m, raw, (size_t)n * 4);
		if (err)
			return err;
		for (i = 0; i < n; i++)
			ino->blocks[have + i] = get_le32(raw + 4 * i);
		have += n;
	}
	ino->nblocks = have;
	return 0;
}

static int decode_file(struct sqk_image *img, struct sqk_meta_cursor *m, struct sqk_inode *ino)
{
	const struct sqfs_super *sb = sqk_image_super(img);
	uint8_t raw[40];
	uint64_t count;
	int err;

	if (ino->type == SQFS_FILE) {
		err = sqk_meta_read(m, raw, 16);
		if (err)
			return err;
		ino->blocks_start = get_le32(raw);
		ino->frag_index = get_le32(raw + 4);
		ino->frag_offset = get_le32(raw + 8);
		ino->size = get_le32(raw + 12);
		ino->nlink = 1;
	} else {
		err = sqk_meta_read(m, raw, 40);
		if (err)
			return err;
		ino->blocks_start = get_le64(raw);
		ino->size = get_le64(raw + 8);
		ino->sparse = get_le64(raw + 16);
		ino->nlink = get_le32(raw + 24);
		ino->frag_index = get_le32(raw + 28);
		ino->frag_offset = get_le32(raw + 32);
		ino->xattr = get_le32(raw + 36);
	}
	count = ino->size / sb->block_size;
	if (ino->frag_index == SQFS_INVALID_FRAG) {
		if (ino->size % sb->block_size)
			count++;
	} else if (ino->frag_index >= sb->fragment_count || ino->frag_offset >= sb->block_size ||
		   ino->size % sb->block_size == 0) {
		/* A size that leaves no tail has no fragment: the kernel refuses the inode. */
		return SQK_ERR_CORRUPT;
	}
	return read_blocks(m, ino, count);
}

static int decode_dir(struct sqk_meta_cursor *m, struct sqk_inode *ino)
{
	uint8_t raw[24];
	int err;

	if (ino->type == SQFS_DIR) {
		err = sqk_meta_read(m, raw, 16);
		if (err)
			return err;
		ino->dir_block = get_le32(raw);
		ino->nlink = get_le32(raw + 4);
		ino->size = get_le16(raw + 8);
		ino->dir_offset = get_le16(raw + 10);
		ino->parent = get_le32(raw + 12);
	} else {
		err = sqk_meta_read(m, raw, 24);
		if (err)
			return err;
		ino->nlink = get_le32(raw);
		ino->size = get_le32(raw + 4);
		ino->dir_block = get_le32(raw + 8);
		ino->parent = get_le32(raw + 12);
		ino->index_count = get_le16(raw + 16);
		ino->dir_offset = get_le16(raw + 18);
		ino->xattr = get_le32(raw + 20);
		ino->index_block = sqk_meta_tell_block(m);
		ino->index_offset = m->offset;
	}
	/* The stored size counts 3 bytes for "." and ".." that are not there. */
	if (ino->size < 3 || ino->dir_offset >= SQFS_META_SIZE)
		return SQK_ERR_CORRUPT;
	ino->size -= 3;
	return 0;
}

static int decode_symlink(struct sqk_meta_cursor *m, struct sqk_inode *ino)
{
	uint8_t raw[8];
	uint32_t len;
	int err;

	err = sqk_meta_read(m, raw, 8);
	if (err)
		return err;
	ino->nlink = get_le32(raw);
	len = get_le32(raw + 4);
	/* PATH_MAX bounds what any writer stores and what we allocate. */
	if (len == 0 || len > 4096)
		return SQK_ERR_CORRUPT;
	ino->target = malloc(len + 1);
	if (!ino->target)
		return SQK_ERR_NOMEM;
	err = sqk_meta_read(m, ino->target, len);
	if (err)
		return err;
	ino->target[len] = '\0';
	if (memchr(ino->target, '\0', len))
		return SQK_ERR_CORRUPT;
	ino->size = len;
	if (ino->type == SQFS_LSYMLINK) {
		err = sqk_meta_read(m, raw, 4);
		if (err)
			return err;
		ino->xattr = get_le32(raw);
	}
	return 0;
}

/* Devices and IPC: a link count, a device number for devices, an xattr index when extended. */
static int decode_special(struct sqk_meta_cursor *m, struct sqk_inode *ino)
{
	unsigned basic = sqfs_basic_type(ino->type);
	int dev = basic == SQFS_BLKDEV || basic == SQFS_CHRDEV;
	size_t len = 4 + (dev ? 4 : 0) + (ino->type >= 8 ? 4 : 0);
	uint8_t raw[12];
	int err;

	err = sqk_meta_read(m, raw, len);
	if (err)
		return err;
	ino->nlink = get_le32(raw);
	if (dev)
		ino->rdev = get_le32(raw + 4);
	if (ino->type >= 8)
		ino->xattr = get_le32(raw + len - 4);
	return 0;
}

int sqk_inode_read(struct sqk_image *img, uint64_t ref, struct sqk_inode *ino)
{
	const struct sqfs_super *sb = sqk_image_super(img);
	struct sqk_meta_cursor m;
	uint8_t raw[16];
	unsigned basic;
	int err;

	memset(ino, 0, sizeof(*ino));
	ino->ref = ref;
	ino->xattr = SQFS_INVALID_XATTR;
	ino->frag_index = SQFS_INVALID_FRAG;
	err = sqk_meta_seek(&m, img, sb->inode_table, SQFS_REF_BLOCK(ref), SQFS_REF_OFFSET(ref));
	if (err)
		return err;
	err = sqk_meta_read(&m, raw, 16);
	if (err)
		goto out;
	ino->type = get_le16(raw);
	if (ino->type < SQFS_DIR || ino->type > SQFS_LSOCKET) {
		err = SQK_ERR_CORRUPT;
		goto out;
	}
	basic = sqfs_basic_type(ino->type);
	ino->mode = (mode_t)(get_le16(raw + 2) & 07777) | type_bits[basic];
	ino->mtime = get_le32(raw + 8);
	ino->number = get_le32(raw + 12);
	if (ino->number == 0 || ino->number > sb->inode_count) {
		err = SQK_ERR_CORRUPT;
		goto out;
	}
	err = sqk_image_id(img, get_le16(raw + 4), &ino->uid);
	if (!err)
		err = sqk_image_id(img, get_le16(raw + 6), &ino->gid);
	if (err)
		goto out;
	switch (basic) {
	case SQFS_FILE:
		err = decode_file(img, &m, ino);
		break;
	case SQFS_DIR:
		err = decode_dir(&m, ino);
		break;
	case SQFS_SYMLINK:
		err = decode_symlink(&m, ino);
		break;
	default:
		err = decode_special(&m, ino);
		break;
	}
out:
	sqk_meta_release(&m);
	if (err)
		sqk_inode_free(ino);
	return err;
}

void sqk_inode_free(struct sqk_inode *ino)
{
	free(ino->blocks);
	free(ino->target);
	ino->blocks = NULL;
	ino->target = NULL;
}
