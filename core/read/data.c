// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "cache.h"
#include "data.h"
#include "error.h"
#include "format.h"
#include "image.h"
#include "inode.h"
#include "le.h"
#include "meta.h"

struct block_fill {
	struct sqk_image *img;
	uint32_t expect; /* the block's length in the file; 0 = no check (fragments) */
};

static int fill_block(void *arg, struct sqk_cache_entry *e)
{
	struct block_fill *f = arg;
	size_t cap = sqk_image_super(f->img)->block_size;
	int err;

	err = sqk_image_read_block(f->img, e->block, e->info, e->data, cap, &e->length);
	if (err)
		return err;
	if (f->expect && e->length != f->expect)
		return SQK_ERR_CORRUPT;
	return 0;
}

void sqk_data_begin(struct sqk_data_cursor *c, const struct sqk_inode *ino)
{
	c->ino = ino;
	c->index = 0;
	c->position = ino->blocks_start;
}

int sqk_data_seek(struct sqk_data_cursor *c, uint32_t index)
{
	if (index > c->ino->nblocks)
		return SQK_ERR_ARG;
	if (index < c->index) {
		c->index = 0;
		c->position = c->ino->blocks_start;
	}
	while (c->index < index)
		c->position += c->ino->blocks[c->index++] & SQFS_BLOCK_SIZE_MASK;
	return 0;
}

int sqk_data_next(struct sqk_image *img, struct sqk_data_cursor *c, struct sqk_cache_entry **e,
		  uint32_t *len)
{
	const struct sqfs_super *sb = sqk_image_super(img);
	const struct sqk_inode *ino = c->ino;
	struct block_fill f = {img, 0};
	uint32_t word, size;
	uint64_t left, start, end;

	*e = NULL;
	if (c->index >= ino->nblocks)
		return SQK_ERR_ARG;
	word = ino->blocks[c->index];
	size = word & SQFS_BLOCK_SIZE_MASK;
	left = ino->size - (uint64_t)c->index * sb->block_size;
	*len = left < sb->block_size ? (uint32_t)left : sb->block_size;
	f.expect = *len;
	sqk_image_data_area(img, &start, &end);
	if (sqfs_block_word_bad(word, sb->block_size, *len) ||
	    !sqfs_block_in_area(c->position, size, start, end))
		return SQK_ERR_CORRUPT;
	c->index++;
	c->position += size;
	if (size == 0)
		return 0;
	return sqk_cache_get(sqk_image_cache(img, SQK_CACHE_DATA), c->position - size, word,
			     fill_block, &f, e);
}

int sqk_fragment_entry(struct sqk_image *img, uint32_t index, uint64_t *start, uint32_t *size)
{
	const struct sqk_lookup_table *t = sqk_image_lookup(img, SQK_TABLE_FRAG);
	const struct sqfs_super *sb = sqk_image_super(img);
	uint8_t raw[SQFS_FRAG_ENTRY_SIZE];
	uint64_t lo, hi;
	int err;

	if (index >= sb->fragment_count)
		return SQK_ERR_CORRUPT;
	err = sqk_meta_table_entry(img, t->pos, t->count, SQFS_FRAG_ENTRY_SIZE, index, raw);
	if (err)
		return err;
	*start = get_le64(raw);
	*size = get_le32(raw + 8);
	sqk_image_data_area(img, &lo, &hi);
	/* A fragment block is never a hole; raw, it may hold any length. */
	if ((*size & SQFS_BLOCK_SIZE_MASK) == 0 ||
	    sqfs_block_word_bad(*size, sb->block_size, *size & SQFS_BLOCK_SIZE_MASK) ||
	    !sqfs_block_in_area(*start, *size & SQFS_BLOCK_SIZE_MASK, lo, hi))
		return SQK_ERR_CORRUPT;
	return 0;
}

int sqk_data_tail(struct sqk_image *img, const struct sqk_inode *ino, struct sqk_cache_entry **e,
		  const uint8_t **tail, uint32_t *len)
{
	const struct sqfs_super *sb = sqk_image_super(img);
	struct block_fill f = {img, 0};
	uint64_t start;
	uint32_t size;
	int err;

	*e = NULL;
	*len = sqk_inode_tail(ino, sb->block_size);
	if (ino->frag_index == SQFS_INVALID_FRAG)
		return 0;
	err = sqk_fragment_entry(img, ino->frag_index, &start, &size);
	if (err)
		return err;
	err = sqk_cache_get(sqk_image_cache(img, SQK_CACHE_FRAG), start, size, fill_block, &f, e);
	if (err)
		return err;
	if ((uint64_t)ino->frag_offset + *len > (*e)->length) {
		sqk_cache_put(*e);
		*e = NULL;
		return SQK_ERR_CORRUPT;
	}
	*tail = (*e)->data + ino->frag_offset;
	return 0;
}

int sqk_data_pread(struct sqk_image *img, const struct sqk_inode *ino, uint64_t off, void *buf,
		   size_t len, size_t *got)
{
	uint32_t bs = sqk_image_super(img)->block_size;
	struct sqk_data_cursor c;
	uint8_t *out = buf;
	int err = 0;

	*got = 0;
	if (off >= ino->size)
		return 0;
	if (len > ino->size - off)
		len = (size_t)(ino->size - off);
	sqk_data_begin(&c, ino);
	while (len > 0) {
		uint32_t index = (uint32_t)(off / bs), in = (uint32_t)(off % bs), blen, n;
		struct sqk_cache_entry *e;
		const uint8_t *src;

		if (index < ino->nblocks) {
			err = sqk_data_seek(&c, index);
			if (!err)
				err = sqk_data_next(img, &c, &e, &blen);
			src = e ? e->data : NULL;
		} else {
			err = sqk_data_tail(img, ino, &e, &src, &blen);
		}
		if (!err && in >= blen)
			err = SQK_ERR_CORRUPT;
		if (err) {
			sqk_cache_put(e);
			return err;
		}
		n = blen - in < len ? blen - in : (uint32_t)len;
		if (src)
			memcpy(out, src + in, n);
		else
			memset(out, 0, n);
		sqk_cache_put(e);
		out += n;
		off += n;
		len -= n;
		*got += n;
	}
	return 0;
}
