// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "format/fmt_table.h"
#include "format/format.h"
#include "meta_writer.h"
#include "table_writer.h"
#include "util/array.h"
#include "util/error.h"

int sqk_table_begin(struct sqk_table_stream *ts, struct sqk_compressor *comp, struct sqk_file *f,
		    uint64_t pos)
{
	ts->f = f;
	ts->pos = pos;
	ts->mw = malloc(sizeof(*ts->mw));
	if (!ts->mw)
		return SQK_ERR_NOMEM;
	sqk_mw_init(ts->mw, comp, f, pos, 1);
	return 0;
}

int sqk_table_begin_async(struct sqk_table_stream *ts, struct sqk_pool *pool,
			  struct sqk_compressor **comps, struct sqk_file *f, uint64_t pos)
{
	int err = sqk_table_begin(ts, comps ? comps[0] : NULL, f, pos);

	if (!err)
		err = sqk_mw_async(ts->mw, pool, comps);
	if (err)
		sqk_table_abort(ts);
	return err;
}

int sqk_table_add(struct sqk_table_stream *ts, const void *data, size_t len)
{
	return sqk_mw_write(ts->mw, data, len);
}

void sqk_table_abort(struct sqk_table_stream *ts)
{
	if (ts->mw)
		sqk_mw_release(ts->mw);
	free(ts->mw);
	ts->mw = NULL;
}

int sqk_table_end(struct sqk_table_stream *ts, const uint8_t *hdr, size_t hdr_len, uint64_t *pos,
		  uint64_t *table)
{
	struct sqk_meta_writer *mw = ts->mw;
	uint8_t *list = NULL;
	size_t i;
	int err = sqk_mw_flush(mw);

	if (!err && mw->nstarts) {
		list = malloc(mw->nstarts * SQK_FMT_LOOKUP_SIZE);
		if (!list)
			err = SQK_ERR_NOMEM;
	}
	if (!err) {
		for (i = 0; i < mw->nstarts; i++)
			sqk_fmt_lookup_encode(list + SQK_FMT_LOOKUP_SIZE * i,
					      ts->pos + mw->starts[i]);
		*pos = ts->pos + mw->out_len;
		*table = *pos;
		if (hdr_len)
			err = ts->f->write_at(ts->f, *pos, hdr, hdr_len);
		*pos += hdr_len;
		if (!err && mw->nstarts)
			err = ts->f->write_at(ts->f, *pos, list, mw->nstarts * SQK_FMT_LOOKUP_SIZE);
		*pos += mw->nstarts * SQK_FMT_LOOKUP_SIZE;
	}
	free(list);
	sqk_table_abort(ts);
	return err;
}

int sqk_table_write_hdr(struct sqk_compressor *comp, struct sqk_file *f, uint64_t *pos,
			const uint8_t *data, size_t len, const uint8_t *hdr, size_t hdr_len,
			uint64_t *table)
{
	struct sqk_table_stream ts;
	int err = sqk_table_begin(&ts, comp, f, *pos);

	if (err)
		return err;
	err = sqk_table_add(&ts, data, len);
	if (err) {
		sqk_table_abort(&ts);
		return err;
	}
	return sqk_table_end(&ts, hdr, hdr_len, pos, table);
}

int sqk_table_write(struct sqk_compressor *comp, struct sqk_file *f, uint64_t *pos,
		    const uint8_t *data, size_t len, uint64_t *lookup)
{
	return sqk_table_write_hdr(comp, f, pos, data, len, NULL, 0, lookup);
}

void sqk_id_table_init(struct sqk_id_table *t)
{
	memset(t, 0, sizeof(*t));
}

void sqk_id_table_release(struct sqk_id_table *t)
{
	free(t->ids);
	sqk_hash_release(&t->by_id);
	memset(t, 0, sizeof(*t));
}

int sqk_id_table_get(struct sqk_id_table *t, uint32_t id, uint16_t *idx)
{
	uint64_t v = sqk_hash_get(&t->by_id, id);

	if (v) {
		*idx = (uint16_t)(v - 1);
		return 0;
	}
	/* id_count is a u16: 65535 ids at most, never a wrapped counter. */
	if (t->count >= SQK_FMT_MAX_IDS)
		return SQK_ERR_OVERFLOW;
	if (SQK_ARRAY_GROW(t->ids, t->cap, t->count + 1) ||
	    sqk_hash_add(&t->by_id, id, t->count + 1))
		return SQK_ERR_NOMEM;
	t->ids[t->count] = id;
	*idx = (uint16_t)t->count++;
	return 0;
}

int sqk_id_table_write(const struct sqk_id_table *t, struct sqk_compressor *comp,
		       struct sqk_file *f, uint64_t *pos, uint64_t *lookup)
{
	uint8_t *buf = malloc((size_t)t->count * SQK_FMT_ID_SIZE + 1);
	uint32_t i;
	int err;

	if (!buf)
		return SQK_ERR_NOMEM;
	for (i = 0; i < t->count; i++)
		sqk_fmt_id_encode(buf + SQK_FMT_ID_SIZE * i, t->ids[i]);
	err = sqk_table_write(comp, f, pos, buf, (size_t)t->count * SQK_FMT_ID_SIZE, lookup);
	free(buf);
	return err;
}
