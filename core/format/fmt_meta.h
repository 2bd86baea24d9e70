/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_META_H
#define SQK_FMT_META_H

/*
 * The metadata block header: 2 bytes in front of every metadata block,
 * the stored size (1..8192) with bit 15 set when the block is stored
 * uncompressed. The compressor options block is framed the same way, right
 * after the superblock. Its rules report under the field name "size" (for
 * the options block, "options"): the strict reader stops at the first,
 * fsck words each for the table it is reading.
 */
#include <stdint.h>

#include "fmt_block.h"
#include "fmt_check.h"
#include "format.h"

#define SQK_FMT_META_HDR_SIZE 2

struct sqk_fmt_meta_hdr {
	uint32_t size; /* stored bytes after the header */
	int raw;       /* stored uncompressed */
};

void sqk_fmt_meta_hdr_decode(struct sqk_fmt_meta_hdr *h, const uint8_t raw[2]);
void sqk_fmt_meta_hdr_encode(const struct sqk_fmt_meta_hdr *h, uint8_t raw[2]);

/* The header as a data block's size word (bit 24 = raw), for the block layer. */
static inline uint32_t sqk_fmt_meta_word(const struct sqk_fmt_meta_hdr *h)
{
	return sqk_fmt_block_word(h->size, h->raw);
}

/* A block's header at pos must fit before end. */
int sqk_fmt_meta_pos_check(uint64_t pos, uint64_t end, struct sqk_fmt_report *r);
/* The header's size is 1..8192 and the block at pos ends by end. */
int sqk_fmt_meta_hdr_check(const struct sqk_fmt_meta_hdr *h, uint64_t pos, uint64_t end,
			   struct sqk_fmt_report *r);
/* A metadata block decompresses to 1..8192 bytes. */
int sqk_fmt_meta_len_check(uint64_t len, struct sqk_fmt_report *r);

/* Where the block after the one at pos starts. */
static inline uint64_t sqk_fmt_meta_next(const struct sqk_fmt_meta_hdr *h, uint64_t pos)
{
	return pos + SQK_FMT_META_HDR_SIZE + h->size;
}

/*
 * The compressor options block: a metadata block at SQK_SUPER_SIZE, there
 * exactly when the superblock's flag says so. Given its header (NULL when
 * the flag is clear), the first byte after it: where the data area starts.
 * Its rules report as "options"; the check is for an image whose flag is
 * set, with h NULL when bytes_used leaves no room for the header.
 */
#define SQK_FMT_OPTIONS_POS SQK_SUPER_SIZE
int sqk_fmt_options_check(const struct sqk_fmt_meta_hdr *h, uint64_t bytes_used,
			  struct sqk_fmt_report *r);
uint64_t sqk_fmt_data_start(const struct sqk_fmt_meta_hdr *h);

#endif
