// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "format.h"
#include "image.h"
#include "le.h"
#include "meta.h"
#include "xattr.h"

/* Linux caps a value at 64 KiB; nothing larger is ever written or read. */
#define XATTR_VALUE_MAX 65536

static const char *const prefixes[] = {"user.", "trusted.", "security."};

static int read_value(struct sqk_meta_cursor *m, struct sqk_xattr *x)
{
	uint8_t raw[4];
	int err;

	err = sqk_meta_read(m, raw, 4);
	if (err)
		return err;
	x->value_len = get_le32(raw);
	if (x->value_len > XATTR_VALUE_MAX)
		return SQK_ERR_CORRUPT;
	x->value = malloc(x->value_len ? x->value_len : 1);
	if (!x->value)
		return SQK_ERR_NOMEM;
	return sqk_meta_read(m, x->value, x->value_len);
}

static int read_pair(struct sqk_image *img, struct sqk_meta_cursor *m, uint64_t kv_start,
		     struct sqk_xattr *x)
{
	uint8_t raw[8];
	unsigned type, prefix;
	uint32_t name_len;
	size_t plen;
	int err;

	err = sqk_meta_read(m, raw, 4);
	if (err)
		return err;
	type = get_le16(raw);
	name_len = get_le16(raw + 2);
	prefix = type & SQFS_XATTR_PREFIX_MASK;
	if (prefix > SQFS_XATTR_SECURITY || (type & ~(SQFS_XATTR_PREFIX_MASK | SQFS_XATTR_OOL)) ||
	    name_len == 0 || name_len > 255)
		return SQK_ERR_CORRUPT;
	plen = strlen(prefixes[prefix]);
	x->name = malloc(plen + name_len + 1);
	if (!x->name)
		return SQK_ERR_NOMEM;
	memcpy(x->name, prefixes[prefix], plen);
	err = sqk_meta_read(m, x->name + plen, name_len);
	if (err)
		return err;
	x->name[plen + name_len] = '\0';
	if (memchr(x->name, '\0', plen + name_len))
		return SQK_ERR_CORRUPT;
	if (!(type & SQFS_XATTR_OOL))
		return read_value(m, x);

	/* Out of line: an 8-byte reference to where the value is stored. */
	x->out_of_line = 1;
	{
		struct sqk_meta_cursor v;
		uint64_t ref;

		err = sqk_meta_read(m, raw, 4);
		if (!err && get_le32(raw) != 8)
			err = SQK_ERR_CORRUPT;
		if (!err)
			err = sqk_meta_read(m, raw, 8);
		if (err)
			return err;
		ref = get_le64(raw);
		/*
		 * Hold no metadata block while getting another: threads that each
		 * hold one entry and wait for a second can fill a small cache and
		 * wait on each other for ever. The cursor keeps its place.
		 */
		sqk_meta_release(m);
		err = sqk_meta_seek(&v, img, kv_start, SQFS_REF_BLOCK(ref), SQFS_REF_OFFSET(ref));
		if (!err)
			err = read_value(&v, x);
		sqk_meta_release(&v);
		return err;
	}
}

int sqk_xattr_read(struct sqk_image *img, uint32_t idx, struct sqk_xattr **list, uint32_t *count)
{
	const struct sqk_lookup_table *t = sqk_image_lookup(img, SQK_TABLE_XATTR);
	uint8_t raw[SQFS_XATTR_ID_SIZE];
	struct sqk_meta_cursor m;
	struct sqk_xattr *xs;
	uint64_t kv_start, ref;
	uint32_t n, total, i;
	int err;

	*list = NULL;
	*count = 0;
	if (idx == SQFS_INVALID_XATTR)
		return 0;
	sqk_image_xattr_info(img, &kv_start, &total);
	if (idx >= total)
		return SQK_ERR_CORRUPT;
	err = sqk_meta_table_entry(img, t->pos, t->count, SQFS_XATTR_ID_SIZE, idx, raw);
	if (err)
		return err;
	ref = get_le64(raw);
	n = get_le32(raw + 8);
	/* Every pair takes at least 9 bytes, which bounds n by the table's size. */
	if (n == 0)
		return 0;
	if (n > (sqk_image_table_end(img, kv_start) - kv_start) * 8 || n > 65536)
		return SQK_ERR_CORRUPT;
	xs = calloc(n, sizeof(*xs));
	if (!xs)
		return SQK_ERR_NOMEM;
	err = sqk_meta_seek(&m, img, kv_start, SQFS_REF_BLOCK(ref), SQFS_REF_OFFSET(ref));
	for (i = 0; !err && i < n; i++)
		err = read_pair(img, &m, kv_start, &xs[i]);
	sqk_meta_release(&m);
	if (err) {
		sqk_xattr_free(xs, n);
		return err;
	}
	*list = xs;
	*count = n;
	return 0;
}

void sqk_xattr_free(struct sqk_xattr *list, uint32_t count)
{
	uint32_t i;

	for (i = 0; list && i < count; i++) {
		free(list[i].name);
		free(list[i].value);
	}
	free(list);
}
