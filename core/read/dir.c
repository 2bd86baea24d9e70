// SPDX-License-Identifier: BSD-2-Clause
/*
 * The strict reader of directory listings: headers, entries and names go
 * through the codec (fmt_dir.h, fmt_name.h), and the first broken rule
 * ends the read.
 */
#include <stdlib.h>
#include <string.h>

#include "dir.h"
#include "format/fmt_dir.h"
#include "format/format.h"
#include "image.h"
#include "inode.h"
#include "util/array.h"
#include "util/error.h"
#include "util/store.h"

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

int sqk_dir_iter_open(struct sqk_image *img, const struct sqk_inode *dir, struct sqk_dir_iter *it)
{
	if (sqk_basic_type(dir->type) != SQK_DIR)
		return SQK_ERR_NOTDIR;
	return dir_seek(img, it, dir->dir_block, dir->dir_offset, dir->size);
}

void sqk_dir_iter_close(struct sqk_dir_iter *it)
{
	sqk_meta_release(&it->m);
}

int sqk_dir_read_all(struct sqk_image *img, const struct sqk_inode *dir, struct sqk_dir_entry **out,
		     size_t *count, struct sqk_dir_entry *bad)
{
	struct sqk_dir_iter it;
	struct sqk_dir_entry *ents = NULL;
	size_t n = 0, cap = 0;
	int err;

	err = sqk_dir_iter_open(img, dir, &it);
	while (!err) {
		if (SQK_ARRAY_GROW(ents, cap, n + 1)) {
			err = SQK_ERR_NOMEM;
			break;
		}
		err = sqk_dir_iter_next(&it, &ents[n]);
		if (err == 1) {
			n++;
			err = 0;
		} else {
			if ((err == SQK_ERR_BADNAME || err == SQK_ERR_SEQUENCE) && bad)
				*bad = ents[n];
			break;
		}
	}
	sqk_dir_iter_close(&it);
	if (err < 0) {
		free(ents);
		return err;
	}
	*out = ents;
	*count = n;
	return 0;
}

/* Up to SQK_DIR_PIECE entries from where the list stands; the block is let go after. */
static void read_piece(struct sqk_dir_list *l)
{
	int r = 1;

	l->first += l->n;
	l->n = 0;
	while (l->n < SQK_DIR_PIECE && (r = sqk_dir_iter_next(&l->it, &l->ents[l->n])) == 1)
		l->n++;
	if (r < 0) {
		l->error = r;
		if (r == SQK_ERR_BADNAME || r == SQK_ERR_SEQUENCE)
			l->bad = l->ents[l->n];
	}
	/* An error ends it too; a full piece may have been the last. */
	l->end = r <= 0 || (l->it.remaining == 0 && l->it.in_header == 0);
	sqk_dir_iter_close(&l->it);
}

/* The rest of the listing, read to check it; the list is left where it was. */
static int check_rest(struct sqk_dir_list *l)
{
	struct sqk_dir_iter rest = l->it;
	int r;

	while ((r = sqk_dir_iter_next(&rest, &l->bad)) == 1)
		;
	sqk_dir_iter_close(&rest);
	return r;
}

int sqk_dir_list_open(struct sqk_image *img, const struct sqk_inode *dir, int check,
		      struct sqk_dir_list *l)
{
	int err;

	memset(l, 0, sizeof(*l));
	err = sqk_dir_iter_open(img, dir, &l->it);
	if (err)
		return err;
	l->ents = malloc(SQK_DIR_PIECE * sizeof(*l->ents));
	if (!l->ents)
		return SQK_ERR_NOMEM;
	read_piece(l);
	err = check ? l->error : 0;
	if (!err && check && !l->end)
		err = check_rest(l);
	if (err)
		sqk_dir_list_close(l);
	return err;
}

int sqk_dir_list_next(struct sqk_dir_list *l)
{
	if (l->end) {
		l->first += l->n;
		l->n = 0;
		return 0;
	}
	read_piece(l);
	return 0;
}

void sqk_dir_list_close(struct sqk_dir_list *l)
{
	sqk_dir_iter_close(&l->it);
	free(l->ents);
	l->ents = NULL;
	l->n = 0;
}

int sqk_dirent_check(const struct sqk_dir_entry *ent, const struct sqk_inode *ino)
{
	if (sqk_basic_type(ino->type) != ent->type || ino->number != ent->number)
		return SQK_ERR_CORRUPT;
	return 0;
}

int sqk_dirent_inode(struct sqk_image *img, const struct sqk_dir_entry *ent, struct sqk_inode *ino)
{
	int err = sqk_inode_read(img, ent->ref, ino);

	if (!err && (err = sqk_dirent_check(ent, ino)) != 0)
		sqk_inode_free(ino);
	return err;
}

int sqk_dir_enter(struct sqk_store *seen, uint32_t number, unsigned depth, unsigned max_depth)
{
	int r = sqk_store_bit(seen, number, 0);

	if (r)
		return r < 0 ? r : SQK_ERR_LOOP;
	if (depth >= max_depth)
		return SQK_ERR_DEPTH;
	r = sqk_store_bit(seen, number, 1);
	return r < 0 ? r : 0;
}

/* The listing's size bounds every read: a structure must end inside it. */
static int take(struct sqk_dir_iter *it, void *buf, size_t len)
{
	if (it->remaining < len)
		return SQK_ERR_CORRUPT;
	it->remaining -= len;
	return sqk_meta_read(&it->m, buf, len);
}

int sqk_dir_iter_next(struct sqk_dir_iter *it, struct sqk_dir_entry *ent)
{
	const struct sqk_super *sb = sqk_image_super(it->img);
	const struct sqk_fmt_limits lim = {sb->block_size, sb->inode_count, sb->fragment_count,
					   sb->id_count};
	uint8_t raw[SQK_FMT_DIR_HEADER_SIZE];
	struct sqk_fmt_dir_entry e;
	int err;

	if (it->in_header == 0) {
		if (it->remaining == 0)
			return 0;
		err = take(it, raw, SQK_FMT_DIR_HEADER_SIZE);
		if (err)
			return err;
		sqk_fmt_dir_header_decode(raw, &it->hdr);
		err = sqk_fmt_dir_header_check(&it->hdr, NULL);
		if (err)
			return err;
		it->in_header = (uint32_t)it->hdr.count;
	}
	err = take(it, raw, SQK_FMT_DIR_ENTRY_SIZE);
	if (err)
		return err;
	it->in_header--;
	sqk_fmt_dir_entry_decode(raw, &e);
	err = sqk_fmt_dir_entry_check_size(&e, NULL);
	if (!err)
		err = take(it, ent->name, e.name_size);
	if (err)
		return err;
	ent->name_len = e.name_size;
	ent->name[ent->name_len] = '\0';
	ent->type = e.type;
	ent->ref = sqk_fmt_dir_entry_ref(&it->hdr, &e);
	err = sqk_fmt_dir_entry_check(&e, &it->hdr, &lim, NULL);
	if (err)
		return err;
	ent->number = (uint32_t)sqk_fmt_dir_entry_number(&it->hdr, &e);
	err = sqk_name_check(ent->name, ent->name_len, NULL);
	if (!err && it->checked_order)
		err = sqk_name_check_order(it->prev, it->prev_len, ent->name, ent->name_len, NULL);
	if (err)
		return err;
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
	const struct sqk_super *sb = sqk_image_super(img);
	struct sqk_fmt_dir_index x, prev;
	struct sqk_meta_cursor m;
	char iname[SQK_NAME_MAX_BUF];
	uint32_t i;
	int err;

	*block = dir->dir_block;
	*offset = dir->dir_offset;
	*skipped = 0;
	/*
	 * Without an index there is nothing to seek to: the index would start
	 * where the inode ends, which for the table's last inode ending a
	 * block is a block that does not exist.
	 */
	if (!dir->index_count)
		return 0;
	err = sqk_meta_seek(&m, img, sb->inode_table, dir->index_block, dir->index_offset);
	for (i = 0; !err && i < dir->index_count; i++) {
		uint8_t raw[SQK_FMT_DIR_INDEX_SIZE];

		err = sqk_meta_read(&m, raw, SQK_FMT_DIR_INDEX_SIZE);
		if (err)
			break;
		sqk_fmt_dir_index_decode(raw, &x);
		err = sqk_fmt_dir_index_check_size(&x, NULL);
		if (!err)
			err = sqk_fmt_dir_index_check(&x, i ? &prev : NULL, (uint32_t)dir->size,
						      NULL);
		if (!err)
			err = sqk_meta_read(&m, iname, x.name_size);
		if (err)
			break;
		if (sqk_name_cmp(iname, x.name_size, name, len) > 0)
			break;
		*block = x.start;
		*offset = sqk_fmt_dir_index_block_offset(dir->dir_offset, &x);
		*skipped = x.offset;
		prev = x;
	}
	sqk_meta_release(&m);
	return err;
}

int sqk_dir_lookup(struct sqk_image *img, const struct sqk_inode *dir, const char *name, size_t len,
		   struct sqk_dir_entry *ent)
{
	struct sqk_dir_iter it;
	uint64_t block, skipped;
	uint32_t offset;
	int err;

	if (sqk_basic_type(dir->type) != SQK_DIR)
		return SQK_ERR_NOTDIR;
	if (len == 0 || len > SQK_NAME_MAX)
		return SQK_ERR_NOENT;
	err = index_start(img, dir, name, len, &block, &offset, &skipped);
	if (err)
		return err;
	err = dir_seek(img, &it, block, offset, dir->size - skipped);
	while (!err) {
		int c;

		err = sqk_dir_iter_next(&it, ent);
		if (err <= 0)
			break;
		c = sqk_name_cmp(ent->name, ent->name_len, name, len);
		if (c == 0) {
			sqk_dir_iter_close(&it);
			return 0;
		}
		if (c > 0)
			break;
		err = 0;
	}
	sqk_dir_iter_close(&it);
	return err < 0 ? err : SQK_ERR_NOENT;
}
