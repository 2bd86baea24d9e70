// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "dir.h"
#include "error.h"
#include "format.h"
#include "image.h"
#include "inode.h"
#include "le.h"

int sqk_name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	if (r)
		return r;
	return alen < blen ? -1 : alen > blen;
}

static int dir_seek(struct sqk_image *img, struct sqk_dir_iter *it, uint64_t rel_block,
		    uint32_t offset, uint64_t remaining)
{
	memset(it, 0, sizeof(*it));
	it->img = img;
	it->remaining = remaining;
	if (remaining == 0)
		return 0;
	return sqk_meta_seek(&it->m, img, sqk_image_super(img)->dir_table, rel_block, offset);
}

int sqk_dir_open(struct sqk_image *img, const struct sqk_inode *dir, struct sqk_dir_iter *it)
{
	if (sqfs_basic_type(dir->type) != SQFS_DIR)
		return SQK_ERR_NOTDIR;
	return dir_seek(img, it, dir->dir_block, dir->dir_offset, dir->size);
}

void sqk_dir_close(struct sqk_dir_iter *it)
{
	sqk_meta_release(&it->m);
}

static int take(struct sqk_dir_iter *it, void *buf, size_t len)
{
	if (it->remaining < len)
		return SQK_ERR_CORRUPT;
	it->remaining -= len;
	return sqk_meta_read(&it->m, buf, len);
}

static int bad_name(const char *name, size_t len)
{
	if (len == 0 || memchr(name, '/', len) || memchr(name, '\0', len))
		return 1;
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

int sqk_dir_next(struct sqk_dir_iter *it, struct sqk_dirent *ent)
{
	const struct sqfs_super *sb = sqk_image_super(it->img);
	uint8_t raw[12];
	int32_t delta;
	int64_t number;
	int err;

	if (it->in_header == 0) {
		if (it->remaining == 0)
			return 0;
		err = take(it, raw, 12);
		if (err)
			return err;
		/* The count is stored minus one: 0xffffffff must not wrap to 0 entries. */
		if (get_le32(raw) >= SQFS_DIR_HDR_MAX)
			return SQK_ERR_CORRUPT;
		it->in_header = get_le32(raw) + 1;
		it->start = get_le32(raw + 4);
		it->base = get_le32(raw + 8);
	}
	err = take(it, raw, 8);
	if (err)
		return err;
	it->in_header--;
	delta = (int16_t)get_le16(raw + 2);
	ent->type = get_le16(raw + 4);
	ent->name_len = (uint32_t)get_le16(raw + 6) + 1;
	if (ent->name_len > SQFS_NAME_MAX)
		return SQK_ERR_CORRUPT;
	err = take(it, ent->name, ent->name_len);
	if (err)
		return err;
	ent->name[ent->name_len] = '\0';
	ent->ref = SQFS_MKREF(it->start, get_le16(raw));
	number = (int64_t)it->base + delta;
	if (number < 1 || number > sb->inode_count || ent->type < SQFS_DIR ||
	    ent->type > SQFS_SOCKET || SQFS_REF_OFFSET(ent->ref) >= SQFS_META_SIZE)
		return SQK_ERR_CORRUPT;
	ent->number = (uint32_t)number;
	if (bad_name(ent->name, ent->name_len))
		return SQK_ERR_BADNAME;
	if (it->checked_order &&
	    sqk_name_cmp(it->prev, it->prev_len, ent->name, ent->name_len) >= 0)
		return SQK_ERR_SEQUENCE;
	memcpy(it->prev, ent->name, ent->name_len);
	it->prev_len = ent->name_len;
	it->checked_order = 1;
	return 1;
}

/*
 * Pick where to start scanning for name: the last index entry whose name
 * is not after it. Index entries give the listing offset of a header and
 * the metadata block holding it, so the scan skips whole blocks.
 */
static int index_start(struct sqk_image *img, const struct sqk_inode *dir, const char *name,
		       size_t len, uint64_t *block, uint32_t *offset, uint64_t *skipped)
{
	const struct sqfs_super *sb = sqk_image_super(img);
	struct sqk_meta_cursor m;
	char iname[SQFS_NAME_MAX_BUF];
	uint32_t i;
	int err;

	*block = dir->dir_block;
	*offset = dir->dir_offset;
	*skipped = 0;
	err = sqk_meta_seek(&m, img, sb->inode_table, dir->index_block, dir->index_offset);
	for (i = 0; !err && i < dir->index_count; i++) {
		uint8_t raw[12];
		uint32_t index, start, isize;

		err = sqk_meta_read(&m, raw, 12);
		if (err)
			break;
		index = get_le32(raw);
		start = get_le32(raw + 4);
		isize = get_le32(raw + 8) + 1;
		if (isize > SQFS_NAME_MAX || index > dir->size) {
			err = SQK_ERR_CORRUPT;
			break;
		}
		err = sqk_meta_read(&m, iname, isize);
		if (err)
			break;
		if (sqk_name_cmp(iname, isize, name, len) > 0)
			break;
		if (index < *skipped) {
			err = SQK_ERR_CORRUPT;
			break;
		}
		*block = start;
		*offset = (uint32_t)((dir->dir_offset + index) % SQFS_META_SIZE);
		*skipped = index;
	}
	sqk_meta_release(&m);
	return err;
}

int sqk_dir_lookup(struct sqk_image *img, const struct sqk_inode *dir, const char *name,
		   size_t len, struct sqk_dirent *ent)
{
	struct sqk_dir_iter it;
	uint64_t block, skipped;
	uint32_t offset;
	int err;

	if (sqfs_basic_type(dir->type) != SQFS_DIR)
		return SQK_ERR_NOTDIR;
	if (len == 0 || len > SQFS_NAME_MAX)
		return SQK_ERR_NOENT;
	err = index_start(img, dir, name, len, &block, &offset, &skipped);
	if (err)
		return err;
	err = dir_seek(img, &it, block, offset, dir->size - skipped);
	while (!err) {
		int c;

		err = sqk_dir_next(&it, ent);
		if (err <= 0)
			break;
		c = sqk_name_cmp(ent->name, ent->name_len, name, len);
		if (c == 0) {
			sqk_dir_close(&it);
			return 0;
		}
		if (c > 0)
			break;
		err = 0;
	}
	sqk_dir_close(&it);
	return err < 0 ? err : SQK_ERR_NOENT;
}
