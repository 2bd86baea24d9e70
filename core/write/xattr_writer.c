// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fmt_table.h"
#include "fmt_xattr.h"
#include "format.h"
#include "meta_writer.h"
#include "table_writer.h"
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
	struct sqk_xattr_set *next; /* hash chain */
	uint64_t hash;
	uint32_t count;
	uint32_t id;
	struct kv *kv;
};

/* Values already written, for out-of-line references. */
struct value_slot {
	uint64_t hash;
	const struct kv *kv;
	uint64_t ref;
};

struct sqk_xattrs {
	struct sqk_xattr_set **buckets;
	size_t nbuckets, nsets;
	struct sqk_xattr_set **by_id;
	uint32_t nids, ids_cap;
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
	x->nbuckets = 256;
	x->buckets = calloc(x->nbuckets, sizeof(*x->buckets));
	if (!x->buckets) {
		free(x);
		return NULL;
	}
	return x;
}

void sqk_xattrs_destroy(struct sqk_xattrs *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nbuckets; i++) {
		struct sqk_xattr_set *s = x->buckets[i], *next;

		for (; s; s = next) {
			next = s->next;
			free(s);
		}
	}
	free(x->buckets);
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
	struct sqk_xattr_set *s, **b;
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
	s->id = SQFS_INVALID_XATTR;
	s->hash = 0xcbf29ce484222325ull;
	for (i = 0; i < count; i++) {
		s->hash = bytes_hash(s->hash, &s->kv[i].type, 2);
		s->hash = bytes_hash(s->hash, s->kv[i].name, s->kv[i].name_len);
		s->hash ^= s->kv[i].hash * 31;
	}
	b = &x->buckets[s->hash & (x->nbuckets - 1)];
	for (struct sqk_xattr_set *o = *b; o; o = o->next) {
		if (set_equal(o, s)) {
			free(s);
			*out = o;
			return 0;
		}
	}
	s->next = *b;
	*b = s;
	x->nsets++;
	if (x->nsets > x->nbuckets * 2) {
		size_t nb = x->nbuckets * 4;
		struct sqk_xattr_set **nbk = calloc(nb, sizeof(*nbk));

		if (nbk) {
			for (i = 0; i < x->nbuckets; i++) {
				struct sqk_xattr_set *o = x->buckets[i], *next;

				for (; o; o = next) {
					next = o->next;
					o->next = nbk[o->hash & (nb - 1)];
					nbk[o->hash & (nb - 1)] = o;
				}
			}
			free(x->buckets);
			x->buckets = nbk;
			x->nbuckets = nb;
		}
	}
	*out = s;
	return 0;
}

uint32_t sqk_xattrs_id(struct sqk_xattrs *x, struct sqk_xattr_set *set)
{
	if (!set)
		return SQFS_INVALID_XATTR;
	if (set->id == SQFS_INVALID_XATTR) {
		if (x->nids == x->ids_cap) {
			uint32_t cap = x->ids_cap ? x->ids_cap * 2 : 64;
			struct sqk_xattr_set **p = realloc(x->by_id, cap * sizeof(*p));

			if (!p)
				return SQFS_INVALID_XATTR;
			x->by_id = p;
			x->ids_cap = cap;
		}
		set->id = x->nids;
		x->by_id[x->nids++] = set;
	}
	return set->id;
}

uint32_t sqk_xattrs_count(const struct sqk_xattrs *x)
{
	return x->nids;
}

/* Find or add a written value; *ref is 0-based position + 1, 0 when new. */
static struct value_slot *value_find(struct value_slot *vs, size_t nvs, const struct kv *kv)
{
	size_t i = kv->hash & (nvs - 1);

	for (;; i = (i + 1) & (nvs - 1)) {
		if (!vs[i].kv)
			return &vs[i];
		if (vs[i].hash == kv->hash && vs[i].kv->value_len == kv->value_len &&
		    memcmp(vs[i].kv->value, kv->value, kv->value_len) == 0)
			return &vs[i];
	}
}

int sqk_xattrs_write(struct sqk_xattrs *x, struct sqk_compressor *comp, struct sqk_file *f,
		     uint64_t *pos, uint64_t *table)
{
	struct sqk_meta_writer *mw = malloc(sizeof(*mw));
	size_t nvs = 64, i;
	struct value_slot *vs;
	struct sqk_fmt_xattr_table hdr = {0, 0, 0};
	uint8_t *ids = NULL, raw[SQK_FMT_XATTR_HDR_SIZE];
	uint64_t kv_start = *pos;
	int err = 0;

	for (i = 0; i < x->nids; i++)
		nvs += x->by_id[i]->count;
	while (nvs & (nvs - 1))
		nvs &= nvs - 1;
	nvs *= 4;
	vs = calloc(nvs, sizeof(*vs));
	ids = malloc((size_t)x->nids * SQK_FMT_XATTR_ID_SIZE + 1);
	if (!mw || !vs || !ids) {
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
			struct value_slot *slot = value_find(vs, nvs, kv);
			int ool = slot->kv && kv->value_len > SQK_FMT_XATTR_REF_SIZE;
			struct sqk_fmt_xattr_key key = {
				(uint16_t)(kv->type | (ool ? SQFS_XATTR_OOL : 0)), kv->name_len};
			uint8_t b[SQK_FMT_XATTR_VALUE_SIZE + SQK_FMT_XATTR_REF_SIZE];

			sqk_fmt_xattr_key_encode(&key, b);
			err = sqk_mw_write(mw, b, SQK_FMT_XATTR_KEY_SIZE);
			if (!err)
				err = sqk_mw_write(mw, kv->name, kv->name_len);
			if (err)
				break;
			if (ool) {
				sqk_fmt_xattr_value_encode(b, SQK_FMT_XATTR_REF_SIZE);
				sqk_fmt_xattr_ref_encode(b + SQK_FMT_XATTR_VALUE_SIZE, slot->ref);
				err = sqk_mw_write(mw, b, sizeof(b));
				continue;
			}
			if (!slot->kv) {
				slot->kv = kv;
				slot->hash = kv->hash;
				slot->ref = sqk_mw_ref(mw);
			}
			sqk_fmt_xattr_value_encode(b, kv->value_len);
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
	free(vs);
	free(ids);
	return err;
}
