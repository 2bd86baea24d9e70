// SPDX-License-Identifier: BSD-2-Clause
/*
 * --reuse in the block pipeline: only the compress step changes. The main
 * thread names candidates as items are handed in: block i of a file
 * against block i of the files of earlier images at its path and of its
 * size (reuse.h), when that block has the same length; a fragment block
 * against the fragment blocks that held its tails at the same offsets,
 * when their tails fill the same length. The worker that takes the item
 * reads a candidate's stored bytes, decompresses them with the earlier
 * image's block layer and compares them with the item's bytes: equal, the
 * stored bytes are the result (compressed, or raw as they were stored);
 * otherwise the next candidate, and the compressor after the last. What
 * follows (placement, dedup, packing) sees a result like any other, so
 * with an earlier image of the same writer and settings the image is byte
 * for byte what a build without --reuse writes.
 */
#include <stdlib.h>

#include "data_int.h"
#include "format/fmt_block.h"
#include "format/format.h"
#include "read/block.h"
#include "util/error.h"

int sqk_data_set_reuse(struct sqk_data_writer *dw, struct sqk_reuse *r)
{
	unsigned i;

	if (dw->st.files || dw->reuse_buf || sqk_reuse_block_size(r) != dw->bs)
		return SQK_ERR_ARG;
	dw->reuse_buf = calloc(dw->nthreads + 1, sizeof(*dw->reuse_buf));
	if (!dw->reuse_buf)
		return SQK_ERR_NOMEM;
	for (i = 0; i <= dw->nthreads; i++) {
		dw->reuse_buf[i] = malloc(dw->bs);
		if (!dw->reuse_buf[i])
			return SQK_ERR_NOMEM;
	}
	dw->reuse = r;
	return 0;
}

void sqk_dw_reuse_release(struct sqk_data_writer *dw)
{
	unsigned i;

	for (i = 0; dw->reuse_buf && i <= dw->nthreads; i++)
		free(dw->reuse_buf[i]);
	free(dw->reuse_buf);
}

void sqk_data_next_key(struct sqk_data_writer *dw, uint64_t key)
{
	dw->next_key = key;
}

void sqk_dw_reuse_file(struct sqk_data_writer *dw, uint64_t size)
{
	unsigned i;

	dw->nrfile = 0;
	if (dw->reuse && size)
		dw->nrfile = (unsigned)sqk_reuse_files(dw->reuse, dw->next_key, size, dw->rfile,
						       REUSE_FILES);
	for (i = 0; i < dw->nrfile; i++)
		dw->rpos[i] = dw->rfile[i].blocks_start;
	dw->next_key = 0;
}

static void add_cand(struct slot *s, unsigned img, uint64_t pos, uint32_t word)
{
	unsigned k;

	for (k = 0; k < s->ncand; k++)
		if (s->cand[k].img == img && s->cand[k].pos == pos)
			return;
	if (s->ncand < REUSE_CANDS)
		s->cand[s->ncand++] = (struct reuse_cand){pos, word, (uint16_t)img};
}

void sqk_dw_reuse_block(struct sqk_data_writer *dw, struct slot *s, uint32_t i)
{
	unsigned k;

	for (k = 0; k < dw->nrfile; k++) {
		const struct sqk_reuse_file *f = &dw->rfile[k];
		uint64_t left = f->size - (uint64_t)i * dw->bs;
		uint32_t word, size;

		if (i >= f->nblocks)
			continue;
		word = f->words[i];
		size = sqk_fmt_block_size(word);
		if (size && (left < dw->bs ? left : dw->bs) == s->len)
			add_cand(s, f->img, dw->rpos[k], word);
		dw->rpos[k] += size;
	}
}

void sqk_dw_reuse_tail(struct sqk_data_writer *dw, uint32_t offset, uint32_t len)
{
	unsigned k, j;

	for (k = 0; k < dw->nrfile; k++) {
		const struct sqk_reuse_file *f = &dw->rfile[k];

		if (f->frag == SQK_INVALID_FRAG || f->frag_offset != offset ||
		    f->size % dw->bs != len)
			continue;
		for (j = 0; j < dw->nrfrag; j++)
			if (dw->rfrag[j].img == f->img && dw->rfrag[j].idx == f->frag)
				break;
		if (j == dw->nrfrag && dw->nrfrag < REUSE_CANDS) {
			dw->rfrag[j].img = (uint16_t)f->img;
			dw->rfrag[j].idx = f->frag;
			dw->nrfrag++;
		}
	}
}

void sqk_dw_reuse_frag(struct sqk_data_writer *dw, struct slot *s)
{
	unsigned j;

	for (j = 0; j < dw->nrfrag; j++) {
		uint64_t start;
		uint32_t word, len;

		if (sqk_reuse_fragment(dw->reuse, dw->rfrag[j].img, dw->rfrag[j].idx, &start, &word,
				       &len) == 0 &&
		    len == s->len)
			add_cand(s, dw->rfrag[j].img, start, word);
	}
	dw->nrfrag = 0;
}

int sqk_dw_reuse_try(struct sqk_data_writer *dw, struct slot *s, uint8_t *buf)
{
	unsigned k;

	for (k = 0; k < s->ncand; k++) {
		const struct reuse_cand *c = &s->cand[k];
		struct sqk_blocks *b = sqk_reuse_blocks(dw->reuse, c->img);
		uint32_t size = sqk_fmt_block_size(c->word);
		size_t got = 0;
		int err = SQK_ERR_CORRUPT;

		/* The stored bytes go where a compressed result would: they are the result if
		 * equal. */
		if (size <= dw->bs)
			err = sqk_blocks_pread(b, c->pos, s->out, size);
		if (!err)
			err = sqk_block_decode(b, s->out, c->word, buf, dw->bs, &got);
		if (err) {
			s->result[k] = CAND_UNREADABLE;
			continue;
		}
		if (got != s->len || memcmp(buf, s->in, s->len) != 0) {
			s->result[k] = CAND_REJECTED;
			continue;
		}
		s->result[k] = CAND_COPIED;
		s->reused = (uint8_t)(k + 1);
		s->raw = sqk_fmt_block_raw(c->word);
		s->out_len = size;
		return 1;
	}
	return 0;
}

/*
 * Is a copied block what this build's compressor makes of its bytes? Asked
 * once per image, of the first block copied from it: the same writer with
 * the same settings gives the same stored bytes. -1 when it cannot tell.
 */
static int differs(struct sqk_data_writer *dw, const struct slot *s)
{
	size_t out = 0;
	int err = dw->main->compress(dw->main, s->in, s->len, dw->cmp_a, dw->bs, &out);

	if (err == SQK_ERR_OVERFLOW || (!err && out >= s->len))
		return !s->raw;
	if (err)
		return -1;
	return s->raw || out != s->out_len || memcmp(dw->cmp_a, s->out, out) != 0;
}

void sqk_dw_reuse_placed(struct sqk_data_writer *dw, struct slot *s)
{
	unsigned k;

	dw->st.compressed += s->compressed;
	for (k = 0; k < s->ncand; k++) {
		struct sqk_reuse_stats *st = sqk_reuse_stats_rw(dw->reuse, s->cand[k].img);

		switch (s->result[k]) {
		case CAND_COPIED:
			st->blocks++;
			st->bytes += s->len;
			st->stored += s->out_len;
			if (st->differs < 0)
				st->differs = differs(dw, s);
			break;
		case CAND_REJECTED:
			st->rejected++;
			break;
		case CAND_UNREADABLE:
			st->unreadable++;
			break;
		}
	}
	if (s->reused) {
		dw->st.reused++;
		dw->st.reused_bytes += s->len;
	}
}
