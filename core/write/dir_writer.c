// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "dir_writer.h"
#include "error.h"
#include "format.h"
#include "le.h"

struct state {
	struct sqk_meta_writer *mw;
	struct sqk_dir_result *res;
	uint64_t listing_start;	 /* uncompressed stream position of the listing */
	uint64_t prev_hdr_block; /* uncompressed block number of the previous header */
	int have_prev;
	size_t index_cap;
};

static int add_index(struct state *s, uint32_t index, uint32_t start, const char *name,
		     uint32_t len)
{
	struct sqk_dir_result *r = s->res;
	size_t need = r->index_len + 12 + len;

	if (SQK_ARRAY_GROW(r->index, s->index_cap, need))
		return SQK_ERR_NOMEM;
	put_le32(r->index + r->index_len, index);
	put_le32(r->index + r->index_len + 4, start);
	put_le32(r->index + r->index_len + 8, len - 1);
	memcpy(r->index + r->index_len + 12, name, len);
	r->index_len += 12 + len;
	r->index_count++;
	return 0;
}

/* Write one header and its entries ents[0..count). */
static int write_group(struct state *s, const struct sqk_dir_entry *ents, uint32_t count)
{
	uint8_t b[8];
	uint64_t pos = s->mw->total;
	uint64_t ref = sqk_mw_ref(s->mw);
	uint32_t base = ents[0].ino, i;
	int err;

	if (s->have_prev && pos / SQFS_META_SIZE != s->prev_hdr_block) {
		err = add_index(s, (uint32_t)(pos - s->listing_start),
				(uint32_t)SQFS_REF_BLOCK(ref), ents[0].name, ents[0].len);
		if (err)
			return err;
	}
	s->have_prev = 1;
	s->prev_hdr_block = pos / SQFS_META_SIZE;

	{
		uint8_t h[12];

		put_le32(h, count - 1);
		put_le32(h + 4, (uint32_t)SQFS_REF_BLOCK(ents[0].inode_ref));
		put_le32(h + 8, base);
		err = sqk_mw_write(s->mw, h, sizeof(h));
		if (err)
			return err;
	}
	for (i = 0; i < count; i++) {
		const struct sqk_dir_entry *e = &ents[i];

		put_le16(b, (uint16_t)SQFS_REF_OFFSET(e->inode_ref));
		put_le16(b + 2, (uint16_t)(int16_t)((int64_t)e->ino - (int64_t)base));
		put_le16(b + 4, (uint16_t)e->basic_type);
		put_le16(b + 6, (uint16_t)(e->len - 1));
		err = sqk_mw_write(s->mw, b, sizeof(b));
		if (!err)
			err = sqk_mw_write(s->mw, e->name, e->len);
		if (err)
			return err;
	}
	return 0;
}

int sqk_dir_write(struct sqk_meta_writer *mw, const struct sqk_dir_entry *ents, uint32_t n,
		  struct sqk_dir_result *res)
{
	struct state s = {.mw = mw, .res = res};
	uint64_t ref = sqk_mw_ref(mw);
	uint32_t first = 0, i;
	uint64_t hdr_pos, pos;

	memset(res, 0, sizeof(*res));
	res->start = (uint32_t)SQFS_REF_BLOCK(ref);
	res->offset = (uint16_t)SQFS_REF_OFFSET(ref);
	s.listing_start = mw->total;

	/* Group entries by the rules above, computing positions as the bytes will land. */
	hdr_pos = mw->total;
	pos = hdr_pos + 12;
	for (i = 0; i < n; i++) {
		const struct sqk_dir_entry *h = &ents[first], *e = &ents[i];
		int64_t delta = (int64_t)e->ino - (int64_t)h->ino;
		int split = 0;

		if (e->len == 0 || e->len > SQFS_NAME_MAX)
			return SQK_ERR_BADNAME;
		if (i > first) {
			split = i - first == SQFS_DIR_HDR_MAX ||
				SQFS_REF_BLOCK(e->inode_ref) != SQFS_REF_BLOCK(h->inode_ref) ||
				delta < -32768 || delta > 32767 ||
				pos / SQFS_META_SIZE != hdr_pos / SQFS_META_SIZE;
		}
		if (split) {
			int err = write_group(&s, ents + first, i - first);

			if (err)
				return err;
			first = i;
			hdr_pos = pos;
			pos = hdr_pos + 12;
		}
		pos += 8 + e->len;
	}
	if (n) {
		int err = write_group(&s, ents + first, n - first);

		if (err)
			return err;
	}
	res->size = (uint32_t)(mw->total - s.listing_start);
	return 0;
}
