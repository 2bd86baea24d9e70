// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "format/fmt_table.h"
#include "format/fmt_xattr.h"
#include "format/format.h"
#include "image.h"
#include "meta.h"
#include "util/error.h"
#include "xattr.h"

/* A value record: its size, then the bytes. */
static int read_value(struct sqk_meta_cursor *m, struct sqk_xattr *x)
{
	uint8_t raw[SQK_FMT_XATTR_VALUE_SIZE];
	int err;

	err = sqk_meta_read(m, raw, sizeof(raw));
	if (err)
		return err;
	x->value_len = sqk_fmt_xattr_value_decode(raw);
	err = sqk_fmt_xattr_value_check(x->value_len, 0, NULL);
	if (err)
		return err;
	x->value = malloc(x->value_len ? x->value_len : 1);
	if (!x->value)
		return SQK_ERR_NOMEM;
	return sqk_meta_read(m, x->value, x->value_len);
}

/* Out of line: a value record holding a reference to where the value is stored. */
static int read_ool_value(struct sqk_image *img, struct sqk_meta_cursor *m, uint64_t kv_start,
			  struct sqk_xattr *x)
{
	uint8_t raw[SQK_FMT_XATTR_REF_SIZE];
	struct sqk_meta_cursor v;
	uint64_t ref;
	int err;

	x->out_of_line = 1;
	err = sqk_meta_read(m, raw, SQK_FMT_XATTR_VALUE_SIZE);
	if (!err)
		err = sqk_fmt_xattr_value_check(sqk_fmt_xattr_value_decode(raw), 1, NULL);
	if (!err)
		err = sqk_meta_read(m, raw, SQK_FMT_XATTR_REF_SIZE);
	if (err)
		return err;
	ref = sqk_fmt_xattr_ref_decode(raw);
	/*
	 * Hold no metadata block while getting another: threads that each
	 * hold one entry and wait for a second can fill a small cache and
	 * wait on each other for ever. The cursor keeps its place.
	 */
	sqk_meta_release(m);
	err = sqk_meta_seek(&v, img, kv_start, SQK_REF_BLOCK(ref), SQK_REF_OFFSET(ref));
	if (!err)
		err = read_value(&v, x);
	sqk_meta_release(&v);
	return err;
}

static int read_pair(struct sqk_image *img, struct sqk_meta_cursor *m, uint64_t kv_start,
		     struct sqk_xattr *x)
{
	uint8_t raw[SQK_FMT_XATTR_KEY_SIZE];
	struct sqk_fmt_xattr_key k;
	const char *prefix;
	size_t plen;
	int err;

	err = sqk_meta_read(m, raw, sizeof(raw));
	if (err)
		return err;
	sqk_fmt_xattr_key_decode(&k, raw);
	err = sqk_fmt_xattr_key_check(&k, NULL);
	if (err)
		return err;
	prefix = sqk_fmt_xattr_prefix(&k);
	plen = strlen(prefix);
	x->name = malloc(plen + k.name_size + 1);
	if (!x->name)
		return SQK_ERR_NOMEM;
	memcpy(x->name, prefix, plen);
	err = sqk_meta_read(m, x->name + plen, k.name_size);
	if (err)
		return err;
	x->name[plen + k.name_size] = '\0';
	err = sqk_fmt_xattr_name_check(x->name + plen, k.name_size, NULL);
	if (err)
		return err;
	if (sqk_fmt_xattr_ool(&k))
		return read_ool_value(img, m, kv_start, x);
	return read_value(m, x);
}

int sqk_xattr_read(struct sqk_image *img, uint32_t idx, struct sqk_xattr **list, uint32_t *count)
{
	const struct sqk_layout *l = sqk_image_layout(img);
	uint8_t raw[SQK_FMT_XATTR_ID_SIZE];
	struct sqk_fmt_xattr_id id;
	struct sqk_meta_cursor m;
	struct sqk_xattr *xs = NULL;
	uint32_t n = 0, cap = 0;
	int err;

	*list = NULL;
	*count = 0;
	memset(&m, 0, sizeof(m));
	if (idx == SQK_INVALID_XATTR)
		return 0;
	err = sqk_meta_table_entry(img, SQK_TABLE_XATTR, idx, raw);
	if (err)
		return err;
	sqk_fmt_xattr_id_decode(&id, raw);
	err = sqk_fmt_xattr_id_check(&id, l->kv_end - l->kv_start, NULL);
	if (!err)
		err = sqk_meta_seek(&m, img, l->kv_start, SQK_REF_BLOCK(id.ref),
				    SQK_REF_OFFSET(id.ref));
	/* The list grows with the pairs read: memory follows what the area holds. */
	while (!err && n < id.count) {
		if (n == cap) {
			uint32_t ncap = cap ? cap * 2 : 8;
			struct sqk_xattr *p = realloc(xs, (size_t)ncap * sizeof(*p));

			if (!p) {
				err = SQK_ERR_NOMEM;
				break;
			}
			memset(p + cap, 0, (size_t)(ncap - cap) * sizeof(*p));
			xs = p;
			cap = ncap;
		}
		err = read_pair(img, &m, l->kv_start, &xs[n++]);
	}
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
