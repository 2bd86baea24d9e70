// SPDX-License-Identifier: BSD-2-Clause
/*
 * The strict reader of inodes: every field goes through the codec
 * (fmt_inode.h), and the first broken rule ends the read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/fmt_inode.h"
#include "format/format.h"
#include "image.h"
#include "inode.h"
#include "meta.h"
#include "util/error.h"

uint32_t sqk_inode_tail(const struct sqk_inode *ino, uint32_t block_size)
{
	return sqk_fmt_file_tail(ino->size, ino->frag_index, block_size);
}

static int meta_read(void *ctx, void *buf, size_t len)
{
	return sqk_meta_read(ctx, buf, len);
}

static int read_blocks(struct sqk_meta_cursor *m, struct sqk_inode *ino, uint64_t count)
{
	int err;

	/* The body check has bounded count by SQK_FMT_BLOCKS_MAX. */
	err = sqk_fmt_blocks_read((uint32_t)count, meta_read, m, &ino->blocks);
	if (!err)
		ino->nblocks = (uint32_t)count;
	return err;
}

static int read_target(struct sqk_meta_cursor *m, struct sqk_inode *ino, uint32_t len)
{
	int err;

	ino->target = malloc((size_t)len + 1);
	if (!ino->target)
		return SQK_ERR_NOMEM;
	err = sqk_meta_read(m, ino->target, len);
	if (err)
		return err;
	ino->target[len] = '\0';
	return sqk_fmt_symlink_check(ino->target, len, NULL);
}

/* The decoded fields the callers see, by type. */
static void fill(struct sqk_inode *ino, const struct sqk_fmt_inode *fi)
{
	ino->type = fi->type;
	ino->mode = (mode_t)(fi->mode & 07777) | (mode_t)sqk_fmt_type_mode(fi->type);
	ino->mtime = fi->mtime;
	ino->number = fi->number;
	ino->nlink = fi->nlink;
	ino->xattr = fi->xattr;
	ino->rdev = fi->rdev;
	switch (sqk_basic_type(fi->type)) {
	case SQK_FILE:
		ino->blocks_start = fi->blocks_start;
		ino->size = fi->file_size;
		ino->sparse = fi->sparse;
		ino->frag_index = fi->frag_index;
		ino->frag_offset = fi->frag_offset;
		break;
	case SQK_DIR:
		ino->dir_block = fi->dir_block;
		ino->dir_offset = fi->dir_offset;
		ino->size = sqk_fmt_dir_listing(fi->dir_size);
		ino->parent = fi->parent;
		ino->index_count = fi->index_count;
		break;
	case SQK_SYMLINK:
		ino->size = fi->target_len;
		break;
	}
}

/* attrs: a file's block list and a symlink's target are skipped, not kept. */
static int read_inode(struct sqk_image *img, struct sqk_meta_cursor *m, struct sqk_inode *ino,
		      int attrs)
{
	const struct sqk_super *sb = sqk_image_super(img);
	const struct sqk_fmt_limits lim = {sb->block_size, sb->inode_count, sb->fragment_count,
					   sb->id_count};
	uint8_t raw[SQK_FMT_INODE_FIXED_MAX];
	struct sqk_fmt_inode fi;
	int err;

	err = sqk_meta_read(m, raw, SQK_FMT_INODE_HEADER_SIZE);
	if (err)
		return err;
	sqk_fmt_inode_decode_header(raw, &fi);
	err = sqk_fmt_inode_check_header(&fi, &lim, NULL);
	if (err)
		return err;
	err = sqk_meta_read(m, raw + SQK_FMT_INODE_HEADER_SIZE,
			    sqk_fmt_inode_fixed_size(fi.type) - SQK_FMT_INODE_HEADER_SIZE);
	if (err)
		return err;
	sqk_fmt_inode_decode_body(raw + SQK_FMT_INODE_HEADER_SIZE, &fi);
	err = sqk_fmt_inode_check_body(&fi, &lim, NULL);
	if (!err)
		err = sqk_image_id(img, fi.uid_idx, &ino->uid);
	if (!err)
		err = sqk_image_id(img, fi.gid_idx, &ino->gid);
	if (err)
		return err;
	fill(ino, &fi);
	switch (sqk_basic_type(fi.type)) {
	case SQK_FILE:
		if (attrs)
			return 0;
		return read_blocks(
			m, ino, sqk_fmt_file_blocks(fi.file_size, fi.frag_index, sb->block_size));
	case SQK_DIR:
		/* An extended directory's index follows: a lookup reads it from here. */
		ino->index_block = sqk_meta_tell_block(m);
		ino->index_offset = m->offset;
		return 0;
	case SQK_SYMLINK:
		err = attrs ? sqk_meta_read(m, NULL, fi.target_len) : read_target(m, ino, fi.target_len);
		if (err || !sqk_fmt_inode_tail_size(fi.type))
			return err;
		err = sqk_meta_read(m, raw, sqk_fmt_inode_tail_size(fi.type));
		if (err)
			return err;
		sqk_fmt_inode_decode_tail(raw, &fi);
		ino->xattr = fi.xattr;
		return 0;
	}
	return 0;
}

static int read_at(struct sqk_image *img, uint64_t ref, struct sqk_inode *ino, int attrs)
{
	const struct sqk_super *sb = sqk_image_super(img);
	struct sqk_meta_cursor m;
	int err;

	memset(ino, 0, sizeof(*ino));
	ino->ref = ref;
	ino->xattr = SQK_INVALID_XATTR;
	ino->frag_index = SQK_INVALID_FRAG;
	err = sqk_meta_seek(&m, img, sb->inode_table, SQK_REF_BLOCK(ref), SQK_REF_OFFSET(ref));
	if (err)
		return err;
	err = read_inode(img, &m, ino, attrs);
	sqk_meta_release(&m);
	if (err)
		sqk_inode_free(ino);
	return err;
}

int sqk_inode_read(struct sqk_image *img, uint64_t ref, struct sqk_inode *ino)
{
	return read_at(img, ref, ino, 0);
}

int sqk_inode_read_attrs(struct sqk_image *img, uint64_t ref, struct sqk_inode *ino)
{
	return read_at(img, ref, ino, 1);
}

void sqk_inode_free(struct sqk_inode *ino)
{
	free(ino->blocks);
	free(ino->target);
	ino->blocks = NULL;
	ino->target = NULL;
}
