// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fragments: tails (small files, and with --tail-ends the ends of large
 * ones) packed in the source's order into fragment blocks, which the pool
 * compresses like any other block; the fragment table; and a fragment's
 * contents found again wherever they are now, for tail dedup to compare.
 */
#include <stdlib.h>

#include "data_int.h"
#include "format/fmt_block.h"
#include "format/fmt_table.h"
#include "format/format.h"
#include "util/array.h"
#include "util/error.h"

int sqk_dw_frag_entry(struct sqk_data_writer *dw, uint32_t idx, uint64_t start, uint32_t word)
{
	struct sqk_fmt_frag e = {start, word, 0};
	uint8_t b[SQK_FMT_FRAG_SIZE];

	sqk_fmt_frag_encode(&e, b);
	return sqk_store_put(dw->frag_table, idx, b, SQK_FMT_FRAG_SIZE);
}

/* The filling fragment block's buffer moves to the slot, the slot's becomes the new one. */
int sqk_dw_close_frag(struct sqk_data_writer *dw)
{
	struct slot *s;
	uint8_t *tmp;
	int err;

	if (!dw->frag_len)
		return 0;
	err = sqk_dw_reserve(dw, 1, &s);
	if (err)
		return err;
	tmp = s->in;
	s->in = dw->frag_buf;
	dw->frag_buf = tmp;
	s->kind = K_FRAG;
	s->len = dw->frag_len;
	s->hole = 0;
	s->fd = NULL;
	s->frag_index = dw->frag_idx++;
	dw->frag_len = 0;
	sqk_dw_reuse_frag(dw, s);
	return sqk_dw_push(dw, s);
}

/* Still filling, in flight, read back lately, or else read back from the output now. */
int sqk_dw_frag_content(struct sqk_data_writer *dw, uint32_t idx, const uint8_t **data)
{
	struct rb_slot *slot = NULL;
	uint8_t b[SQK_FMT_FRAG_SIZE];
	struct sqk_fmt_frag e;
	unsigned i;
	uint32_t n;
	size_t got = 0;
	int err;

	if (idx == dw->frag_idx) {
		*data = dw->frag_buf;
		return 0;
	}
	for (i = 0; idx >= dw->frags_placed && i < dw->count; i++) {
		struct slot *s = &dw->ring[(dw->head + i) % dw->cap];

		if (s->kind == K_FRAG && s->frag_index == idx) {
			*data = s->in;
			return 0;
		}
	}
	/* A slot holding it, else the least recently used one (or one never used). */
	for (i = 0; i < dw->nrb; i++) {
		struct rb_slot *r = &dw->rb[i];

		if (r->buf && r->idx == idx) {
			r->used = ++dw->rb_clock;
			*data = r->buf;
			return 0;
		}
		if (!slot || r->used < slot->used)
			slot = r;
	}
	if (!slot->buf && !(slot->buf = malloc(dw->bs)))
		return SQK_ERR_NOMEM;
	err = sqk_store_get(dw->frag_table, idx, b, SQK_FMT_FRAG_SIZE);
	if (err)
		return err;
	sqk_fmt_frag_decode(&e, b);
	n = sqk_fmt_block_size(e.size);
	if (n > dw->bs)
		return SQK_ERR_CORRUPT;
	slot->used = 0;
	slot->idx = SQK_INVALID_FRAG;
	if (sqk_fmt_block_raw(e.size)) {
		err = sqk_dw_out_read(dw, e.start, slot->buf, n);
	} else {
		err = sqk_dw_out_read(dw, e.start, dw->rb_tmp, n);
		if (!err)
			err = dw->main->decompress(dw->main, dw->rb_tmp, n, slot->buf, dw->bs,
						   &got);
	}
	if (err)
		return err;
	slot->idx = idx;
	slot->used = ++dw->rb_clock;
	*data = slot->buf;
	return 0;
}

int sqk_dw_tail(struct sqk_data_writer *dw, int hole)
{
	struct sqk_file_data *fd = dw->cur;
	uint32_t len = dw->cur_tail;
	uint64_t hash;
	int err, found = 0;

	if (hole)
		memset(dw->tail_buf, 0, len);
	hash = sqk_hash64(dw->tail_buf, len);
	fd->tail_hash = hash;
	if (!dw->o.no_dedup) {
		err = sqk_dw_tail_find(dw, hash, len, &found);
		if (err || found)
			return err;
	}
	if (dw->frag_len + len > dw->bs) {
		err = sqk_dw_close_frag(dw);
		if (err)
			return err;
	}
	memcpy(dw->frag_buf + dw->frag_len, dw->tail_buf, len);
	fd->frag_index = dw->frag_idx;
	fd->frag_offset = dw->frag_len;
	sqk_dw_reuse_tail(dw, dw->frag_len, len);
	dw->frag_len += len;
	if (dw->o.no_dedup)
		return 0;
	return sqk_dw_tail_remember(dw, dw->tail_buf, hash, len, fd->frag_index, fd->frag_offset);
}

uint32_t sqk_data_fragments(const struct sqk_data_writer *dw)
{
	return dw->frag_idx;
}

int sqk_data_fragment(struct sqk_data_writer *dw, uint32_t i, uint8_t *e)
{
	return i < dw->frag_idx ? sqk_store_get(dw->frag_table, i, e, SQK_FMT_FRAG_SIZE)
				: SQK_ERR_ARG;
}
