// SPDX-License-Identifier: BSD-2-Clause
#include "fmt_dir.h"
#include "format.h"
#include "util/error.h"
#include "util/le.h"

void sqk_fmt_dir_header_decode(const uint8_t *raw, struct sqk_fmt_dir_header *h)
{
	h->count = (uint64_t)get_le32(raw) + 1;
	h->start = get_le32(raw + 4);
	h->base = get_le32(raw + 8);
}

void sqk_fmt_dir_header_encode(const struct sqk_fmt_dir_header *h, uint8_t *raw)
{
	put_le32(raw, (uint32_t)(h->count - 1));
	put_le32(raw + 4, h->start);
	put_le32(raw + 8, h->base);
}

void sqk_fmt_dir_entry_decode(const uint8_t *raw, struct sqk_fmt_dir_entry *e)
{
	e->offset = get_le16(raw);
	e->delta = (int16_t)get_le16(raw + 2);
	e->type = get_le16(raw + 4);
	e->name_size = (uint32_t)get_le16(raw + 6) + 1;
}

void sqk_fmt_dir_entry_encode(const struct sqk_fmt_dir_entry *e, uint8_t *raw)
{
	put_le16(raw, e->offset);
	put_le16(raw + 2, (uint16_t)e->delta);
	put_le16(raw + 4, e->type);
	put_le16(raw + 6, (uint16_t)(e->name_size - 1));
}

void sqk_fmt_dir_index_decode(const uint8_t *raw, struct sqk_fmt_dir_index *x)
{
	x->offset = get_le32(raw);
	x->start = get_le32(raw + 4);
	x->name_size = (uint64_t)get_le32(raw + 8) + 1;
}

void sqk_fmt_dir_index_encode(const struct sqk_fmt_dir_index *x, uint8_t *raw)
{
	put_le32(raw, x->offset);
	put_le32(raw + 4, x->start);
	put_le32(raw + 8, (uint32_t)(x->name_size - 1));
}

uint32_t sqk_fmt_dir_index_block_offset(uint32_t dir_offset, const struct sqk_fmt_dir_index *x)
{
	return (uint32_t)(((uint64_t)dir_offset + x->offset) % SQK_META_SIZE);
}

int sqk_fmt_dir_header_check(const struct sqk_fmt_dir_header *h, struct sqk_fmt_report *r)
{
	/* Stored minus one: 0xffffffff must not wrap to 0 entries. */
	if (h->count == 0 || h->count > SQK_DIR_HDR_MAX) {
		sqk_fmt_fail(r, "count", h->count, "is outside 1..256");
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

int sqk_fmt_dir_entry_check_size(const struct sqk_fmt_dir_entry *e, struct sqk_fmt_report *r)
{
	if (e->name_size == 0 || e->name_size > SQK_NAME_MAX) {
		sqk_fmt_fail(r, "name_size", e->name_size, "is outside 1..256");
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

int sqk_fmt_dir_entry_check(const struct sqk_fmt_dir_entry *e, const struct sqk_fmt_dir_header *h,
			    const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r)
{
	int64_t number = sqk_fmt_dir_entry_number(h, e);
	int bad = 0;

	if (e->type < SQK_DIR || e->type > SQK_SOCKET)
		SQK_FMT_FAIL("type", e->type, "is not a basic inode type");
	if (number < 1 || number > lim->inode_count)
		SQK_FMT_FAIL("inode_number", (uint64_t)number, "is outside 1..inode_count");
	if (e->offset >= SQK_META_SIZE)
		SQK_FMT_FAIL("offset", e->offset, "is beyond a metadata block");
	return bad ? SQK_ERR_CORRUPT : 0;
}

int sqk_fmt_dir_index_check_size(const struct sqk_fmt_dir_index *x, struct sqk_fmt_report *r)
{
	if (x->name_size == 0 || x->name_size > SQK_NAME_MAX) {
		sqk_fmt_fail(r, "name_size", x->name_size, "is outside 1..256");
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

int sqk_fmt_dir_index_check(const struct sqk_fmt_dir_index *x, const struct sqk_fmt_dir_index *prev,
			    uint32_t listing, struct sqk_fmt_report *r)
{
	int bad = 0;

	if (x->offset >= listing)
		SQK_FMT_FAIL("offset", x->offset, "is beyond the listing");
	if (prev && x->offset <= prev->offset)
		SQK_FMT_FAIL("offset", x->offset, "does not come after the entry before it");
	return bad ? SQK_ERR_CORRUPT : 0;
}
