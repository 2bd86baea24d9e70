// SPDX-License-Identifier: BSD-2-Clause
/*
 * Every file's result, kept by the id the writer gave it when begun: its
 * layout in a paged array, its size words in a paged heap of bytes, so
 * that millions of files cost the budget's share, not their number.
 */
#include <stdlib.h>

#include "data_int.h"
#include "util/array.h"
#include "util/error.h"

int sqk_dw_result_put(struct sqk_data_writer *dw, struct sqk_file_data *fd)
{
	struct result r = {fd->size,	fd->blocks_start, fd->sparse,	   0,
			   fd->nblocks, fd->frag_index,	  fd->frag_offset, 0};
	int err = 0;

	if (fd->nblocks)
		err = sqk_store_append(dw->words, fd->blocks, (size_t)fd->nblocks * 4, &r.words);
	if (!err)
		err = sqk_store_put(dw->results, fd->id, &r, sizeof(r));
	return err;
}

int sqk_dw_result_get(struct sqk_data_writer *dw, uint64_t id, struct sqk_file_data *fd,
		      uint32_t **words, size_t *cap)
{
	struct result r;
	int err;

	if (id >= dw->nfiles)
		return SQK_ERR_ARG;
	err = sqk_store_get(dw->results, id, &r, sizeof(r));
	if (err)
		return err;
	memset(fd, 0, sizeof(*fd));
	fd->id = id;
	fd->size = r.size;
	fd->blocks_start = r.blocks_start;
	fd->sparse = r.sparse;
	fd->nblocks = r.nblocks;
	fd->frag_index = r.frag_index;
	fd->frag_offset = r.frag_offset;
	if (!r.nblocks)
		return 0;
	if (SQK_ARRAY_GROW(*words, *cap, r.nblocks))
		return SQK_ERR_NOMEM;
	fd->blocks = *words;
	return sqk_store_read(dw->words, r.words, *words, (size_t)r.nblocks * 4);
}

int sqk_data_result(struct sqk_data_writer *dw, uint64_t id, struct sqk_file_data *fd,
		    uint32_t **words, size_t *cap)
{
	return sqk_dw_result_get(dw, id, fd, words, cap);
}

void sqk_dw_file_free(struct sqk_file_data *fd)
{
	if (!fd)
		return;
	free(fd->blocks);
	free(fd);
}
