// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tree's entries (tree.h): a hash table in memory by directory and
 * name; past its share, sorted by path into a run with a Bloom filter of
 * (directory, name) hashes. A lookup tries memory, then the runs made since
 * the directory was (none before can hold its entries), newest first, each
 * only when its filter says maybe. Runs grow few: past MAX_RUNS they are
 * merged into one.
 */
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "tree_int.h"
#include "util/array.h"
#include "util/error.h"
#include "util/spill.h"

#define MAX_RUNS 16
/* Memory an entry costs beside its name: itself, two slots of each hash table. */
#define ENTRY_COST (sizeof(struct ment) + 64)

void sqk_tree_index_release(struct sqk_tree *t)
{
	size_t i;

	for (i = 0; i < t->nruns; i++)
		sqk_run_destroy(t->runs[i].run);
	free(t->runs);
	free(t->ments);
	free(t->names);
	sqk_hash_release(&t->by_name);
	sqk_hash_release(&t->by_dir);
	t->runs = NULL;
	t->ments = NULL;
	t->names = NULL;
	t->nruns = t->nments = 0;
}

/* The index + 1 of dir's entry name in memory, or 0. */
static uint64_t mem_slot(const struct sqk_tree *t, sqk_nid dir, const char *name, size_t len)
{
	struct sqk_hash_iter it;
	uint64_t v;

	for (v = sqk_hash_first(&t->by_name, sqk_tree_name_hash(dir, name, len), &it); v;
	     v = sqk_hash_next(&it)) {
		const struct ment *m = &t->ments[v - 1];

		if (m->parent == dir && m->len == len && !memcmp(t->names + m->name, name, len))
			return v;
	}
	return 0;
}

int sqk_tree_index_add(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, sqk_nid node,
		       uint64_t tag)
{
	uint64_t v = t->err ? 0 : mem_slot(t, dir, name, len), head;
	struct ment *m;
	int err;

	if (t->err)
		return t->err;
	if (v) {
		/* Written again in memory: one record of a name there, the newest. */
		t->ments[v - 1].node = node;
		t->ments[v - 1].tag = tag;
		return 0;
	}
	if ((t->nments + 1) * ENTRY_COST + t->names_len + len > t->mem_limit && t->nments &&
	    (err = sqk_tree_index_flush(t)))
		return err;
	head = sqk_hash_get(&t->by_dir, dir);
	if (SQK_ARRAY_GROW(t->ments, t->ments_cap, t->nments + 1) ||
	    SQK_ARRAY_GROW(t->names, t->names_cap, t->names_len + len) ||
	    sqk_hash_reserve(&t->by_dir, t->by_dir.count + 1) ||
	    sqk_hash_add(&t->by_name, sqk_tree_name_hash(dir, name, len), t->nments + 1))
		return sqk_tree_fail(t, SQK_ERR_NOMEM);
	if (head)
		sqk_hash_remove(&t->by_dir, dir, head);
	sqk_hash_add(&t->by_dir, dir, t->nments + 1);
	m = &t->ments[t->nments++];
	*m = (struct ment){dir, node, t->names_len, tag, (uint32_t)len, 0, (uint32_t)head};
	memcpy(t->names + t->names_len, name, len);
	t->names_len += len;
	return 0;
}

struct want {
	sqk_nid dir;
	int seen;
	sqk_nid *out;
	uint64_t *tag;
};

static int found(void *ctx, const struct sqk_rec *rec)
{
	struct want *w = ctx;
	struct erec e;

	/*
	 * The key ends in the name: equal keys mean equal paths, of this
	 * directory or of one removed before it was made again. Of the
	 * directory's, the last is the newest.
	 */
	memcpy(&e, rec->val, sizeof(e));
	if (e.parent == w->dir) {
		w->seen = 1;
		*w->out = e.node;
		*w->tag = e.tag;
	}
	return 0;
}

int sqk_tree_dir_key(struct sqk_tree *t, const struct sqk_node *d, uint8_t **buf, size_t *len)
{
	size_t n = d->dir.pathlen + (d->dir.pathlen ? 1 : 0);
	uint8_t *k = malloc(n + SQK_NAME_MAX + 1);
	int err;

	*buf = NULL;
	if (!k)
		return SQK_ERR_NOMEM;
	err = sqk_tree_str_get(t, d->dir.path, d->dir.pathlen, (char *)k);
	if (err) {
		free(k);
		return err;
	}
	if (d->dir.pathlen)
		k[d->dir.pathlen] = '\0';
	*buf = k;
	*len = n;
	return 0;
}

int sqk_tree_index_find(struct sqk_tree *t, sqk_nid dir, uint64_t epoch, const char *name,
			size_t len, sqk_nid *out, uint64_t *tag)
{
	uint64_t h = sqk_tree_name_hash(dir, name, len), v, tg;
	uint8_t *key = NULL;
	size_t i, klen = 0;
	int err = 0;

	*out = 0;
	if (!tag)
		tag = &tg;
	*tag = 0;
	if (t->err)
		return t->err;
	v = mem_slot(t, dir, name, len);
	if (v) {
		*out = t->ments[v - 1].node;
		*tag = t->ments[v - 1].tag;
		return 0;
	}
	/* No longer name was ever added. */
	for (i = len <= SQK_NAME_MAX ? t->nruns : 0; i-- > 0;) {
		struct sqk_node d;
		struct want w = {dir, 0, out, tag};

		if (t->runs[i].seq < epoch)
			break;
		if (!sqk_run_maybe(t->runs[i].run, h))
			continue;
		/* The key is the directory's path, a NUL, the name. */
		if (!key) {
			err = sqk_tree_get(t, dir, &d);
			if (!err)
				err = sqk_tree_dir_key(t, &d, &key, &klen);
			if (err)
				break;
			memcpy(key + klen, name, len);
			klen += len;
		}
		err = sqk_run_find(t->runs[i].run, key, (uint32_t)klen, h, found, &w);
		if (err || w.seen)
			break;
	}
	free(key);
	return err ? sqk_tree_fail(t, err) : 0;
}

/* The scratch of parent paths: each distinct parent's once, [u32 length][bytes]. */
static int parent_paths(struct sqk_tree *t, uint8_t **out)
{
	struct sqk_hash seen;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, i;
	int err = 0;

	sqk_hash_init(&seen);
	for (i = 0; i < t->nments && !err; i++) {
		struct ment *m = &t->ments[i];
		uint64_t at = sqk_hash_get(&seen, m->parent);
		struct sqk_node d;

		if (at) {
			m->ppath = (uint32_t)(at - 1);
			continue;
		}
		err = sqk_tree_get(t, m->parent, &d);
		if (err)
			break;
		if (len + 4 + d.dir.pathlen + 1 > UINT32_MAX) {
			err = SQK_ERR_OVERFLOW;
			break;
		}
		if (SQK_ARRAY_GROW(buf, cap, len + 4 + d.dir.pathlen + 1) ||
		    sqk_hash_add(&seen, m->parent, len + 1)) {
			err = SQK_ERR_NOMEM;
			break;
		}
		memcpy(buf + len, &d.dir.pathlen, 4);
		err = sqk_tree_str_get(t, d.dir.path, d.dir.pathlen, (char *)buf + len + 4);
		m->ppath = (uint32_t)len;
		len += 4 + d.dir.pathlen;
	}
	sqk_hash_release(&seen);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}

/* A key in pieces: the parent's path, a NUL when it is not the root's, the name. */
struct vkey {
	const uint8_t *seg[3];
	uint32_t len[3];
};

static void vkey_of(const struct sqk_tree *t, const struct ment *m, const uint8_t *ppaths,
		    struct vkey *k)
{
	static const uint8_t nul = 0;
	uint32_t plen;

	memcpy(&plen, ppaths + m->ppath, 4);
	k->seg[0] = ppaths + m->ppath + 4;
	k->len[0] = plen;
	k->seg[1] = &nul;
	k->len[1] = plen ? 1 : 0;
	k->seg[2] = (const uint8_t *)t->names + m->name;
	k->len[2] = m->len;
}

static int vkey_cmp(const struct vkey *a, const struct vkey *b)
{
	unsigned i = 0, j = 0;
	uint32_t ai = 0, bj = 0;

	for (;;) {
		uint32_t n;
		int c;

		while (i < 3 && ai == a->len[i])
			i++, ai = 0;
		while (j < 3 && bj == b->len[j])
			j++, bj = 0;
		if (i == 3 || j == 3)
			return (i < 3) - (j < 3);
		n = a->len[i] - ai < b->len[j] - bj ? a->len[i] - ai : b->len[j] - bj;
		c = memcmp(a->seg[i] + ai, b->seg[j] + bj, n);
		if (c)
			return c;
		ai += n;
		bj += n;
	}
}

struct sort_ctx {
	const struct sqk_tree *t;
	const uint8_t *ppaths;
};

static int ment_cmp(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *s = arg;
	struct vkey a, b;

	vkey_of(s->t, &s->t->ments[*(const uint32_t *)x], s->ppaths, &a);
	vkey_of(s->t, &s->t->ments[*(const uint32_t *)y], s->ppaths, &b);
	return vkey_cmp(&a, &b);
}

int sqk_tree_index_sorted(struct sqk_tree *t, uint32_t **order, uint8_t **ppaths)
{
	struct sort_ctx s = {t, NULL};
	uint32_t *o;
	size_t i;
	int err;

	*order = NULL;
	*ppaths = NULL;
	if (t->nments > UINT32_MAX)
		return SQK_ERR_OVERFLOW;
	o = malloc((t->nments ? t->nments : 1) * sizeof(*o));
	if (!o)
		return SQK_ERR_NOMEM;
	err = parent_paths(t, ppaths);
	if (err) {
		free(o);
		return sqk_tree_fail(t, err);
	}
	for (i = 0; i < t->nments; i++)
		o[i] = (uint32_t)i;
	s.ppaths = *ppaths;
	qsort_r(o, t->nments, sizeof(*o), ment_cmp, &s);
	*order = o;
	return 0;
}

int sqk_tree_ment_key(const struct sqk_tree *t, const struct ment *m, const uint8_t *ppaths,
		      uint8_t **buf, size_t *cap, uint32_t *klen)
{
	struct vkey k;
	size_t n;

	vkey_of(t, m, ppaths, &k);
	n = (size_t)k.len[0] + k.len[1] + k.len[2];
	if (SQK_ARRAY_GROW(*buf, *cap, n))
		return SQK_ERR_NOMEM;
	memcpy(*buf, k.seg[0], k.len[0]);
	memcpy(*buf + k.len[0], k.seg[1], k.len[1]);
	memcpy(*buf + k.len[0] + k.len[1], k.seg[2], k.len[2]);
	*klen = (uint32_t)n;
	return 0;
}

static uint64_t rec_hash(const struct sqk_rec *rec)
{
	const uint8_t *name = rec->key + rec->klen;
	struct erec e;

	while (name > rec->key && name[-1])
		name--;
	memcpy(&e, rec->val, sizeof(e));
	return sqk_tree_name_hash(e.parent, (const char *)name,
				  (size_t)(rec->key + rec->klen - name));
}

int sqk_tree_index_flush(struct sqk_tree *t)
{
	uint32_t *order = NULL, klen;
	uint8_t *ppaths = NULL, *key = NULL;
	size_t i, cap = 0;
	struct sqk_run *r = NULL;
	int err;

	if (!t->nments)
		return 0;
	if (SQK_ARRAY_GROW(t->runs, t->runs_cap, t->nruns + 1))
		return sqk_tree_fail(t, SQK_ERR_NOMEM);
	err = sqk_tree_index_sorted(t, &order, &ppaths);
	if (!err)
		err = sqk_run_create(t->sp, t->nments, &r);
	for (i = 0; !err && i < t->nments; i++) {
		const struct ment *m = &t->ments[order[i]];
		struct erec e = {m->node, m->parent, m->tag};

		err = sqk_tree_ment_key(t, m, ppaths, &key, &cap, &klen);
		if (!err)
			err = sqk_run_add(
				r, key, klen, &e, sizeof(e),
				sqk_tree_name_hash(m->parent, t->names + m->name, m->len));
	}
	if (!err)
		err = sqk_run_finish(r);
	free(order);
	free(ppaths);
	free(key);
	if (err) {
		sqk_run_destroy(r);
		return sqk_tree_fail(t, err);
	}
	t->runs[t->nruns++] = (struct erun){r, t->runs_made++};
	t->nments = 0;
	t->names_len = 0;
	sqk_hash_release(&t->by_name);
	sqk_hash_init(&t->by_name);
	sqk_hash_release(&t->by_dir);
	sqk_hash_init(&t->by_dir);
	if (t->nruns > (t->sp->tiny ? 3 : MAX_RUNS)) {
		struct sqk_run **all = malloc(t->nruns * sizeof(*all));
		uint64_t seq = t->runs[t->nruns - 1].seq;

		if (!all)
			return sqk_tree_fail(t, SQK_ERR_NOMEM);
		for (i = 0; i < t->nruns; i++)
			all[i] = t->runs[i].run;
		err = sqk_run_merge(all, t->nruns, rec_hash, &r);
		free(all);
		if (err)
			return sqk_tree_fail(t, err);
		for (i = 0; i < t->nruns; i++)
			sqk_run_destroy(t->runs[i].run);
		/* Holds the newest run's entries: every directory looks in it. */
		t->runs[0] = (struct erun){r, seq};
		t->nruns = 1;
	}
	return 0;
}
