// SPDX-License-Identifier: BSD-2-Clause
/*
 * The driver of the block pipeline (the parts: data_int.h). A source hands
 * in files piece by piece; blocks go to the ring, tails to fragment
 * packing; results come back in submission order and are placed here.
 */
#include <stdlib.h>

#include "data_int.h"
#include "format/fmt_block.h"
#include "format/fmt_table.h"
#include "format/format.h"
#include "util/array.h"
#include "util/error.h"
#include "util/signals.h"

int sqk_dw_place(struct sqk_data_writer *dw, struct slot *s, struct sqk_file_data *fd)
{
	uint32_t word = 0;
	int err = 0;

	switch (s->kind) {
	case K_BLOCK:
		if (s->block_no == 0)
			fd->blocks_start = sqk_dw_out_pos(dw);
		if (s->sparse) {
			dw->st.sparse_blocks++;
			dw->st.sparse_bytes += s->len;
		} else {
			err = sqk_dw_out_write(dw, s->raw ? s->in : s->out, s->out_len);
			word = sqk_fmt_block_word(s->out_len, s->raw);
			dw->st.blocks++;
			dw->st.block_bytes += s->out_len;
			dw->st.raw_blocks += s->raw;
			sqk_dw_reuse_placed(dw, s);
		}
		if (s->sparse)
			fd->sparse += s->len;
		fd->blocks[s->block_no] = word;
		fd->hash = rotl64(fd->hash ^ s->hash, 23) * HM1;
		break;
	case K_FRAG:
		dw->last_frag_pos = sqk_dw_out_pos(dw);
		err = sqk_dw_frag_entry(dw, s->frag_index, sqk_dw_out_pos(dw),
					sqk_fmt_block_word(s->out_len, s->raw));
		if (!err)
			err = sqk_dw_out_write(dw, s->raw ? s->in : s->out, s->out_len);
		dw->st.fragments++;
		dw->st.fragment_bytes += s->out_len;
		dw->frags_placed = s->frag_index + 1;
		sqk_dw_reuse_placed(dw, s);
		break;
	case K_END:
		err = sqk_dw_file_done(dw, fd);
		if (!err)
			err = sqk_dw_result_put(dw, fd);
		sqk_dw_file_free(fd);
		break;
	}
	return err;
}

/* The current file is all handed in: its end goes through the ring too, to keep the order. */
static int push_end(struct sqk_data_writer *dw)
{
	struct slot *s;
	int err = sqk_dw_reserve(dw, 0, &s);

	if (err)
		return err;
	s->kind = K_END;
	s->fd = dw->cur;
	dw->cur = NULL;
	return sqk_dw_push(dw, s);
}

int sqk_data_file_begin(struct sqk_data_writer *dw, uint64_t size, uint64_t *id)
{
	uint64_t bs = dw->bs, nb;
	struct sqk_file_data *fd;

	if (dw->err)
		return dw->err;
	/* A signal held while the output cannot be undone (a device): the build stops here. */
	if (sqk_sig_caught())
		return dw->err = SQK_ERR_INTR;
	fd = calloc(1, sizeof(*fd));
	if (!fd)
		return dw->err = SQK_ERR_NOMEM;
	fd->id = *id = dw->nfiles++;
	fd->size = size;
	fd->frag_index = SQK_INVALID_FRAG;
	dw->cur = fd;
	dw->cur_size = size;
	dw->piece = 0;
	dw->cur_tail = 0;
	if (dw->o.no_fragments || (size >= bs && !dw->o.tail_ends)) {
		nb = (size + bs - 1) / bs;
	} else {
		nb = size / bs;
		dw->cur_tail = (uint32_t)(size % bs);
	}
	if (nb > UINT32_MAX)
		return dw->err = SQK_ERR_OVERFLOW;
	dw->cur_blocks = (uint32_t)nb;
	dw->st.bytes_in += size;
	sqk_dw_reuse_file(dw, size);
	if (nb) {
		fd->blocks = calloc(nb, sizeof(uint32_t));
		if (!fd->blocks)
			return dw->err = SQK_ERR_NOMEM;
	}
	fd->nblocks = (uint32_t)nb;
	if (!nb && !dw->cur_tail)
		return dw->err = push_end(dw);
	return 0;
}

int sqk_data_piece(struct sqk_data_writer *dw, uint8_t **buf, uint32_t *len, uint64_t *off)
{
	struct slot *s;
	uint64_t o = (uint64_t)dw->piece * dw->bs;
	int err;

	if (dw->err)
		return dw->err;
	if (!dw->cur)
		return 1;
	if (sqk_sig_caught())
		return dw->err = SQK_ERR_INTR;
	*off = o;
	if (dw->piece < dw->cur_blocks) {
		err = sqk_dw_reserve(dw, 1, &s);
		if (err)
			return dw->err = err;
		*buf = s->in;
		*len = dw->cur_size - o < dw->bs ? (uint32_t)(dw->cur_size - o) : dw->bs;
		return 0;
	}
	*buf = dw->tail_buf;
	*len = dw->cur_tail;
	return 0;
}

int sqk_data_piece_done(struct sqk_data_writer *dw, int hole)
{
	int err;

	if (dw->err)
		return dw->err;
	if (dw->piece < dw->cur_blocks) {
		/* The slot reserved by sqk_data_piece. */
		struct slot *s = &dw->ring[(dw->head + dw->count) % dw->cap];
		uint64_t o = (uint64_t)dw->piece * dw->bs;

		s->kind = K_BLOCK;
		s->hole = hole;
		s->len = dw->cur_size - o < dw->bs ? (uint32_t)(dw->cur_size - o) : dw->bs;
		s->fd = dw->cur;
		s->block_no = dw->piece;
		sqk_dw_reuse_block(dw, s, dw->piece);
		err = sqk_dw_push(dw, s);
	} else {
		err = sqk_dw_tail(dw, hole);
	}
	if (err)
		return dw->err = err;
	dw->piece++;
	if (dw->piece == dw->cur_blocks + (dw->cur_tail ? 1 : 0))
		err = push_end(dw);
	return dw->err = err;
}

int sqk_data_finish(struct sqk_data_writer *dw, uint64_t *end)
{
	int err = dw->err;

	if (!err)
		err = sqk_dw_close_frag(dw);
	while (!err && dw->count)
		err = sqk_dw_consume_one(dw);
	if (!err)
		err = sqk_dw_out_flush(dw);
	/* The data is all written: a signal held meanwhile stops the build before its tables. */
	if (!err && sqk_sig_caught())
		err = SQK_ERR_INTR;
	if (err) {
		/* Let the workers finish with the buffers before they are freed. */
		sqk_pool_wait(dw->pool);
		return dw->err = err;
	}
	*end = sqk_dw_out_pos(dw);
	return 0;
}

struct sqk_data_stats *sqk_data_stats(struct sqk_data_writer *dw)
{
	return &dw->st;
}

int sqk_data_writer_create(const struct sqk_data_opts *o, struct sqk_compressor **comps,
			   struct sqk_compressor *main, struct sqk_file *out, uint64_t pos,
			   struct sqk_data_writer **res)
{
	struct sqk_data_writer *dw = calloc(1, sizeof(*dw));
	unsigned threads = o->threads ? o->threads : 1;
	struct sqk_spill *sp;
	int err;

	if (!dw)
		return SQK_ERR_NOMEM;
	dw->o = *o;
	dw->bs = o->block_size;
	if (!o->spill) {
		/* No budget given (a test): one that never spills. */
		if (sqk_spill_init(&dw->own_spill, NULL, UINT64_MAX / 4, 0)) {
			free(dw);
			return SQK_ERR_NOMEM;
		}
		dw->o.spill = &dw->own_spill;
	}
	sp = dw->o.spill;
	err = sqk_store_create(sp, sp->tiny ? 96 : 49152,
			       sqk_spill_share(sp, RESULTS_SHARE, sp->tiny ? 192 : 1 << 20),
			       &dw->results);
	if (!err)
		err = sqk_store_create(sp, sp->tiny ? 64 : 65536,
				       sqk_spill_share(sp, WORDS_SHARE, sp->tiny ? 128 : 1 << 20),
				       &dw->words);
	if (!err)
		err = sqk_store_create(sp, sp->tiny ? 64 : 65536,
				       sqk_spill_share(sp, FRAGS_SHARE, sp->tiny ? 128 : 1 << 20),
				       &dw->frag_table);
	sqk_smap_init(&dw->files, sp, sizeof(struct file_ref),
		      sqk_spill_share(sp, FILES_SHARE, sp->tiny ? 256 : 1 << 20));
	sqk_smap_init(&dw->tails, sp, sizeof(struct tail_ref),
		      sqk_spill_share(sp, TAILS_SHARE, sp->tiny ? 256 : 1 << 20));
	sqk_smap_init(&dw->old_files, sp, sizeof(uint64_t),
		      sqk_spill_share(sp, OLD_SHARE, sp->tiny ? 256 : 1 << 20));
	dw->comps = comps;
	dw->main = main;
	dw->out = out;
	dw->obuf_start = pos;
	dw->nrb = RB_BYTES / dw->bs < RB_SLOTS ? RB_BYTES / dw->bs : RB_SLOTS;
	if (dw->nrb < 2)
		dw->nrb = 2;
	if (!err)
		err = sqk_dw_ring_init(dw, threads);
	dw->obuf = malloc(OBUF_SIZE);
	dw->tail_buf = malloc(dw->bs);
	dw->frag_buf = malloc(dw->bs);
	dw->rb_tmp = malloc(dw->bs);
	dw->cmp_a = malloc(dw->bs);
	dw->cmp_b = malloc(dw->bs);
	if (err || !dw->obuf || !dw->tail_buf || !dw->frag_buf || !dw->rb_tmp || !dw->cmp_a ||
	    !dw->cmp_b) {
		sqk_data_writer_destroy(dw);
		return SQK_ERR_NOMEM;
	}
	*res = dw;
	return 0;
}

void sqk_data_writer_destroy(struct sqk_data_writer *dw)
{
	unsigned i;
	size_t k;

	if (!dw)
		return;
	/* Files in flight: the one being handed in, and those whose ends are in the ring. */
	if (dw->pool)
		sqk_pool_wait(dw->pool);
	sqk_dw_file_free(dw->cur);
	for (i = 0; dw->ring && i < dw->count; i++) {
		struct slot *s = &dw->ring[(dw->head + i) % dw->cap];

		if (s->kind == K_END)
			sqk_dw_file_free(s->fd);
	}
	sqk_dw_ring_free(dw);
	sqk_dw_reuse_release(dw);
	free(dw->obuf);
	free(dw->tail_buf);
	free(dw->frag_buf);
	for (k = 0; k < dw->nrb; k++)
		free(dw->rb[k].buf);
	free(dw->rb_tmp);
	free(dw->cmp_a);
	free(dw->cmp_b);
	free(dw->cand_words);
	sqk_store_destroy(dw->frag_table);
	sqk_store_destroy(dw->results);
	sqk_store_destroy(dw->words);
	sqk_smap_release(&dw->tails);
	sqk_smap_release(&dw->files);
	sqk_smap_release(&dw->old_files);
	if (dw->o.spill == &dw->own_spill)
		sqk_spill_release(&dw->own_spill);
	free(dw);
}

int sqk_data_feed(struct sqk_data_writer *dw, uint64_t size, sqk_data_read_fn read, void *ctx,
		  uint64_t *id)
{
	int err = sqk_data_file_begin(dw, size, id);

	while (!err) {
		uint8_t *buf;
		uint32_t len;
		uint64_t off;
		int r = sqk_data_piece(dw, &buf, &len, &off);

		if (r)
			return r < 0 ? r : 0;
		err = read(ctx, off, buf, len);
		if (!err)
			err = sqk_data_piece_done(dw, 0);
	}
	return err;
}
