// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "format/fmt_meta.h"
#include "format/format.h"
#include "meta_int.h"
#include "util/array.h"
#include "util/error.h"

void sqk_mw_init(struct sqk_meta_writer *mw, struct sqk_compressor *comp, struct sqk_file *file,
		 uint64_t base, int keep_starts)
{
	memset(mw, 0, offsetof(struct sqk_meta_writer, buf));
	mw->used = 0;
	mw->out_len = 0;
	mw->total = 0;
	mw->mem = NULL;
	mw->mem_cap = 0;
	mw->starts = NULL;
	mw->nstarts = mw->starts_cap = 0;
	mw->spool = NULL;
	mw->peer = NULL;
	mw->async = NULL;
	mw->numbered = 0;
	mw->comp = comp;
	mw->file = file;
	mw->base = base;
	mw->keep_starts = keep_starts;
}

void sqk_mw_release(struct sqk_meta_writer *mw)
{
	sqk_mw_async_release(mw);
	free(mw->mem);
	free(mw->starts);
	mw->mem = NULL;
	mw->starts = NULL;
}

int sqk_mw_emit(struct sqk_meta_writer *mw, const uint8_t *blk, size_t len)
{
	if (mw->keep_starts) {
		if (SQK_ARRAY_GROW(mw->starts, mw->starts_cap, mw->nstarts + 1))
			return SQK_ERR_NOMEM;
		mw->starts[mw->nstarts++] = mw->out_len;
	}
	if (mw->file) {
		int err = mw->file->write_at(mw->file, mw->base + mw->out_len, blk, len);

		if (err)
			return err;
	} else if (mw->spool) {
		int err = sqk_spool_write(mw->spool, blk, len);

		if (err)
			return err;
	} else {
		if (SQK_ARRAY_GROW(mw->mem, mw->mem_cap, mw->out_len + len))
			return SQK_ERR_NOMEM;
		memcpy(mw->mem + mw->out_len, blk, len);
	}
	mw->out_len += len;
	return 0;
}

int sqk_mw_encode(struct sqk_compressor *comp, const uint8_t *in, size_t len, uint8_t *out,
		  size_t *out_len)
{
	struct sqk_fmt_meta_hdr h = {0, 0};
	size_t n = 0;
	int err = SQK_ERR_OVERFLOW;

	if (comp)
		err = comp->compress(comp, in, len, out + SQK_FMT_META_HDR_SIZE, SQK_META_SIZE, &n);
	if (err == 0 && n < len) {
		h.size = (uint32_t)n;
	} else if (err == 0 || err == SQK_ERR_OVERFLOW) {
		/* Did not shrink: store it as it is. */
		n = len;
		memcpy(out + SQK_FMT_META_HDR_SIZE, in, n);
		h.size = (uint32_t)n;
		h.raw = 1;
	} else {
		return err;
	}
	sqk_fmt_meta_hdr_encode(&h, out);
	*out_len = n + SQK_FMT_META_HDR_SIZE;
	return 0;
}

int sqk_mw_flush(struct sqk_meta_writer *mw)
{
	size_t out;
	int err;

	if (mw->async)
		return sqk_mw_async_flush(mw);
	if (!mw->used)
		return 0;
	err = sqk_mw_encode(mw->comp, mw->buf, mw->used, mw->scratch, &out);
	if (!err)
		err = sqk_mw_emit(mw, mw->scratch, out);
	if (err)
		return err;
	mw->used = 0;
	return 0;
}

int sqk_mw_write(struct sqk_meta_writer *mw, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len) {
		size_t n = SQK_META_SIZE - mw->used;

		if (n > len)
			n = len;
		memcpy(mw->buf + mw->used, p, n);
		mw->used += n;
		mw->total += n;
		p += n;
		len -= n;
		/* Flush as soon as a block fills, so the current block's start is always known. */
		if (mw->used == SQK_META_SIZE) {
			int err = mw->async ? sqk_mw_seal(mw) : sqk_mw_flush(mw);

			if (err)
				return err;
		}
	}
	return 0;
}

uint64_t sqk_mw_ref(const struct sqk_meta_writer *mw)
{
	if (mw->async)
		return SQK_MKREF(sqk_mw_async_block(mw), mw->used);
	return SQK_MKREF(mw->out_len, mw->used);
}

int sqk_mw_write_fixed(struct sqk_meta_writer *mw, uint64_t ub, sqk_mw_fix_fn fn, const void *data,
		       size_t dlen, size_t len)
{
	uint8_t b[256];
	uint64_t start = ub;

	if (len > sizeof(b))
		return SQK_ERR_ARG;
	if (mw->peer && !sqk_mw_async_known(mw->peer, ub, &start))
		return sqk_mw_defer(mw, ub, fn, data, dlen, len);
	fn(data, start, b);
	return sqk_mw_write(mw, b, len);
}

uint64_t sqk_mw_real_ref(const struct sqk_meta_writer *mw, uint64_t ref)
{
	if (!mw->numbered)
		return ref;
	return SQK_MKREF(mw->starts[SQK_REF_BLOCK(ref)], SQK_REF_OFFSET(ref));
}

int sqk_mw_copy_out(const struct sqk_meta_writer *mw, struct sqk_file *file, uint64_t pos)
{
	uint8_t buf[65536];
	uint64_t off;

	if (!mw->out_len)
		return 0;
	if (!mw->spool)
		return file->write_at(file, pos, mw->mem, mw->out_len);
	for (off = 0; off < mw->out_len; off += sizeof(buf)) {
		size_t n =
			mw->out_len - off < sizeof(buf) ? (size_t)(mw->out_len - off) : sizeof(buf);
		int err = sqk_spool_read(mw->spool, off, buf, n);

		if (!err)
			err = file->write_at(file, pos + off, buf, n);
		if (err)
			return err;
	}
	return 0;
}
