/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_REUSE_H
#define SQK_REUSE_H

/*
 * --reuse: earlier images whose stored blocks a build copies instead of
 * compressing the same bytes again. Each image is indexed once, before any
 * data: its regular files by image path and by size (their block lists and
 * where their tails are), and its fragment blocks. The block pipeline asks
 * for the candidates of a file and of a fragment block (data_reuse.c) and
 * proves every one by decompressing it and comparing; the index only
 * chooses which blocks are worth that. Nothing of an image is loaded but
 * its tables; its blocks are read one at a time, when a candidate is tried.
 */
#include <stddef.h>
#include <stdint.h>

#include "compressors/compressor.h"

struct sqk_image;
struct sqk_blocks;
struct sqk_node;
struct sqk_tree;

/* Why the blocks of an image cannot serve a build (sqk_reuse_check). */
enum {
	SQK_REUSE_OK,
	SQK_REUSE_CODEC,      /* another compressor */
	SQK_REUSE_BLOCK_SIZE, /* another block size */
	SQK_REUSE_OPTIONS,    /* other compressor options */
	SQK_REUSE_RAW,	      /* it or the build stores every block uncompressed */
};

/*
 * Can blocks of img be copied into a build with this compressor, these
 * settings and block size, storing data and fragments raw or not? The
 * options are compared as the options block states them; what a stream
 * carries only in itself (the xz level, lzma's settings) cannot be known
 * here: sqk_reuse_stats's differs tells it after the build.
 */
int sqk_reuse_check(struct sqk_image *img, const struct sqk_codec *codec,
		    const struct sqk_comp_config *comp, uint32_t block_size, int raw_data,
		    int raw_fragments);

/* The same, as words for a note: 1 with *why filled when img cannot serve, else 0. */
int sqk_reuse_refusal(struct sqk_image *img, const struct sqk_codec *codec,
		      const struct sqk_comp_config *comp, uint32_t block_size, int raw_data,
		      int raw_fragments, char *why, size_t cap);

/* What one image gave a build. */
struct sqk_reuse_stats {
	uint64_t blocks, bytes; /* blocks copied (data and fragment), their uncompressed bytes */
	uint64_t stored;	/* their stored bytes */
	uint64_t rejected;	/* candidates read that held other bytes */
	uint64_t unreadable;	/* candidates that could not be read or decompressed */
	uint64_t skipped;	/* entries of its tree the index could not read */
	/*
	 * -1: no block copied; 0: the first block copied is what this build
	 * makes of its bytes (same writer, same settings: the image is what a
	 * build without --reuse gives); 1: it is not (the image is sound, but
	 * differs from such a build).
	 */
	int differs;
};

struct sqk_reuse;

/* An empty set of images for a build with these settings (as sqk_reuse_check takes them). */
int sqk_reuse_create(const struct sqk_codec *codec, const struct sqk_comp_config *comp,
		     uint32_t block_size, int raw_data, int raw_fragments, struct sqk_reuse **r);
void sqk_reuse_destroy(struct sqk_reuse *r);
/*
 * Index img, which stays the caller's, open until sqk_reuse_destroy.
 * SQK_ERR_ARG when sqk_reuse_check refuses it (the caller says why first);
 * entries it cannot read are skipped and counted; otherwise only running
 * out of memory fails.
 */
int sqk_reuse_add(struct sqk_reuse *r, struct sqk_image *img);
size_t sqk_reuse_count(const struct sqk_reuse *r);
const struct sqk_reuse_stats *sqk_reuse_stats(const struct sqk_reuse *r, size_t i);

/*
 * Image paths as keys, a component at a time from the root's: the same
 * path gives the same key in every image and every source.
 */
#define SQK_REUSE_ROOT_KEY 0x5851e7a3c0ffee11ull
uint64_t sqk_reuse_key(uint64_t dir, const char *name, size_t len);
/* The key of name in dir, a directory of the writer's tree (its value). */
uint64_t sqk_reuse_entry_key(const struct sqk_node *dir, const char *name, size_t len);

/* ---- for the block pipeline (data_reuse.c) ---- */

/* A file of an earlier image: where its blocks and its tail are. */
struct sqk_reuse_file {
	uint64_t size, blocks_start;
	const uint32_t *words; /* nblocks size words */
	uint32_t nblocks, frag, frag_offset;
	unsigned img;
};

/*
 * Up to max files that may hold what the file at key (0: none known) of
 * size bytes holds: the files at its path in each image, then (unless one
 * of those has its size) files of its size. Their data blocks are left out
 * when data is not reused, their tails when fragments are not.
 */
size_t sqk_reuse_files(const struct sqk_reuse *r, uint64_t key, uint64_t size,
		       struct sqk_reuse_file *out, size_t max);
/*
 * Fragment block idx of image img: where it is, its size word, and its
 * length (the end of the last tail in it, which its bytes must match).
 * SQK_ERR_NOENT when it cannot serve. Its entry is read from the image's
 * fragment table the first time (one thread at a time).
 */
int sqk_reuse_fragment(struct sqk_reuse *r, unsigned img, uint32_t idx, uint64_t *start,
		       uint32_t *word, uint32_t *len);
struct sqk_blocks *sqk_reuse_blocks(const struct sqk_reuse *r, unsigned img);
struct sqk_reuse_stats *sqk_reuse_stats_rw(struct sqk_reuse *r, unsigned img);
uint32_t sqk_reuse_block_size(const struct sqk_reuse *r);

#endif
