/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_BLOCK_H
#define SQK_FMT_BLOCK_H

/*
 * A data or fragment block's size word: the stored size in the low 24
 * bits, bit 24 set when the block is stored uncompressed, 0 for a hole (a
 * block of zeros stored nowhere). The reader, fsck and the writer use these
 * accessors and the one check below, never the bits themselves, so that
 * none of them can read or write a word the others take otherwise.
 */
#include <stdint.h>

#include "format.h"

/* The bytes the block takes in the image; 0 for a hole. */
static inline uint32_t sqk_fmt_block_size(uint32_t word)
{
	return word & SQK_BLOCK_SIZE_MASK;
}

/* Stored as it is, not compressed. */
static inline int sqk_fmt_block_raw(uint32_t word)
{
	return (word & SQK_BLOCK_UNCOMPRESSED) != 0;
}

/* A hole: nothing stored, the block reads as zeros. */
static inline int sqk_fmt_block_sparse(uint32_t word)
{
	return sqk_fmt_block_size(word) == 0;
}

/* The word for size stored bytes, raw when stored uncompressed. */
static inline uint32_t sqk_fmt_block_word(uint32_t size, int raw)
{
	return (size & SQK_BLOCK_SIZE_MASK) | (raw ? SQK_BLOCK_UNCOMPRESSED : 0);
}

/* What is wrong with a word, by sqk_fmt_block_check(). */
enum sqk_fmt_block_rule {
	SQK_FMT_BLOCK_SOUND = 0,
	SQK_FMT_BLOCK_BITS,    /* bits above the raw flag, or a hole flagged raw */
	SQK_FMT_BLOCK_TOO_BIG, /* stores more than a block */
	SQK_FMT_BLOCK_RAW_LEN, /* stored raw, but not the len bytes the block holds */
};

/* For a block whose length the caller does not know (a fragment block). */
#define SQK_FMT_BLOCK_ANY_LEN 0

/*
 * The rule for a size word: no bits above the raw flag, no raw hole, at
 * most block_size stored bytes, and a block stored raw is exactly the len
 * bytes the file needs there (unless len is SQK_FMT_BLOCK_ANY_LEN).
 */
static inline enum sqk_fmt_block_rule sqk_fmt_block_check(uint32_t word, uint32_t block_size,
							  uint32_t len)
{
	uint32_t size = sqk_fmt_block_size(word);

	if (word & ~(SQK_BLOCK_SIZE_MASK | SQK_BLOCK_UNCOMPRESSED))
		return SQK_FMT_BLOCK_BITS;
	if (word == SQK_BLOCK_UNCOMPRESSED)
		return SQK_FMT_BLOCK_BITS;
	if (size > block_size)
		return SQK_FMT_BLOCK_TOO_BIG;
	if (sqk_fmt_block_raw(word) && len != SQK_FMT_BLOCK_ANY_LEN && size != len)
		return SQK_FMT_BLOCK_RAW_LEN;
	return SQK_FMT_BLOCK_SOUND;
}

/*
 * A stored block lies wholly in the data area [start, end): after the
 * superblock and compressor options, before the inode table. A hole (size
 * 0) is stored nowhere, so its position says nothing: writers leave
 * blocks_start 0 for a file that is all holes, and the kernel reads that.
 */
static inline int sqk_fmt_block_in_area(uint64_t pos, uint32_t size, uint64_t start, uint64_t end)
{
	return size == 0 || (pos >= start && pos <= end && size <= end - pos);
}

/*
 * The length of block index of a file of file_size bytes: a block, or
 * what is left for the last one.
 */
static inline uint32_t sqk_fmt_block_len(uint64_t file_size, uint64_t index, uint32_t block_size)
{
	uint64_t left = file_size - index * block_size;

	return left < block_size ? (uint32_t)left : block_size;
}

#endif
