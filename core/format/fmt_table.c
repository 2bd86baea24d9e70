// SPDX-License-Identifier: BSD-2-Clause
#include "fmt_block.h"
#include "fmt_table.h"
#include "util/error.h"
#include "util/le.h"

uint32_t sqk_fmt_id_decode(const uint8_t *raw)
{
	return get_le32(raw);
}

void sqk_fmt_id_encode(uint8_t *raw, uint32_t id)
{
	put_le32(raw, id);
}

uint64_t sqk_fmt_export_decode(const uint8_t *raw)
{
	return get_le64(raw);
}

void sqk_fmt_export_encode(uint8_t *raw, uint64_t ref)
{
	put_le64(raw, ref);
}

void sqk_fmt_frag_decode(struct sqk_fmt_frag *e, const uint8_t *raw)
{
	e->start = get_le64(raw);
	e->size = get_le32(raw + 8);
	e->unused = get_le32(raw + 12);
}

void sqk_fmt_frag_encode(const struct sqk_fmt_frag *e, uint8_t *raw)
{
	put_le64(raw, e->start);
	put_le32(raw + 8, e->size);
	put_le32(raw + 12, e->unused);
}

int sqk_fmt_frag_check(const struct sqk_fmt_frag *e, uint32_t block_size, uint64_t area_start,
		       uint64_t area_end, struct sqk_fmt_report *r)
{
	uint32_t size = sqk_fmt_block_size(e->size);

	/* The data block rule; stored raw, a fragment block may hold any length. */
	if (size == 0 || sqk_fmt_block_check(e->size, block_size, SQK_FMT_BLOCK_ANY_LEN)) {
		sqk_fmt_fail(r, "size", e->size, "is not a fragment block's size word");
		return SQK_ERR_CORRUPT;
	}
	if (!sqk_fmt_block_in_area(e->start, size, area_start, area_end)) {
		sqk_fmt_fail(r, "start", e->start, "does not put the block inside the data area");
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

void sqk_fmt_xattr_id_decode(struct sqk_fmt_xattr_id *e, const uint8_t *raw)
{
	e->ref = get_le64(raw);
	e->count = get_le32(raw + 8);
	e->size = get_le32(raw + 12);
}

void sqk_fmt_xattr_id_encode(const struct sqk_fmt_xattr_id *e, uint8_t *raw)
{
	put_le64(raw, e->ref);
	put_le32(raw + 8, e->count);
	put_le32(raw + 12, e->size);
}

int sqk_fmt_xattr_id_check(const struct sqk_fmt_xattr_id *e, uint64_t kv_size,
			   struct sqk_fmt_report *r)
{
	int ret = 0;

	if (e->count == 0) {
		ret = SQK_ERR_CORRUPT;
		if (sqk_fmt_fail(r, "count", 0, "is 0: the set has no pairs"))
			return ret;
	}
	if (SQK_REF_BLOCK(e->ref) >= kv_size || SQK_REF_OFFSET(e->ref) >= SQK_META_SIZE) {
		ret = SQK_ERR_CORRUPT;
		sqk_fmt_fail(r, "ref", e->ref, "is outside the key/value area");
	}
	return ret;
}

void sqk_fmt_xattr_table_decode(struct sqk_fmt_xattr_table *h, const uint8_t *raw)
{
	h->kv_start = get_le64(raw);
	h->count = get_le32(raw + 8);
	h->unused = get_le32(raw + 12);
}

void sqk_fmt_xattr_table_encode(const struct sqk_fmt_xattr_table *h, uint8_t *raw)
{
	put_le64(raw, h->kv_start);
	put_le32(raw + 8, h->count);
	put_le32(raw + 12, h->unused);
}

int sqk_fmt_xattr_table_check(const struct sqk_fmt_xattr_table *h, uint64_t lo, uint64_t table,
			      struct sqk_fmt_report *r)
{
	if (h->kv_start >= lo && h->kv_start <= table)
		return 0;
	sqk_fmt_fail(r, "kv_start", h->kv_start,
		     "is not between the table before it and the xattr table's header");
	return SQK_ERR_CORRUPT;
}

uint64_t sqk_fmt_lookup_decode(const uint8_t *raw)
{
	return get_le64(raw);
}

void sqk_fmt_lookup_encode(uint8_t *raw, uint64_t pos)
{
	put_le64(raw, pos);
}

uint64_t sqk_fmt_table_blocks(uint64_t entries, uint32_t entry_size)
{
	/* entries is at most 2^32 and entry_size 16: no overflow. */
	return (entries * entry_size + SQK_META_SIZE - 1) / SQK_META_SIZE;
}

uint32_t sqk_fmt_table_block_bytes(uint64_t entries, uint32_t entry_size, uint64_t i)
{
	uint64_t total = entries * entry_size, done = i * SQK_META_SIZE;

	if (done >= total)
		return 0;
	return total - done < SQK_META_SIZE ? (uint32_t)(total - done) : SQK_META_SIZE;
}

int sqk_fmt_span_check(const char *field, uint64_t pos, uint64_t len, uint64_t lo, uint64_t hi,
		       struct sqk_fmt_report *r)
{
	if (pos >= lo && pos <= hi && len <= hi - pos)
		return 0;
	sqk_fmt_fail(r, field, pos, "is not after the table before it and inside bytes_used");
	return SQK_ERR_CORRUPT;
}

int sqk_fmt_lookup_check(const char *field, const uint64_t *pos, uint64_t n, uint64_t lo,
			 uint64_t end, struct sqk_fmt_report *r)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint64_t min = i ? pos[i - 1] + SQK_FMT_META_MIN : lo;

		/* Checked in this order, pos[i - 1] + 3 cannot wrap: it is below end. */
		if (pos[i] < min || pos[i] > end || end - pos[i] < SQK_FMT_META_MIN) {
			sqk_fmt_fail(r, field, pos[i],
				     "is not a block after the one before it and before the list");
			return SQK_ERR_CORRUPT;
		}
	}
	return 0;
}

int sqk_fmt_table_block_check(uint64_t len, uint32_t want, uint64_t next, uint64_t expect,
			      struct sqk_fmt_report *r)
{
	int ret = 0;

	/* Readers find entry i at block i / per-block, offset i % per-block. */
	if (len != want) {
		ret = SQK_ERR_CORRUPT;
		if (sqk_fmt_fail(r, "length", len, "is not what the table's entries fill"))
			return ret;
	}
	if (next != expect) {
		ret = SQK_ERR_CORRUPT;
		sqk_fmt_fail(r, "next", next,
			     "is not where the next block, or after the last the list, starts");
	}
	return ret;
}

int sqk_fmt_tables_end_check(uint64_t end, uint64_t bytes_used, struct sqk_fmt_report *r)
{
	if (end == bytes_used)
		return 0;
	sqk_fmt_fail(r, "bytes_used", bytes_used, "is not where the last table ends");
	return SQK_ERR_CORRUPT;
}
