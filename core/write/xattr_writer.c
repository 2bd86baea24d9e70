// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "format/fmt_table.h"
#include "format/fmt_xattr.h"
#include "format/format.h"
#include "meta_writer.h"
#include "table_writer.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hash.h"
#include "xattr_writer.h"

struct kv {
	uint16_t type;
	uint16_t name_len;
	uint32_t value_len;
	const char *name; /* without its prefix */
	const uint8_t *value;
	uint64_t hash; /* of the value */
};

struct sqk_xattr_set {
	struct sqk_xattr_set *next; /* every set, for freeing */
	uint64_t hash;
	uint32_t count;
	uint32_t id;
	struct kv *kv;
};

/* A value already written, for out-of-line references. */
struct value_ref {
	const struct kv *kv;
	uint64_t ref;
};

struct sqk_xattrs {
	struct sqk_hash sets; /* set hash -> struct sqk_xattr_set * */
	struct sqk_xattr_set *all;
	struct sqk_xattr_set **by_id;
	uint32_t nids;
	size_t ids_cap;
};

static uint64_t bytes_hash(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

struct sqk_xattrs *sqk_xattrs_create(void)
{
	struct sqk_xattrs *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	sqk_hash_init(&x->sets);
	return x;
}

void sqk_xattrs_destroy(struct sqk_xattrs *x)
{
	struct sqk_xattr_set *s, *next;

	if (!x)
		return;
	for (s = x->all; s; s = next) {
		next = s->next;
		free(s);
	}
	sqk_hash_release(&x->sets);
	free(x->by_id);
	free(x);
}

static int kv_cmp(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;
	int c;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	c = memcmp(x->name, y->name, x->name_len < y->name_len ? x->name_len : y->name_len);
	if (c)
		return c;
	return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

static int set_equal(const struct sqk_xattr_set *a, const struct sqk_xattr_set *b)
{
	uint32_t i;

	if (a->hash != b->hash || a->count != b->count)
		return 0;
	for (i = 0; i < a->count; i++) {
		const struct kv *x = &a->kv[i], *y = &b->kv[i];

		if (x->type != y->type || x->name_len != y->name_len ||
		    x->value_len != y->value_len || memcmp(x->name, y->name, x->name_len) ||
		    memcmp(x->value, y->value, x->value_len))
			return 0;
	}
	return 1;
}

int sqk_xattrs_intern(struct sqk_xattrs *x, const struct sqk_xattr_in *in, size_t n,
		      struct sqk_xattr_set **out, unsigned *skipped)
{
	size_t bytes = 0, i, plen = 0, count = 0;
	struct sqk_xattr_set *s;
	struct sqk_hash_iter it;
	uint64_t v;
	char *p;

	*out = NULL;
	for (i = 0; i < n; i++)
		bytes += strlen(in[i].name) + in[i].value_len;
	s = malloc(sizeof(*s) + n * sizeof(struct kv) + bytes + 1);
	if (!s)
		return SQK_ERR_NOMEM;
	s->kv = (struct kv *)(s + 1);
	p = (char *)(s->kv + n);
	for (i = 0; i < n; i++) {
		const char *name = in[i].name;
		struct kv *kv = &s->kv[count];
		int type = sqk_fmt_xattr_type(name, &plen);

		if (type < 0 || strlen(name) == plen || strlen(name) - plen > 0xffff ||
		    in[i].value_len > 0xffffffffu) {
			if (skipped)
				(*skipped)++;
			continue;
		}
		kv->type = (uint16_t)type;
		kv->name_len = (uint16_t)(strlen(name) - plen);
		memcpy(p, name + plen, kv->name_len);
		kv->name = p;
		p += kv->name_len;
		kv->value_len = (uint32_t)in[i].value_len;
		if (kv->value_len)
			memcpy(p, in[i].value, kv->value_len);
		kv->value = (const uint8_t *)p;
		p += kv->value_len;
		kv->hash = bytes_hash(0xcbf29ce484222325ull, kv->value, kv->value_len);
		count++;
	}
	if (!count) {
		free(s);
		return 0;
	}
	/* Listing order depends on the filesystem; sort for a stable image. */
	qsort(s->kv, count, sizeof(struct kv), kv_cmp);
	s->count = (uint32_t)count;
	s->id = SQK_INVALID_XATTR;
	s->hash = 0xcbf29ce484222325ull;
	for (i = 0; i < count; i++) {
		s->hash = bytes_hash(s->hash, &s->kv[i].type, 2);
		s->hash = bytes_hash(s->hash, s->kv[i].name, s->kv[i].name_len);
		s->hash ^= s->kv[i].hash * 31;
	}
	for (v = sqk_hash_first(&x->sets, s->hash, &it); v; v = sqk_hash_next(&it)) {
		struct sqk_xattr_set *o = (struct sqk_xattr_set *)(uintptr_t)v;

		if (set_equal(o, s)) {
			free(s);
			*out = o;
			return 0;
		}
	}
	if (sqk_hash_add(&x->sets, s->hash, (uintptr_t)s)) {
		free(s);
		return SQK_ERR_NOMEM;
	}
	s->next = x->all;
	x->all = s;
	*out = s;
	return 0;
}

/*
 * The attributes of set as the writer takes them in, into in[0..count):
 * their full names (the prefix put back) in *names (malloc'd). 0 or
 * SQK_ERR_NOMEM.
 */
static int unpack(const struct sqk_xattr_set *set, struct sqk_xattr_in *in, char **names)
{
	size_t have = set ? set->count : 0, bytes = 0, i;
	char *p;

	for (i = 0; i < have; i++)
		bytes += strlen("security.") + set->kv[i].name_len + 1;
	*names = p = malloc(bytes + 1);
	if (!p)
		return SQK_ERR_NOMEM;
	for (i = 0; i < have; i++) {
		const struct kv *kv = &set->kv[i];
		struct sqk_fmt_xattr_key key = {kv->type, kv->name_len};
		const char *prefix = sqk_fmt_xattr_prefix(&key);
		size_t plen = strlen(prefix);

		memcpy(p, prefix, plen);
		memcpy(p + plen, kv->name, kv->name_len);
		p[plen + kv->name_len] = '\0';
		in[i] = (struct sqk_xattr_in){p, kv->value, kv->value_len};
		p += plen + kv->name_len + 1;
	}
	return 0;
}

int sqk_xattrs_extend(struct sqk_xattrs *x, struct sqk_xattr_set *set,
		      const struct sqk_xattr_in *add, size_t n, struct sqk_xattr_set **out,
		      size_t *dup)
{
	size_t have = set ? set->count : 0, i, k;
	struct sqk_xattr_in *in = calloc(have + n + 1, sizeof(*in));
	char *names = NULL;
	int err = in ? unpack(set, in, &names) : SQK_ERR_NOMEM;

	for (k = 0; k < n && !err; k++) {
		for (i = 0; i < have; i++) {
			if (strcmp(in[i].name, add[k].name) == 0) {
				*dup = k;
				err = SQK_ERR_EXIST;
				break;
			}
		}
		in[have + k] = add[k];
	}
	if (!err)
		err = sqk_xattrs_intern(x, in, have + n, out, NULL);
	free(in);
	free(names);
	return err;
}

int sqk_xattrs_put(struct sqk_xattrs *x, struct sqk_xattr_set *set, const struct sqk_xattr_in *kv,
		   struct sqk_xattr_set **out)
{
	size_t have = set ? set->count : 0, i, k = 0;
	struct sqk_xattr_in *in = calloc(have + 1, sizeof(*in));
	char *names = NULL;
	int err = in ? unpack(set, in, &names) : SQK_ERR_NOMEM;

	if (!err) {
		for (i = 0; i < have; i++)
			if (strcmp(in[i].name, kv->name) != 0)
				in[k++] = in[i];
		if (kv->value)
			in[k++] = *kv;
		err = sqk_xattrs_intern(x, in, k, out, NULL);
	}
	free(in);
	free(names);
	return err;
}

int sqk_xattrs_has(const struct sqk_xattr_set *set, const char *name)
{
	size_t plen = 0;
	int type = sqk_fmt_xattr_type(name, &plen);
	uint32_t i;

	for (i = 0; set && type >= 0 && i < set->count; i++)
		if (set->kv[i].type == type && set->kv[i].name_len == strlen(name) - plen &&
		    !memcmp(set->kv[i].name, name + plen, set->kv[i].name_len))
			return 1;
	return 0;
}

uint32_t sqk_xattrs_id(struct sqk_xattrs *x, struct sqk_xattr_set *set)
{
	if (!set)
		return SQK_INVALID_XATTR;
	if (set->id == SQK_INVALID_XATTR) {
		if (SQK_ARRAY_GROW(x->by_id, x->ids_cap, (size_t)x->nids + 1))
			return SQK_INVALID_XATTR;
		set->id = x->nids;
		x->by_id[x->nids++] = set;
	}
	return set->id;
}

uint32_t sqk_xattrs_count(const struct sqk_xattrs *x)
{
	return x->nids;
}

/* The values written so far, by value hash (index + 1 into refs). */
struct values {
	struct sqk_hash by_hash;
	struct value_ref *refs;
	size_t n, cap;
};

/* An equal value already written, or NULL. */
static const struct value_ref *value_find(const struct values *vs, const struct kv *kv)
{
	struct sqk_hash_iter it;
	uint64_t v;

	for (v = sqk_hash_first(&vs->by_hash, kv->hash, &it); v; v = sqk_hash_next(&it)) {
		const struct value_ref *r = &vs->refs[v - 1];

		if (r->kv->value_len == kv->value_len &&
		    memcmp(r->kv->value, kv->value, kv->value_len) == 0)
			return r;
	}
	return NULL;
}

static int value_add(struct values *vs, const struct kv *kv, uint64_t ref)
{
	if (SQK_ARRAY_GROW(vs->refs, vs->cap, vs->n + 1) ||
	    sqk_hash_add(&vs->by_hash, kv->hash, vs->n + 1))
		return SQK_ERR_NOMEM;
	vs->refs[vs->n++] = (struct value_ref){kv, ref};
	return 0;
}

/* One attribute as the codec checks it: the key, the name's bytes, the value's size. */
static int kv_check(const struct kv *kv, int ool, uint32_t value_size, struct sqk_fmt_report *r)
{
	struct sqk_fmt_xattr_key key = {(uint16_t)(kv->type | (ool ? SQK_XATTR_OOL : 0)),
					kv->name_len};
	int err = sqk_fmt_xattr_key_check(&key, r);

	if (!err)
		err = sqk_fmt_xattr_name_check(kv->name, kv->name_len, r);
	if (!err)
		err = sqk_fmt_xattr_value_check(value_size, ool, r);
	return err;
}

int sqk_xattrs_set_check(const struct sqk_xattr_set *s, struct sqk_fmt_report *r)
{
	uint32_t k;
	int err = 0;

	for (k = 0; k < s->count && !err; k++)
		err = kv_check(&s->kv[k], 0, s->kv[k].value_len, r);
	return err;
}

int sqk_xattrs_write(struct sqk_xattrs *x, struct sqk_compressor *comp, struct sqk_file *f,
		     uint64_t *pos, uint64_t *table)
{
	struct sqk_meta_writer *mw = malloc(sizeof(*mw));
	struct values vs = {.n = 0};
	size_t i;
	struct sqk_fmt_xattr_table hdr = {0, 0, 0};
	uint8_t *ids = NULL, raw[SQK_FMT_XATTR_HDR_SIZE];
	uint64_t kv_start = *pos;
	int err = 0;

	sqk_hash_init(&vs.by_hash);
	ids = malloc((size_t)x->nids * SQK_FMT_XATTR_ID_SIZE + 1);
	if (!mw || !ids) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	sqk_mw_init(mw, comp, f, kv_start, 0);
	for (i = 0; i < x->nids && !err; i++) {
		const struct sqk_xattr_set *s = x->by_id[i];
		struct sqk_fmt_xattr_id id = {sqk_mw_ref(mw), s->count, 0};
		uint64_t begin = mw->total;
		uint32_t k;

		for (k = 0; k < s->count && !err; k++) {
			const struct kv *kv = &s->kv[k];
			const struct value_ref *seen = value_find(&vs, kv);
			int ool = seen && kv->value_len > SQK_FMT_XATTR_REF_SIZE;
			struct sqk_fmt_xattr_key key = {
				(uint16_t)(kv->type | (ool ? SQK_XATTR_OOL : 0)), kv->name_len};
			uint8_t b[SQK_FMT_XATTR_VALUE_SIZE + SQK_FMT_XATTR_REF_SIZE];

			/* Never a record the reader refuses (sqk_tree_check said why first). */
			if (kv_check(kv, ool, ool ? SQK_FMT_XATTR_REF_SIZE : kv->value_len, NULL)) {
				err = SQK_ERR_OVERFLOW;
				break;
			}
			sqk_fmt_xattr_key_encode(&key, b);
			err = sqk_mw_write(mw, b, SQK_FMT_XATTR_KEY_SIZE);
			if (!err)
				err = sqk_mw_write(mw, kv->name, kv->name_len);
			if (err)
				break;
			if (ool) {
				sqk_fmt_xattr_value_encode(b, SQK_FMT_XATTR_REF_SIZE);
				sqk_fmt_xattr_ref_encode(b + SQK_FMT_XATTR_VALUE_SIZE, seen->ref);
				err = sqk_mw_write(mw, b, sizeof(b));
				continue;
			}
			if (!seen)
				err = value_add(&vs, kv, sqk_mw_ref(mw));
			sqk_fmt_xattr_value_encode(b, kv->value_len);
			if (!err)
				err = sqk_mw_write(mw, b, SQK_FMT_XATTR_VALUE_SIZE);
			if (!err)
				err = sqk_mw_write(mw, kv->value, kv->value_len);
		}
		id.size = (uint32_t)(mw->total - begin);
		sqk_fmt_xattr_id_encode(&id, ids + SQK_FMT_XATTR_ID_SIZE * i);
	}
	if (!err)
		err = sqk_mw_flush(mw);
	if (err)
		goto out;
	/* The id entries in metadata blocks, then the header and the lookup list. */
	*pos = kv_start + mw->out_len;
	hdr.kv_start = kv_start;
	hdr.count = x->nids;
	sqk_fmt_xattr_table_encode(&hdr, raw);
	err = sqk_table_write_hdr(comp, f, pos, ids, (size_t)x->nids * SQK_FMT_XATTR_ID_SIZE, raw,
				  sizeof(raw), table);
out:
	if (mw)
		sqk_mw_release(mw);
	free(mw);
	sqk_hash_release(&vs.by_hash);
	free(vs.refs);
	free(ids);
	return err;
}
