// SPDX-License-Identifier: BSD-2-Clause
#include <string.h>

#include "fmt_xattr.h"
#include "util/error.h"
#include "util/le.h"

static const struct {
	const char *prefix;
	size_t len;
} prefixes[] = {
	[SQK_XATTR_USER] = {"user.", 5},
	[SQK_XATTR_TRUSTED] = {"trusted.", 8},
	[SQK_XATTR_SECURITY] = {"security.", 9},
};

void sqk_fmt_xattr_key_decode(struct sqk_fmt_xattr_key *k, const uint8_t *raw)
{
	k->type = get_le16(raw);
	k->name_size = get_le16(raw + 2);
}

void sqk_fmt_xattr_key_encode(const struct sqk_fmt_xattr_key *k, uint8_t *raw)
{
	put_le16(raw, k->type);
	put_le16(raw + 2, k->name_size);
}

int sqk_fmt_xattr_key_check(const struct sqk_fmt_xattr_key *k, struct sqk_fmt_report *r)
{
	int ret = 0;

	if ((k->type & SQK_XATTR_PREFIX_MASK) > SQK_XATTR_SECURITY ||
	    (k->type & ~(SQK_XATTR_PREFIX_MASK | SQK_XATTR_OOL))) {
		ret = SQK_ERR_CORRUPT;
		if (sqk_fmt_fail(r, "type", k->type, "is not a known prefix"))
			return ret;
	}
	if (k->name_size == 0 || k->name_size > SQK_FMT_XATTR_NAME_MAX) {
		ret = SQK_ERR_CORRUPT;
		sqk_fmt_fail(r, "name_size", k->name_size, "is not 1 to 255 bytes");
	}
	return ret;
}

const char *sqk_fmt_xattr_prefix(const struct sqk_fmt_xattr_key *k)
{
	unsigned t = k->type & SQK_XATTR_PREFIX_MASK;

	return t <= SQK_XATTR_SECURITY ? prefixes[t].prefix : "";
}

int sqk_fmt_xattr_type(const char *name, size_t *prefix_len)
{
	unsigned t;

	for (t = 0; t < sizeof(prefixes) / sizeof(prefixes[0]); t++) {
		if (strncmp(name, prefixes[t].prefix, prefixes[t].len) == 0) {
			*prefix_len = prefixes[t].len;
			return (int)t;
		}
	}
	return -1;
}

int sqk_fmt_xattr_name_check(const char *name, size_t len, struct sqk_fmt_report *r)
{
	if (!memchr(name, '\0', len))
		return 0;
	sqk_fmt_fail(r, "name", len, "holds a NUL byte");
	return SQK_ERR_CORRUPT;
}

uint32_t sqk_fmt_xattr_value_decode(const uint8_t *raw)
{
	return get_le32(raw);
}

void sqk_fmt_xattr_value_encode(uint8_t *raw, uint32_t size)
{
	put_le32(raw, size);
}

int sqk_fmt_xattr_value_check(uint32_t size, int ool, struct sqk_fmt_report *r)
{
	if (ool && size != SQK_FMT_XATTR_REF_SIZE) {
		sqk_fmt_fail(r, "value_size", size, "is not 8: an out-of-line value's reference");
		return SQK_ERR_CORRUPT;
	}
	if (size > SQK_FMT_XATTR_VALUE_MAX) {
		sqk_fmt_fail(r, "value_size", size, "is more than 64 KiB");
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

uint64_t sqk_fmt_xattr_ref_decode(const uint8_t *raw)
{
	return get_le64(raw);
}

void sqk_fmt_xattr_ref_encode(uint8_t *raw, uint64_t ref)
{
	put_le64(raw, ref);
}
