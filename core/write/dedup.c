// SPDX-License-Identifier: BSD-2-Clause
/*
 * Content found again: a whole file whose blocks equal an earlier file's
 * is rewound and points at the earlier blocks; a tail equal to a packed
 * one points into its fragment. Hashes find candidates; bytes decide. The
 * indexes spill (util/smap.h) but never forget: what is found does not
 * depend on the budget.
 */
#include <stdint.h>

#include "data_int.h"
#include "format/fmt_block.h"
#include "format/format.h"
#include "util/array.h"
#include "util/error.h"

/* Are the stored bytes of two files equal? Both are already in the output. */
static int same_bytes(struct sqk_data_writer *dw, uint64_t a, uint64_t b, uint64_t len, int *same)
{
	*same = 1;
	while (len && *same) {
		size_t n = len < dw->bs ? (size_t)len : dw->bs;
		int err = sqk_dw_out_read(dw, a, dw->cmp_a, n);

		if (!err)
			err = sqk_dw_out_read(dw, b, dw->cmp_b, n);
		if (err)
			return err;
		*same = memcmp(dw->cmp_a, dw->cmp_b, n) == 0;
		a += n;
		b += n;
		len -= n;
	}
	return 0;
}

/*
 * If the candidate c (a kept file's layout) stores what fd has just
 * written (stored bytes), rewind over fd's blocks and point it at c's;
 * *found says whether it did.
 */
static int reuse(struct sqk_data_writer *dw, const struct file_ref *c, struct sqk_file_data *fd,
		 uint64_t stored, int *found)
{
	struct sqk_file_data cd;
	int err;

	*found = 0;
	if (c->size != fd->size || c->nblocks != fd->nblocks || c->frag_index != fd->frag_index ||
	    c->frag_offset != fd->frag_offset)
		return 0;
	err = sqk_dw_result_get(dw, c->id, &cd, &dw->cand_words, &dw->cand_cap);
	if (err)
		return err;
	if (memcmp(cd.blocks, fd->blocks, fd->nblocks * sizeof(uint32_t)))
		return 0;
	err = same_bytes(dw, c->blocks_start, fd->blocks_start, stored, found);
	if (err || !*found)
		return err;
	sqk_dw_out_rewind(dw, fd->blocks_start);
	fd->blocks_start = c->blocks_start;
	dw->st.blocks -= fd->nblocks;
	dw->st.block_bytes -= stored;
	dw->st.dedup_files++;
	dw->st.dedup_bytes += fd->size;
	return 0;
}

/* A search of the file indexes: the file, what it stores, and what was found. */
struct search {
	struct sqk_data_writer *dw;
	struct sqk_file_data *fd;
	uint64_t stored;
	int found, err;
};

static int try_file(void *ctx, const void *val)
{
	struct search *s = ctx;
	struct file_ref c;

	memcpy(&c, val, sizeof(c));
	s->err = reuse(s->dw, &c, s->fd, s->stored, &s->found);
	return s->err || s->found;
}

int sqk_dw_file_done(struct sqk_data_writer *dw, struct sqk_file_data *fd)
{
	struct search s = {dw, fd, 0, 0, 0};
	struct file_ref ref;
	uint32_t i;
	int err;

	if (!fd->nblocks)
		fd->blocks_start = sqk_dw_out_pos(dw);
	fd->hash = fmix(fd->hash ^ fd->tail_hash * HM3 ^ fd->size);
	dw->st.files++;
	dw->progress += fd->size;
	/* Rewinding must never drop a fragment block written after this file's blocks. */
	if (dw->o.no_dedup || !fd->nblocks ||
	    (dw->st.fragments && dw->last_frag_pos >= fd->blocks_start))
		return 0;
	for (i = 0; i < fd->nblocks; i++)
		s.stored += sqk_fmt_block_size(fd->blocks[i]);
	/* Files are kept only when new, so at most one candidate can match. */
	err = sqk_smap_find(&dw->files, fd->hash, try_file, &s);
	if (err || s.err || s.found)
		return err ? err : s.err;
	if (sqk_smap_count(&dw->old_files)) {
		err = sqk_dw_old_find(dw, fd, s.stored, &s.found);
		if (err || s.found)
			return err;
	}
	ref = (struct file_ref){fd->id,		fd->blocks_start, fd->size, fd->nblocks,
				fd->frag_index, fd->frag_offset,  0};
	return sqk_smap_add(&dw->files, fd->hash, &ref);
}

static int try_old(void *ctx, const void *val)
{
	struct search *s = ctx;
	struct sqk_file_data cd;
	struct file_ref c;
	uint64_t id;

	memcpy(&id, val, sizeof(id));
	s->err = sqk_dw_result_get(s->dw, id, &cd, &s->dw->cand_words, &s->dw->cand_cap);
	if (s->err)
		return 1;
	c = (struct file_ref){
		id, cd.blocks_start, cd.size, cd.nblocks, cd.frag_index, cd.frag_offset, 0};
	s->err = reuse(s->dw, &c, s->fd, s->stored, &s->found);
	return s->err || s->found;
}

/*
 * The image appended to: its files are known by size and layout only, and
 * the stored bytes decide. Equal compressed blocks mean equal content;
 * the same content compressed otherwise (another writer, another level)
 * is not found.
 */
int sqk_dw_old_find(struct sqk_data_writer *dw, struct sqk_file_data *fd, uint64_t stored,
		    int *found)
{
	struct search s = {dw, fd, stored, 0, 0};
	int err = sqk_smap_find(&dw->old_files, fd->size, try_old, &s);

	*found = s.found;
	return err ? err : s.err;
}

struct tail_search {
	struct sqk_data_writer *dw;
	uint32_t len;
	int found, err;
};

static int try_tail(void *ctx, const void *val)
{
	struct tail_search *s = ctx;
	struct sqk_data_writer *dw = s->dw;
	struct sqk_file_data *fd = dw->cur;
	const uint8_t *data;
	struct tail_ref t;

	memcpy(&t, val, sizeof(t));
	if (t.len != s->len)
		return 0;
	data = t.bytes;
	if (t.len > TAIL_INLINE) {
		s->err = sqk_dw_frag_content(dw, t.idx, &data);
		if (s->err)
			return 1;
		data += t.off;
	}
	if (memcmp(data, dw->tail_buf, t.len))
		return 0;
	fd->frag_index = t.idx;
	fd->frag_offset = t.off;
	dw->st.dedup_tails++;
	dw->st.dedup_tail_bytes += t.len;
	s->found = 1;
	return 1;
}

int sqk_dw_tail_find(struct sqk_data_writer *dw, uint64_t hash, uint32_t len, int *found)
{
	struct tail_search s = {dw, len, 0, 0};
	int err = sqk_smap_find(&dw->tails, hash, try_tail, &s);

	*found = s.found;
	return err ? err : s.err;
}

int sqk_dw_tail_remember(struct sqk_data_writer *dw, const uint8_t *tail, uint64_t hash,
			 uint32_t len, uint32_t idx, uint32_t off)
{
	struct tail_ref t = {.len = len, .idx = idx, .off = off};

	if (len <= TAIL_INLINE)
		memcpy(t.bytes, tail, len);
	return sqk_smap_add(&dw->tails, hash, &t);
}
