/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_BLOCK_H
#define SQK_BLOCK_H

/*
 * The block layer, as the kernel's block.c: read a block's compressed
 * bytes and decompress them, and the fills through which the caches get
 * metadata, data and fragment blocks. It sits under the image (which owns
 * it, the file and the caches) and over the file and the compressors;
 * nothing here knows about tables. Safe to use from several threads.
 */
#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"
#include "compressors/compressor.h"
#include "format/fmt_check.h"
#include "util/file.h"

struct sqk_blocks;

/*
 * A block layer over file, of which bytes_used bytes belong to the image,
 * with decompressors (at least 1) instances of the codec set up by comp,
 * shared by every fill. comp_cache (may be NULL) keeps compressed blocks
 * in front of the file.
 *
 * strict 0 decodes as readers do, with the codec's fast decoder. strict 1
 * (fsck) decodes as the kernel does (the codec's decompress_kernel, when it
 * has one); a block the kernel's decoder refuses is then read as readers
 * read it, and remembered: sqk_blocks_refused() names it.
 */
int sqk_blocks_create(struct sqk_file *file, uint64_t bytes_used, uint32_t block_size,
		      const struct sqk_codec *codec, const struct sqk_comp_config *comp,
		      unsigned decompressors, int strict, struct sqk_cache *comp_cache,
		      struct sqk_blocks **out);
void sqk_blocks_destroy(struct sqk_blocks *b);

/*
 * 1 when the block at pos was read only because the readers' decoder reads
 * it: the kernel's refused it (strict layers only).
 */
int sqk_blocks_refused(struct sqk_blocks *b, uint64_t pos);

/* Read len bytes at pos; SQK_ERR_CORRUPT past bytes_used. */
int sqk_blocks_pread(struct sqk_blocks *b, uint64_t pos, void *buf, size_t len);
/* Blocks decompressed so far, by every fill. */
uint64_t sqk_blocks_decompressions(const struct sqk_blocks *b);

/*
 * Read the block at pos and decompress it into dst (cap bytes). size_word
 * is a data block size word (bit 24 = stored raw); a metadata header is
 * turned into one with sqk_fmt_meta_word().
 */
int sqk_block_read(struct sqk_blocks *b, uint64_t pos, uint32_t size_word, uint8_t *dst, size_t cap,
		   size_t *outlen);

/*
 * Decompress a block whose stored bytes the caller has read (size_word's
 * size of them at src), with the decompressors of sqk_block_read: for a
 * caller that keeps the stored bytes it checked. It always decodes as the
 * kernel does, whatever the layer's mode: bytes copied from one image into
 * another (mkimage --reuse) must read in the kernel, so a block only the
 * readers' decoder reads is SQK_ERR_COMPRESSOR here.
 */
int sqk_block_decode(struct sqk_blocks *b, const uint8_t *src, uint32_t size_word, uint8_t *dst,
		     size_t cap, size_t *outlen);

/* The metadata block at pos through the cache meta; e->next is the block after it. */
int sqk_block_meta(struct sqk_blocks *b, struct sqk_cache *meta, uint64_t pos,
		   struct sqk_cache_entry **e);

/*
 * The data or fragment block at pos with size word word through cache.
 * expect is the length it must decompress to (0: any, for fragments).
 */
int sqk_block_data(struct sqk_blocks *b, struct sqk_cache *cache, uint64_t pos, uint32_t word,
		   uint32_t expect, struct sqk_cache_entry **e);

/*
 * One metadata block read without a block layer, for what is read before
 * there is one (the options block, fsck's tables): the block at pos of
 * file, ending by end, decompressed with c into dst (8 KiB). *next is the
 * block after it. Broken header rules go to r; the error returned is
 * SQK_ERR_CORRUPT for those, or the read's or the decompressor's.
 * refused NULL decodes as readers do; otherwise as a strict layer does,
 * and *refused says whether the kernel's decoder refused the block.
 */
int sqk_block_load_meta(struct sqk_file *file, uint64_t end, struct sqk_compressor *c, uint64_t pos,
			uint8_t *dst, uint32_t *len, uint64_t *next, struct sqk_fmt_report *r,
			int *refused);

#endif
