/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_META_WRITER_H
#define SQK_META_WRITER_H

/*
 * Writes a stream as 8 KiB metadata blocks: each block is compressed, or
 * stored with its header marking it uncompressed (fmt_meta.h) when
 * compressing does not shrink it. Blocks go straight to a file at base +
 * offset, or (file NULL) into memory or a spool, for a table that has to
 * wait for another (the directory table waits for the inode table).
 *
 * A writer may compress on a pool (sqk_mw_async, meta_async.c), with the
 * same bytes. Two such writers that refer to each other (peers: the inode
 * and directory tables) give references whose block part is a block's
 * number until both are written (sqk_mw_real_ref then); bytes that hold
 * where a block of the peer starts are written with sqk_mw_write_fixed.
 */
#include <stddef.h>
#include <stdint.h>

#include "compressors/compressor.h"
#include "format/fmt_meta.h"
#include "util/file.h"
#include "util/spool.h"

struct mw_async;
struct sqk_pool;

struct sqk_meta_writer {
	struct sqk_compressor *comp;
	struct sqk_file *file;
	uint64_t base;
	uint8_t buf[SQK_META_SIZE];
	size_t used;	  /* bytes in buf */
	uint64_t out_len; /* compressed bytes emitted so far */
	uint64_t total;	  /* uncompressed bytes written */
	uint8_t *mem;	  /* memory sink */
	size_t mem_cap;
	struct sqk_spool *spool; /* or a spool sink (set after init), for a table that waits */
	uint64_t *starts;	 /* start of every emitted block, relative */
	size_t nstarts, starts_cap;
	int keep_starts;
	struct sqk_meta_writer *peer; /* the table whose block starts fixed bytes hold */
	struct mw_async *async;	      /* compressing on a pool, or NULL */
	int numbered;		      /* its references name blocks by number (was async) */
	uint8_t scratch[SQK_FMT_META_HDR_SIZE + SQK_META_SIZE];
};

void sqk_mw_init(struct sqk_meta_writer *mw, struct sqk_compressor *comp, struct sqk_file *file,
		 uint64_t base, int keep_starts);
void sqk_mw_release(struct sqk_meta_writer *mw);
int sqk_mw_write(struct sqk_meta_writer *mw, const void *data, size_t len);
/* The reference of the next byte: (block start << 16) | offset in block. */
uint64_t sqk_mw_ref(const struct sqk_meta_writer *mw);
/* Emit the partial block, if any. */
int sqk_mw_flush(struct sqk_meta_writer *mw);
/* Copy a memory (or spool) writer's blocks to file at pos. */
int sqk_mw_copy_out(const struct sqk_meta_writer *mw, struct sqk_file *file, uint64_t pos);

/*
 * Compress on pool from now on (before any byte), worker i with comps[i]
 * (NULL: comp's choice of stored blocks, for every worker); release after
 * the last flush, or to give up.
 */
int sqk_mw_async(struct sqk_meta_writer *mw, struct sqk_pool *pool, struct sqk_compressor **comps);
void sqk_mw_async_release(struct sqk_meta_writer *mw);
/*
 * len bytes (at most 256) made by fn from data once the start of block ub
 * of the peer table is known: at once without a peer (ub is the start).
 */
typedef void (*sqk_mw_fix_fn)(const void *data, uint64_t start, uint8_t *out);
int sqk_mw_write_fixed(struct sqk_meta_writer *mw, uint64_t ub, sqk_mw_fix_fn fn, const void *data,
		       size_t dlen, size_t len);
/* A reference of this table as the image has it, once flushed: its block's real start. */
uint64_t sqk_mw_real_ref(const struct sqk_meta_writer *mw, uint64_t ref);

#endif
