// SPDX-License-Identifier: BSD-2-Clause
/*
 * Appending to an image: its fragment blocks stay where they are and keep
 * their indexes, and its files and tails become candidates for dedup, so
 * that new data equal to old data points at the old blocks.
 */
#include "data_int.h"
#include "format/format.h"
#include "util/array.h"
#include "util/error.h"

int sqk_data_adopt_fragment(struct sqk_data_writer *dw, uint64_t start, uint32_t size_word)
{
	int err;

	if (dw->frag_len || dw->st.files)
		return SQK_ERR_ARG; /* only before any file */
	if (dw->frag_idx == SQK_INVALID_FRAG - 1)
		return SQK_ERR_OVERFLOW;
	err = sqk_dw_frag_entry(dw, dw->frag_idx, start, size_word);
	if (!err)
		dw->frags_placed = ++dw->frag_idx;
	return err;
}

int sqk_data_adopt_file(struct sqk_data_writer *dw, const struct sqk_file_data *fd, uint64_t *id)
{
	struct sqk_file_data f = *fd;
	int err;

	f.id = *id = dw->nfiles++;
	err = sqk_dw_result_put(dw, &f);
	/* A file without blocks is all tail: tail dedup finds it. */
	if (err || dw->o.no_dedup || !fd->nblocks)
		return err;
	return sqk_smap_add(&dw->old_files, fd->size, id);
}

int sqk_data_adopt_tail(struct sqk_data_writer *dw, const uint8_t *tail, uint32_t len,
			uint32_t frag, uint32_t offset)
{
	uint64_t hash;

	if (dw->o.no_dedup)
		return 0;
	if (frag >= dw->frag_idx || len > dw->bs)
		return SQK_ERR_CORRUPT;
	hash = sqk_hash64(tail, len);
	return sqk_dw_tail_remember(dw, tail, hash, len, frag, offset);
}
