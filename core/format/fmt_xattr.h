/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_XATTR_H
#define SQK_FMT_XATTR_H

/*
 * Extended attribute pairs in the key/value area: a key (type, name size,
 * the name without its prefix), then a value (size, bytes). The type's low
 * byte names the prefix (user., trusted., security.); bit 8 says the value
 * is stored out of line: the value record then holds an 8-byte reference
 * to where the value is stored once. Rules report under "type",
 * "name_size", "name" and "value_size".
 */
#include <stddef.h>
#include <stdint.h>

#include "fmt_check.h"
#include "format.h"

#define SQK_FMT_XATTR_KEY_SIZE	 4 /* type, name size; the name follows */
#define SQK_FMT_XATTR_VALUE_SIZE 4 /* value size; the value follows */
#define SQK_FMT_XATTR_REF_SIZE	 8 /* an out-of-line value's reference */
#define SQK_FMT_XATTR_NAME_MAX	 255
#define SQK_FMT_XATTR_VALUE_MAX	 65536 /* Linux's cap: nothing larger is written or read */

struct sqk_fmt_xattr_key {
	uint16_t type; /* prefix | SQK_XATTR_OOL */
	uint16_t name_size;
};

void sqk_fmt_xattr_key_decode(struct sqk_fmt_xattr_key *k, const uint8_t *raw);
void sqk_fmt_xattr_key_encode(const struct sqk_fmt_xattr_key *k, uint8_t *raw);
/* A known prefix, no other type bits, a name of 1..255 bytes. */
int sqk_fmt_xattr_key_check(const struct sqk_fmt_xattr_key *k, struct sqk_fmt_report *r);

static inline int sqk_fmt_xattr_ool(const struct sqk_fmt_xattr_key *k)
{
	return !!(k->type & SQK_XATTR_OOL);
}

/* The prefix a checked key's type names ("user."). */
const char *sqk_fmt_xattr_prefix(const struct sqk_fmt_xattr_key *k);
/*
 * The type whose prefix starts name, and that prefix's length; -1 when
 * name starts with none of them.
 */
int sqk_fmt_xattr_type(const char *name, size_t *prefix_len);
/* The name's bytes after the prefix hold no NUL. */
int sqk_fmt_xattr_name_check(const char *name, size_t len, struct sqk_fmt_report *r);

uint32_t sqk_fmt_xattr_value_decode(const uint8_t *raw);
void sqk_fmt_xattr_value_encode(uint8_t *raw, uint32_t size);
/*
 * A value record's size: at most 64 KiB; out of line (ool), exactly the
 * size of a reference.
 */
int sqk_fmt_xattr_value_check(uint32_t size, int ool, struct sqk_fmt_report *r);

uint64_t sqk_fmt_xattr_ref_decode(const uint8_t *raw);
void sqk_fmt_xattr_ref_encode(uint8_t *raw, uint64_t ref);

#endif
