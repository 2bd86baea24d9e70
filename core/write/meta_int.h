/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_META_INT_H
#define SQK_META_INT_H

/*
 * The metadata writer's parts (meta_writer.h): meta_writer.c writes blocks
 * one after the other; meta_async.c compresses them on the pool.
 */
#include "meta_writer.h"

/* A block's header and bytes (compressed, or stored when that does not shrink it) into out. */
int sqk_mw_encode(struct sqk_compressor *comp, const uint8_t *in, size_t len, uint8_t *out,
		  size_t *out_len);
/* A finished block to the sink, its start kept. */
int sqk_mw_emit(struct sqk_meta_writer *mw, const uint8_t *blk, size_t len);

/* Async (meta_async.c): the filling block sealed; the last one flushed and all placed. */
int sqk_mw_seal(struct sqk_meta_writer *mw);
int sqk_mw_async_flush(struct sqk_meta_writer *mw);
/* len bytes that wait for the start of the peer's block ub (already known: written now). */
int sqk_mw_defer(struct sqk_meta_writer *mw, uint64_t ub, sqk_mw_fix_fn fn, const void *data,
		 size_t dlen, size_t len);
/* Is the start of block ub of mw known (the blocks before it placed)? 1 and *start. */
int sqk_mw_async_known(const struct sqk_meta_writer *mw, uint64_t ub, uint64_t *start);
/* The number of the block filling now. */
uint64_t sqk_mw_async_block(const struct sqk_meta_writer *mw);

#endif
