// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "error.h"
#include "format.h"
#include "image.h"
#include "le.h"
#include "meta.h"

struct meta_fill {
	struct sqk_image *img;
};

/* Read the 2-byte header at e->block, then the block; e->next follows it. */
static int fill_meta(void *arg, struct sqk_cache_entry *e)
{
	struct sqk_image *img = arg;
	const struct sqfs_super *sb = sqk_image_super(img);
	uint8_t hdr[2];
	uint32_t size, word;
	int err;

	if (e->block > sb->bytes_used || sb->bytes_used - e->block < 2)
		return SQK_ERR_CORRUPT;
	err = sqk_image_pread(img, e->block, hdr, 2);
	if (err)
		return err;
	size = get_le16(hdr) & SQFS_META_SIZE_MASK;
	if (size == 0 || size > SQFS_META_SIZE || e->block + 2 + size > sb->bytes_used)
		return SQK_ERR_CORRUPT;
	word = size;
	if (get_le16(hdr) & SQFS_META_UNCOMPRESSED)
		word |= SQFS_BLOCK_UNCOMPRESSED;
	err = sqk_image_read_block(img, e->block + 2, word, e->data, SQFS_META_SIZE, &e->length);
	if (err)
		return err;
	if (e->length == 0)
		return SQK_ERR_CORRUPT;
	e->next = e->block + 2 + size;
	return 0;
}

int sqk_meta_block(struct sqk_image *img, uint64_t pos, struct sqk_cache_entry **e)
{
	return sqk_cache_get(sqk_image_cache(img, SQK_CACHE_META), pos, 0, fill_meta, img, e);
}

int sqk_meta_seek(struct sqk_meta_cursor *m, struct sqk_image *img, uint64_t table_start,
		  uint64_t rel_block, uint32_t offset)
{
	memset(m, 0, sizeof(*m));
	m->img = img;
	m->start = table_start;
	m->limit = sqk_image_table_end(img, table_start);
	if (rel_block >= m->limit - table_start || offset >= SQFS_META_SIZE)
		return SQK_ERR_CORRUPT;
	m->block = table_start + rel_block;
	m->offset = offset;
	return 0;
}

void sqk_meta_release(struct sqk_meta_cursor *m)
{
	sqk_cache_put(m->e);
	m->e = NULL;
}

/* Make m->e the current block with at least one byte at m->offset. */
static int current(struct sqk_meta_cursor *m)
{
	int err;

	for (;;) {
		if (!m->e) {
			if (m->block >= m->limit)
				return SQK_ERR_CORRUPT;
			err = sqk_meta_block(m->img, m->block, &m->e);
			if (err)
				return err;
		}
		if (m->offset < m->e->length)
			return 0;
		/* Past this block: move on to the next one. */
		if (m->offset > m->e->length)
			return SQK_ERR_CORRUPT;
		m->block = m->e->next;
		m->offset = 0;
		sqk_meta_release(m);
	}
}

int sqk_meta_read(struct sqk_meta_cursor *m, void *buf, size_t len)
{
	uint8_t *p = buf;
	int err;

	while (len > 0) {
		size_t n;

		err = current(m);
		if (err)
			return err;
		n = m->e->length - m->offset;
		if (n > len)
			n = len;
		if (p) {
			memcpy(p, m->e->data + m->offset, n);
			p += n;
		}
		m->offset += (uint32_t)n;
		len -= n;
	}
	return 0;
}

int sqk_meta_skip(struct sqk_meta_cursor *m, size_t len)
{
	return sqk_meta_read(m, NULL, len);
}

int sqk_meta_table_entry(struct sqk_image *img, const uint64_t *pos, uint32_t nblocks,
			 uint32_t entry_size, uint64_t idx, void *out)
{
	uint64_t per = SQFS_META_SIZE / entry_size;
	uint64_t blk = idx / per;
	uint32_t off = (uint32_t)((idx % per) * entry_size);
	struct sqk_cache_entry *e;
	int err;

	if (blk >= nblocks)
		return SQK_ERR_CORRUPT;
	err = sqk_meta_block(img, pos[blk], &e);
	if (err)
		return err;
	if (off + entry_size > e->length) {
		sqk_cache_put(e);
		return SQK_ERR_CORRUPT;
	}
	memcpy(out, e->data + off, entry_size);
	sqk_cache_put(e);
	return 0;
}
