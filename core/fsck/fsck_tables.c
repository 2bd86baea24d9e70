// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tables found through lookup lists (fragments, export, ids, xattr
 * ids) and the xattr key/value area. Each table's blocks are read once, in
 * order; their entries are checked from those same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_block.h"
#include "format/fmt_table.h"
#include "format/fmt_xattr.h"
#include "fsck_int.h"
#include "util/error.h"

void sqk_fsck_table_walk(struct sqk_fsck *f, struct fsck_table *t,
			 void (*fn)(struct sqk_fsck *f, uint64_t idx, const uint8_t *entry,
				    void *arg),
			 void *arg)
{
	uint64_t idx = 0;
	/* The blocks end where the list starts; the xattr header sits between. */
	uint64_t stop = t == &f->xids ? f->sb.xattr_table : t->list;
	uint8_t buf[SQK_META_SIZE];
	struct fsck_fmt x;
	char why[128];
	uint32_t i;

	sqk_fsck_fmt_init(&x, f, FSCK_NONE, t->name, C_META, NULL);
	for (i = 0; i < t->nblocks && !fsck_stopped(f); i++) {
		uint32_t want = sqk_fmt_table_block_bytes(t->entries, t->entry_size, i), len, k;
		uint64_t next, expect = i + 1 < t->nblocks ? t->pos[i + 1] : stop;
		int err;

		err = sqk_fsck_meta_load(f, t->name, t->pos[i], buf, &len, &next, why, sizeof(why));
		if (sqk_fsck_fatal(f, err))
			return;
		if (err) {
			sqk_fsck_err(f, FSCK_NONE, t->name, C_META, "metadata block %u at %llu: %s",
				     i, (unsigned long long)t->pos[i], why);
			if (t == &f->ids)
				t->ok = 0;
		} else {
			sqk_fsck_fmt_prefix(&x, "metadata block %u at %llu: ", i,
					    (unsigned long long)t->pos[i]);
			/* The reader refuses the ids when this rule breaks: they are read at open.
			 */
			if (sqk_fmt_table_block_check(len, want, next, expect, &x.rep) &&
			    t == &f->ids)
				t->ok = 0;
			for (k = 0; fn && k + t->entry_size <= (len < want ? len : want);
			     k += t->entry_size)
				fn(f, idx + k / t->entry_size, buf + k, arg);
		}
		idx += want / t->entry_size;
	}
}

/*
 * Fragments: each entry's block inside the data area, then decompressed by
 * the pool. Only entries read from real blocks are kept (in index order),
 * so memory follows what the table holds, not what fragment_count says.
 */
struct frag_list {
	struct fsck_frag *e;
	uint64_t *start;
	uint32_t *word;
	uint32_t n, cap;
};

static void frag_entry(struct sqk_fsck *f, uint64_t idx, const uint8_t *raw, void *arg)
{
	struct frag_list *l = arg;
	struct sqk_fmt_frag e;

	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 256;
		struct fsck_frag *e = realloc(l->e, (size_t)cap * sizeof(*e));
		uint64_t *start;
		uint32_t *word;

		if (e)
			l->e = e;
		start = e ? realloc(l->start, (size_t)cap * sizeof(*start)) : NULL;
		if (start)
			l->start = start;
		word = start ? realloc(l->word, (size_t)cap * sizeof(*word)) : NULL;
		if (!word) {
			sqk_fsck_fatal(f, SQK_ERR_NOMEM);
			return;
		}
		l->word = word;
		l->cap = cap;
	}
	sqk_fmt_frag_decode(&e, raw);
	l->e[l->n].index = (uint32_t)idx;
	l->e[l->n].len = 0;
	l->e[l->n].refused = 0;
	l->e[l->n].bad = 0;
	l->e[l->n].start = 0;
	l->e[l->n].size = 0;
	l->start[l->n] = e.start;
	l->word[l->n++] = e.size;
}

const struct fsck_frag *sqk_fsck_frag_find(const struct sqk_fsck *f, uint32_t index)
{
	uint32_t lo = 0, hi = f->nfrags;

	if (index < f->nfrags && f->frags[index].index == index)
		return &f->frags[index];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->frags[mid].index == index)
			return &f->frags[mid];
		if (f->frags[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void sqk_fsck_fragments(struct sqk_fsck *f)
{
	struct frag_list l = {NULL, NULL, NULL, 0, 0};
	uint64_t end = f->sb.inode_table;
	uint32_t i;

	if (f->frag.ok)
		sqk_fsck_table_walk(f, &f->frag, frag_entry, &l);
	f->frags = l.e;
	f->nfrags = l.n;
	for (i = 0; i < l.n && !fsck_stopped(f); i++) {
		struct sqk_fmt_frag e = {l.start[i], l.word[i], 0};
		uint32_t size = sqk_fmt_block_size(e.size), idx = l.e[i].index;
		uint64_t start = e.start;
		struct fsck_fmt x;

		sqk_fsck_fmt_init(&x, f, FSCK_NONE, T_FRAG, C_FRAGMENT, NULL);
		sqk_fsck_fmt_prefix(&x, "fragment %u: ", idx);
		if (sqk_fmt_frag_check(&e, f->sb.block_size, f->data_start, end, &x.rep))
			continue;
		/* Fragment blocks share the data area with the data blocks. */
		f->data_bytes += size;
		if (f->data_bytes > end - f->data_start) {
			sqk_fsck_err(f, FSCK_NONE, T_FRAG, C_FRAGMENT,
				     "the fragment blocks hold more bytes than the data area: they "
				     "overlap; fragment %u and later are not decompressed",
				     idx);
			f->data_overflow = 1;
			break;
		}
		l.e[i].start = start;
		l.e[i].size = size;
		sqk_fsck_fragment_block(f, i, start, e.size);
	}
	free(l.start);
	free(l.word);
}

/* Export: entry n-1 holds the reference of inode n. */
static void export_entry(struct sqk_fsck *f, uint64_t idx, const uint8_t *raw, void *arg)
{
	uint64_t ref = sqk_fmt_export_decode(raw);
	uint32_t number = (uint32_t)(idx + 1), i = sqk_fsck_rec_find(f, number);
	struct fsck_rec r;
	char a[64], b[64];

	if (i != FSCK_NONE)
		r = sqk_fsck_rec(f, i);
	if (i != FSCK_NONE && r.ref == ref)
		return;
	if (i != FSCK_NONE)
		sqk_fsck_err(f, FSCK_NONE, T_EXPORT, C_EXPORT,
			     "the entry for inode %u points at %s, but inode %u is at %s", number,
			     sqk_fsck_ref_str(ref, a, sizeof(a)), number,
			     sqk_fsck_ref_str(r.ref, b, sizeof(b)));
	else if (!f->scan_cut)
		sqk_fsck_err(f, FSCK_NONE, T_EXPORT, C_EXPORT,
			     "the entry for inode %u points at %s, but there is no inode %u",
			     number, sqk_fsck_ref_str(ref, a, sizeof(a)), number);
}

void sqk_fsck_export(struct sqk_fsck *f)
{
	if (f->exp.ok)
		sqk_fsck_table_walk(f, &f->exp, export_entry, NULL);
}

void sqk_fsck_xattr_index(struct sqk_fsck *f, uint32_t rec, uint32_t index)
{
	if (f->sb.xattr_table == SQK_INVALID_TABLE)
		sqk_fsck_err(f, rec, T_INODE, C_XATTR,
			     "xattr index %u, but the image has no xattr table", index);
	else if (f->xids.ok && index >= f->xids.entries)
		sqk_fsck_err(f, rec, T_INODE, C_XATTR,
			     "xattr index %u is beyond the %llu xattr ids", index,
			     (unsigned long long)f->xids.entries);
}

/* The xattr ids, sorted by where their pairs start, so the area is read in order. */
struct xid {
	uint64_t ref;
	uint32_t count, id;
};

struct xid_list {
	struct xid *e;
	uint32_t n, cap;
};

static void xid_entry(struct sqk_fsck *f, uint64_t idx, const uint8_t *raw, void *arg)
{
	struct xid_list *l = arg;
	struct sqk_fmt_xattr_id e;

	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 256;
		struct xid *p = realloc(l->e, (size_t)cap * sizeof(*p));

		if (!p) {
			sqk_fsck_fatal(f, SQK_ERR_NOMEM);
			return;
		}
		l->e = p;
		l->cap = cap;
	}
	sqk_fmt_xattr_id_decode(&e, raw);
	l->e[l->n].ref = e.ref;
	l->e[l->n].count = e.count;
	l->e[l->n++].id = (uint32_t)idx;
}

static int cmp_xid(const void *a, const void *b)
{
	const struct xid *x = a, *y = b;

	if (x->ref != y->ref)
		return x->ref < y->ref ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The format's rules for a pair, reported for xattr id id. */
static void pair_rules(struct fsck_fmt *x, struct sqk_fsck *f, uint32_t id, const char *name)
{
	sqk_fsck_fmt_init(x, f, FSCK_NONE, T_XATTR, C_XATTR, NULL);
	if (name)
		sqk_fsck_fmt_prefix(x, "xattr id %u: %.40s: ", id, name);
	else
		sqk_fsck_fmt_prefix(x, "xattr id %u: a key: ", id);
}

/* A value: its size, then its bytes (skipped). 0, or -1 after reporting. */
static int xattr_value(struct sqk_fsck *f, struct fsck_rd *rd, uint32_t id, const char *name)
{
	uint8_t raw[SQK_FMT_XATTR_VALUE_SIZE];
	struct fsck_fmt x;
	int err;

	err = rd->read(rd, raw, sizeof(raw));
	if (!err) {
		pair_rules(&x, f, id, name);
		if (sqk_fmt_xattr_value_check(sqk_fmt_xattr_value_decode(raw), 0, &x.rep))
			return -1;
		err = rd->read(rd, NULL, sqk_fmt_xattr_value_decode(raw));
	}
	if (err) {
		if (!sqk_fsck_fatal(f, err))
			sqk_fsck_err(f, FSCK_NONE, T_XATTR, C_XATTR,
				     "xattr id %u: the value of %s runs past the key/value area",
				     id, name);
		return -1;
	}
	return 0;
}

/* Out of line: a reference to a value stored earlier in the area. 0, or -1. */
static int xattr_ool(struct sqk_fsck *f, struct fsck_rd *rd, uint32_t id, const char *name,
		     uint64_t kv_end)
{
	uint8_t raw[SQK_FMT_XATTR_VALUE_SIZE + SQK_FMT_XATTR_REF_SIZE];
	struct fsck_fmt x;
	struct fsck_cur c;
	uint64_t ref;
	char r[64];
	int err;

	err = rd->read(rd, raw, sizeof(raw));
	if (err) {
		if (!sqk_fsck_fatal(f, err))
			sqk_fsck_err(f, FSCK_NONE, T_XATTR, C_XATTR,
				     "xattr id %u: a key runs past the key/value area", id);
		return -1;
	}
	pair_rules(&x, f, id, name);
	if (sqk_fmt_xattr_value_check(sqk_fmt_xattr_value_decode(raw), 1, &x.rep))
		return -1;
	ref = sqk_fmt_xattr_ref_decode(raw + SQK_FMT_XATTR_VALUE_SIZE);
	if (f->xattr_kv + SQK_REF_BLOCK(ref) >= kv_end ||
	    sqk_fsck_cur_open(&c, f, f->xattr_kv, ref) != 0) {
		sqk_fsck_cur_close(&c);
		sqk_fsck_err(f, FSCK_NONE, T_XATTR, C_XATTR,
			     "xattr id %u: the value of %s is at %s, outside the key/value area",
			     id, name, sqk_fsck_ref_str(ref, r, sizeof(r)));
		return 0;
	}
	xattr_value(f, &c.rd, id, name);
	sqk_fsck_cur_close(&c);
	return 0;
}

/* One pair. 0, or -1 when the rest of the set cannot be read. */
static int xattr_pair(struct sqk_fsck *f, struct fsck_rd *rd, uint32_t id, uint64_t kv_end)
{
	char name[16 + SQK_FMT_XATTR_NAME_MAX + 1];
	uint8_t raw[SQK_FMT_XATTR_KEY_SIZE];
	struct sqk_fmt_xattr_key k;
	struct fsck_fmt x;
	size_t plen;
	int err;

	err = rd->read(rd, raw, sizeof(raw));
	if (err)
		goto truncated;
	sqk_fmt_xattr_key_decode(&k, raw);
	pair_rules(&x, f, id, NULL);
	if (sqk_fmt_xattr_key_check(&k, &x.rep))
		return -1;
	plen = strlen(sqk_fmt_xattr_prefix(&k));
	memcpy(name, sqk_fmt_xattr_prefix(&k), plen);
	err = rd->read(rd, name + plen, k.name_size);
	if (err)
		goto truncated;
	name[plen + k.name_size] = '\0';
	if (sqk_fmt_xattr_name_check(name + plen, k.name_size, &x.rep))
		return -1;
	if (sqk_fmt_xattr_ool(&k))
		return xattr_ool(f, rd, id, name, kv_end);
	return xattr_value(f, rd, id, name);
truncated:
	if (!sqk_fsck_fatal(f, err))
		sqk_fsck_err(f, FSCK_NONE, T_XATTR, C_XATTR,
			     "xattr id %u: a key runs past the key/value area", id);
	return -1;
}

void sqk_fsck_xattrs(struct sqk_fsck *f)
{
	struct xid_list l = {NULL, 0, 0};
	uint64_t kv_end, prev_end = 0;
	struct fsck_ms ms;
	uint32_t i;

	if (!f->xids.ok)
		return;
	sqk_fsck_table_walk(f, &f->xids, xid_entry, &l);
	kv_end = f->xids.nblocks ? f->xids.pos[0] : f->sb.xattr_table;
	if (fsck_stopped(f)) {
		free(l.e);
		return;
	}
	if (l.n)
		qsort(l.e, l.n, sizeof(*l.e), cmp_xid);
	sqk_fsck_ms_init(&ms, f, T_XATTR, f->xattr_kv, kv_end);
	for (i = 0; i < l.n && !fsck_stopped(f); i++) {
		struct xid *x = &l.e[i];
		struct sqk_fmt_xattr_id e = {0, 0, 0};
		struct fsck_fmt xr;
		struct fsck_cur c;
		struct fsck_rd *rd = &ms.rd;
		uint32_t k;
		char r[64];
		int err;

		if (i && x->ref == l.e[i - 1].ref && x->count == l.e[i - 1].count)
			continue; /* the same set again: checked already */
		sqk_fsck_fmt_init(&xr, f, FSCK_NONE, T_XATTR, C_XATTR, NULL);
		sqk_fsck_fmt_prefix(&xr, "xattr id %u: ", x->id);
		e.ref = x->ref;
		e.count = x->count;
		if (sqk_fmt_xattr_id_check(&e, kv_end - f->xattr_kv, &xr.rep))
			continue;
		if (x->ref < prev_end) {
			/* Sets never share bytes; reading them again could go on for ever. */
			sqk_fsck_err(f, FSCK_NONE, T_XATTR, C_XATTR,
				     "xattr id %u at %s overlaps the set before it", x->id,
				     sqk_fsck_ref_str(x->ref, r, sizeof(r)));
			continue;
		}
		err = sqk_fsck_ms_seek(&ms, SQK_REF_BLOCK(x->ref), SQK_REF_OFFSET(x->ref));
		if (err == 1) {
			err = sqk_fsck_cur_open(&c, f, f->xattr_kv, x->ref);
			rd = &c.rd;
			if (err)
				sqk_fsck_cur_close(&c);
		}
		if (err) {
			if (!sqk_fsck_fatal(f, err))
				sqk_fsck_err(f, FSCK_NONE, T_XATTR, C_XATTR,
					     "xattr id %u starts at %s, not in the key/value area",
					     x->id, sqk_fsck_ref_str(x->ref, r, sizeof(r)));
			continue;
		}
		for (k = 0; k < x->count && !fsck_stopped(f); k++)
			if (xattr_pair(f, rd, x->id, kv_end) != 0)
				break;
		prev_end = rd->tell(rd);
		if (rd != &ms.rd)
			sqk_fsck_cur_close(&c);
	}
	sqk_fsck_ms_finish(&ms);
	sqk_fsck_ms_free(&ms);
	free(l.e);
}
