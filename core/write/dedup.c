// SPDX-License-Identifier: BSD-2-Clause
/*
 * Content found again: a whole file whose blocks equal an earlier file's
 * is rewound and points at the earlier blocks; a tail equal to a packed
 * one points into its fragment. Hashes find candidates; bytes decide.
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

static int same_layout(const struct sqk_file_data *c, const struct sqk_file_data *fd)
{
	return c->size == fd->size && c->nblocks == fd->nblocks &&
	       c->frag_index == fd->frag_index && c->frag_offset == fd->frag_offset &&
	       !memcmp(c->blocks, fd->blocks, fd->nblocks * sizeof(uint32_t));
}

/*
 * If the candidate c stores what fd has just written (stored bytes), rewind
 * over fd's blocks and point it at c's; *found says whether it did.
 */
static int reuse(struct sqk_data_writer *dw, const struct sqk_file_data *c,
		 struct sqk_file_data *fd, uint64_t stored, int *found)
{
	int err;

	*found = 0;
	if (!same_layout(c, fd))
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

int sqk_dw_file_done(struct sqk_data_writer *dw, struct sqk_file_data *fd)
{
	struct sqk_hash_iter it;
	uint64_t stored = 0, v;
	uint32_t i;
	int err, found;

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
		stored += sqk_fmt_block_size(fd->blocks[i]);
	/* Files are kept only when new, so at most one candidate can match. */
	for (v = sqk_hash_first(&dw->files, fd->hash, &it); v; v = sqk_hash_next(&it)) {
		err = reuse(dw, (struct sqk_file_data *)(uintptr_t)v, fd, stored, &found);
		if (err || found)
			return err;
	}
	if (dw->old_files.count) {
		err = sqk_dw_old_find(dw, fd, stored, &found);
		if (err || found)
			return err;
	}
	return sqk_hash_add(&dw->files, fd->hash, (uintptr_t)fd);
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
	struct sqk_hash_iter it;
	uint64_t v;
	int err;

	*found = 0;
	for (v = sqk_hash_first(&dw->old_files, fd->size, &it); v; v = sqk_hash_next(&it)) {
		err = reuse(dw, (struct sqk_file_data *)(uintptr_t)v, fd, stored, found);
		if (err || *found)
			return err;
	}
	return 0;
}

int sqk_dw_tail_find(struct sqk_data_writer *dw, uint64_t hash, uint32_t len, int *found)
{
	struct sqk_file_data *fd = dw->cur;
	struct sqk_hash_iter it;
	uint64_t v;
	int err;

	*found = 0;
	for (v = sqk_hash_first(&dw->tails_by_hash, hash, &it); v; v = sqk_hash_next(&it)) {
		struct tail_ref *t = &dw->tails[v - 1];
		const uint8_t *data = t->bytes;

		if (t->len != len)
			continue;
		if (len > TAIL_INLINE) {
			err = sqk_dw_frag_content(dw, t->idx, &data);
			if (err)
				return err;
			data += t->off;
		}
		if (memcmp(data, dw->tail_buf, len) == 0) {
			fd->frag_index = t->idx;
			fd->frag_offset = t->off;
			dw->st.dedup_tails++;
			dw->st.dedup_tail_bytes += len;
			*found = 1;
			return 0;
		}
	}
	return 0;
}

int sqk_dw_tail_remember(struct sqk_data_writer *dw, const uint8_t *tail, uint64_t hash,
			 uint32_t len, uint32_t idx, uint32_t off)
{
	struct tail_ref *t;

	if (SQK_ARRAY_GROW(dw->tails, dw->tails_cap, dw->ntails + 1))
		return SQK_ERR_NOMEM;
	t = &dw->tails[dw->ntails];
	*t = (struct tail_ref){.hash = hash, .len = len, .idx = idx, .off = off};
	if (len <= TAIL_INLINE)
		memcpy(t->bytes, tail, len);
	if (sqk_hash_add(&dw->tails_by_hash, hash, dw->ntails + 1))
		return SQK_ERR_NOMEM;
	dw->ntails++;
	return 0;
}
