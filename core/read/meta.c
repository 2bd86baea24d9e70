// SPDX-License-Identifier: BSD-2-Clause
#include <string.h>

#include "block.h"
#include "format/format.h"
#include "image.h"
#include "layout.h"
#include "meta.h"
#include "util/error.h"

int sqk_meta_block(struct sqk_image *img, uint64_t pos, struct sqk_cache_entry **e)
{
	return sqk_block_meta(sqk_image_blocks(img), sqk_image_cache(img, SQK_CACHE_METADATA), pos,
			      e);
}

int sqk_meta_table_entry(struct sqk_image *img, int table, uint64_t idx, void *out)
{
	return sqk_table_entry(sqk_image_blocks(img), sqk_image_cache(img, SQK_CACHE_METADATA),
			       sqk_image_table(img, table), idx, out);
}

int sqk_meta_count(struct sqk_image *img, uint64_t start, uint64_t end, struct sqk_meta_count *c)
{
	uint64_t pos = start;

	memset(c, 0, sizeof(*c));
	while (pos < end) {
		struct sqk_cache_entry *e;
		int err = sqk_meta_block(img, pos, &e);

		if (err)
			return err;
		c->blocks++;
		c->uncompressed += e->length;
		c->stored += e->next - pos;
		pos = e->next;
		sqk_cache_put(e);
	}
	return 0;
}

int sqk_meta_seek(struct sqk_meta_cursor *m, struct sqk_image *img, uint64_t table_start,
		  uint64_t rel_block, uint32_t offset)
{
	memset(m, 0, sizeof(*m));
	m->img = img;
	m->start = table_start;
	m->limit = sqk_image_table_end(img, table_start);
	if (table_start > m->limit || rel_block >= m->limit - table_start ||
	    offset >= SQK_META_SIZE)
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
