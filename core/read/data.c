// SPDX-License-Identifier: BSD-2-Clause
#include <string.h>

#include "block.h"
#include "cache/cache.h"
#include "data.h"
#include "format/fmt_block.h"
#include "format/fmt_table.h"
#include "format/format.h"
#include "image.h"
#include "inode.h"
#include "meta.h"
#include "util/error.h"

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
		c->position += sqk_fmt_block_size(c->ino->blocks[c->index++]);
	return 0;
}

int sqk_data_next(struct sqk_image *img, struct sqk_data_cursor *c, struct sqk_cache_entry **e,
		  uint32_t *len)
{
	const struct sqk_super *sb = sqk_image_super(img);
	const struct sqk_inode *ino = c->ino;
	uint32_t word, size;
	uint64_t start, end;

	*e = NULL;
	if (c->index >= ino->nblocks)
		return SQK_ERR_ARG;
	word = ino->blocks[c->index];
	size = sqk_fmt_block_size(word);
	*len = sqk_fmt_block_len(ino->size, c->index, sb->block_size);
	sqk_image_data_area(img, &start, &end);
	if (sqk_fmt_block_check(word, sb->block_size, *len) ||
	    !sqk_fmt_block_in_area(c->position, size, start, end))
		return SQK_ERR_CORRUPT;
	c->index++;
	c->position += size;
	if (size == 0)
		return 0;
	return sqk_block_data(sqk_image_blocks(img), sqk_image_cache(img, SQK_CACHE_DATA),
			      c->position - size, word, *len, e);
}

int sqk_fragment_entry(struct sqk_image *img, uint32_t index, uint64_t *start, uint32_t *size)
{
	uint8_t raw[SQK_FMT_FRAG_SIZE];
	struct sqk_fmt_frag f;
	uint64_t lo, hi;
	int err;

	err = sqk_meta_table_entry(img, SQK_TABLE_FRAG, index, raw);
	if (err)
		return err;
	sqk_fmt_frag_decode(&f, raw);
	sqk_image_data_area(img, &lo, &hi);
	err = sqk_fmt_frag_check(&f, sqk_image_super(img)->block_size, lo, hi, NULL);
	if (err)
		return err;
	*start = f.start;
	*size = f.size;
	return 0;
}

int sqk_data_tail(struct sqk_image *img, const struct sqk_inode *ino, struct sqk_cache_entry **e,
		  const uint8_t **tail, uint32_t *len)
{
	const struct sqk_super *sb = sqk_image_super(img);
	uint64_t start;
	uint32_t size;
	int err;

	*e = NULL;
	*len = sqk_inode_tail(ino, sb->block_size);
	if (ino->frag_index == SQK_INVALID_FRAG)
		return 0;
	err = sqk_fragment_entry(img, ino->frag_index, &start, &size);
	if (err)
		return err;
	err = sqk_block_data(sqk_image_blocks(img), sqk_image_cache(img, SQK_CACHE_FRAGMENT), start,
			     size, 0, e);
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
		struct sqk_cache_entry *e = NULL;
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

/* Is block index of ino a hole (stored as no block)? */
static int block_is_hole(const struct sqk_inode *ino, uint32_t index)
{
	return index < ino->nblocks && sqk_fmt_block_sparse(ino->blocks[index]);
}

int sqk_data_extent(struct sqk_image *img, const struct sqk_inode *ino, uint64_t off,
		    uint64_t *data, uint64_t *hole)
{
	uint32_t bs = sqk_image_super(img)->block_size, i;

	*data = *hole = ino->size;
	if (off >= ino->size)
		return 0;
	for (i = (uint32_t)(off / bs); i < ino->nblocks && block_is_hole(ino, i); i++)
		;
	if ((uint64_t)i * bs >= ino->size)
		return 0;
	*data = (uint64_t)i * bs > off ? (uint64_t)i * bs : off;
	for (; i < ino->nblocks && !block_is_hole(ino, i); i++)
		;
	if (i < ino->nblocks)
		*hole = (uint64_t)i * bs;
	return 0;
}
