// SPDX-License-Identifier: BSD-2-Clause
#include "fmt_meta.h"
#include "util/error.h"
#include "util/le.h"

void sqk_fmt_meta_hdr_decode(struct sqk_fmt_meta_hdr *h, const uint8_t raw[2])
{
	uint16_t v = get_le16(raw);

	h->size = v & SQK_META_SIZE_MASK;
	h->raw = !!(v & SQK_META_UNCOMPRESSED);
}

void sqk_fmt_meta_hdr_encode(const struct sqk_fmt_meta_hdr *h, uint8_t raw[2])
{
	put_le16(raw,
		 (uint16_t)((h->size & SQK_META_SIZE_MASK) | (h->raw ? SQK_META_UNCOMPRESSED : 0)));
}

int sqk_fmt_meta_pos_check(uint64_t pos, uint64_t end, struct sqk_fmt_report *r)
{
	if (pos <= end && end - pos >= SQK_FMT_META_HDR_SIZE)
		return 0;
	sqk_fmt_fail(r, "position", pos, "leaves no room for a header before the end");
	return SQK_ERR_CORRUPT;
}

int sqk_fmt_meta_hdr_check(const struct sqk_fmt_meta_hdr *h, uint64_t pos, uint64_t end,
			   struct sqk_fmt_report *r)
{
	/* A block of 0 bytes, or more than 8 KiB stored, is never written. */
	if (h->size == 0 || h->size > SQK_META_SIZE) {
		sqk_fmt_fail(r, "size", h->size, "is not 1 to 8192 bytes");
		return SQK_ERR_CORRUPT;
	}
	if (pos > end || end - pos < SQK_FMT_META_HDR_SIZE + (uint64_t)h->size) {
		sqk_fmt_fail(r, "size", h->size, "runs past the end");
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

int sqk_fmt_meta_len_check(uint64_t len, struct sqk_fmt_report *r)
{
	if (len >= 1 && len <= SQK_META_SIZE)
		return 0;
	sqk_fmt_fail(r, "length", len, "is not 1 to 8192 bytes decompressed");
	return SQK_ERR_CORRUPT;
}

int sqk_fmt_options_check(const struct sqk_fmt_meta_hdr *h, uint64_t bytes_used,
			  struct sqk_fmt_report *r)
{
	if (!h || bytes_used < SQK_FMT_OPTIONS_POS + SQK_FMT_META_HDR_SIZE) {
		sqk_fmt_fail(r, "options", bytes_used, "block does not fit before bytes_used");
		return SQK_ERR_CORRUPT;
	}
	if (h->size == 0 || h->size > SQK_META_SIZE) {
		sqk_fmt_fail(r, "options", h->size, "block size is not 1 to 8192 bytes");
		return SQK_ERR_CORRUPT;
	}
	if (bytes_used < SQK_FMT_OPTIONS_POS + SQK_FMT_META_HDR_SIZE + (uint64_t)h->size) {
		sqk_fmt_fail(r, "options", h->size, "block runs past bytes_used");
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

uint64_t sqk_fmt_data_start(const struct sqk_fmt_meta_hdr *h)
{
	return h ? sqk_fmt_meta_next(h, SQK_FMT_OPTIONS_POS) : SQK_FMT_OPTIONS_POS;
}
