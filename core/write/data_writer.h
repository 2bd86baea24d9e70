/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DATA_WRITER_H
#define SQK_DATA_WRITER_H

/*
 * The block pipeline. A source hands in one file at a time: the writer
 * gives it a buffer per block, the source fills it (or says it is a hole)
 * and puts it back. Blocks go to the worker pool, which compresses and
 * hashes them; the main thread takes the results strictly in submission
 * order and places them, so the output never depends on thread timing.
 * Tails (small files, and with --tail-ends the ends of large ones) are
 * hashed and packed into fragment blocks here, in the source's order;
 * a fragment block is compressed by the pool like any other block.
 * Memory is the blocks in flight and the shares of the budget that the
 * results, the dedup indexes and the fragment table take; past them they
 * wait on disk (util/spill.h).
 */
#include <stdint.h>

#include "compressors/compressor.h"
#include "util/file.h"

/*
 * Where a file's data ended up: what its inode needs. The writer keeps
 * every file's (sqk_data_result), by the id it gave the file when begun.
 */
struct sqk_file_data {
	uint64_t id;
	uint64_t size;
	uint64_t blocks_start;
	uint64_t sparse;  /* bytes in sparse blocks */
	uint32_t *blocks; /* size words */
	uint32_t nblocks;
	uint32_t frag_index, frag_offset;
	uint64_t tail_hash;
	uint64_t hash; /* of the whole content, for dedup */
};

struct sqk_spill;

struct sqk_data_opts {
	uint32_t block_size;
	unsigned threads;
	int no_fragments, tail_ends, no_dedup, no_sparse;
	/* Store data blocks, fragment blocks as they are (uncompressed bit set). */
	int raw_data, raw_fragments;
	/* The build's budget: results, dedup indexes and the fragment table spill there. */
	struct sqk_spill *spill;
};

struct sqk_data_stats {
	uint64_t files, bytes_in;     /* files and bytes handed in */
	uint64_t blocks, block_bytes; /* data blocks written, their stored bytes */
	uint64_t raw_blocks;	      /* blocks stored uncompressed */
	uint64_t sparse_blocks, sparse_bytes;
	uint64_t dedup_files, dedup_bytes; /* whole files found again; bytes not stored */
	uint64_t dedup_tails, dedup_tail_bytes;
	uint64_t fragments, fragment_bytes; /* fragment blocks and their stored bytes */
	uint64_t lseeks;		    /* SEEK_DATA/SEEK_HOLE calls of sparse maps */
	uint64_t compressed;		    /* data and fragment blocks compressed */
	uint64_t reused, reused_bytes;	    /* blocks copied from earlier images, their bytes */
};

struct sqk_data_writer;

/*
 * comps[i] is worker i's compressor (threads of them); main is the main
 * thread's, for reading fragments back. Data is written from *pos on.
 */
int sqk_data_writer_create(const struct sqk_data_opts *o, struct sqk_compressor **comps,
			   struct sqk_compressor *main, struct sqk_file *out, uint64_t pos,
			   struct sqk_data_writer **dw);
void sqk_data_writer_destroy(struct sqk_data_writer *dw);

/* Start a file of size bytes; *id is its result's, once placed (sqk_data_result). */
int sqk_data_file_begin(struct sqk_data_writer *dw, uint64_t size, uint64_t *id);
/*
 * The next piece of the current file: *buf to fill with *len bytes, the
 * bytes at file offset *off. Returns 0, or 1 when the file is complete.
 */
int sqk_data_piece(struct sqk_data_writer *dw, uint8_t **buf, uint32_t *len, uint64_t *off);
/* Hand the piece back; hole means it is all zero and buf was not filled. */
int sqk_data_piece_done(struct sqk_data_writer *dw, int hole);
/*
 * A whole file of size bytes, begun and fed piece by piece in order:
 * read(ctx, off, buf, len) fills buf with the len bytes at off and returns
 * 0, or an error that ends the file (and is returned).
 */
typedef int (*sqk_data_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);
int sqk_data_feed(struct sqk_data_writer *dw, uint64_t size, sqk_data_read_fn read, void *ctx,
		  uint64_t *id);
/*
 * The result of file id, after sqk_data_finish: into *fd, its size words
 * into *words (grown as needed, *cap its room; the caller frees it).
 */
int sqk_data_result(struct sqk_data_writer *dw, uint64_t id, struct sqk_file_data *fd,
		    uint32_t **words, size_t *cap);

/*
 * Appending: the data of the image added to, handed in before any file.
 * Its fragment blocks keep their place and their indexes (the new ones
 * follow); its files and tails are found again by dedup and shared. The
 * old bytes must be readable through the writer's output file.
 */
int sqk_data_adopt_fragment(struct sqk_data_writer *dw, uint64_t start, uint32_t size_word);
/* A file of the image (its words in fd->blocks) as a result of the writer's: *id. */
int sqk_data_adopt_file(struct sqk_data_writer *dw, const struct sqk_file_data *fd, uint64_t *id);
int sqk_data_adopt_tail(struct sqk_data_writer *dw, const uint8_t *tail, uint32_t len,
			uint32_t frag, uint32_t offset);

/*
 * --reuse: before compressing a block, try the stored blocks of these
 * earlier images that may hold its bytes (reuse.h; r stays the caller's,
 * of the writer's block size). Before any file.
 */
struct sqk_reuse;
int sqk_data_set_reuse(struct sqk_data_writer *dw, struct sqk_reuse *r);
/* The path key (sqk_reuse_key) of the next file begun; 0 when it has none. */
void sqk_data_next_key(struct sqk_data_writer *dw, uint64_t key);

/* Write the last fragment, drain the pipeline; *end is the data's end. */
int sqk_data_finish(struct sqk_data_writer *dw, uint64_t *end);
/* How many fragment blocks there are; entry i of the table (16 bytes) into e. */
uint32_t sqk_data_fragments(const struct sqk_data_writer *dw);
int sqk_data_fragment(struct sqk_data_writer *dw, uint32_t i, uint8_t *e);
struct sqk_data_stats *sqk_data_stats(struct sqk_data_writer *dw);


/* Block hashes, exposed for tests. */
uint64_t sqk_hash64(const void *data, size_t len);

#endif
