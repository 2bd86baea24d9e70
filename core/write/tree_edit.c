// SPDX-License-Identifier: BSD-2-Clause
/*
 * Entries changed after they were added (tree.h): a tag set, an entry
 * removed, a directory's entries listed. Nothing is rewritten where it
 * lies: a newer record of the entry (node 0 when removed) stands over the
 * older ones, in memory or in a newer run (tree_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "format/fmt_name.h"
#include "format/format.h"
#include "tree_int.h"
#include "util/array.h"
#include "util/error.h"

int sqk_tree_lookup_tag(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len,
			sqk_nid *out, uint64_t *tag)
{
	struct sqk_node d;
	int err;

	*out = 0;
	*tag = 0;
	err = sqk_tree_get(t, dir, &d);
	if (err)
		return err;
	return sqk_tree_index_find(t, dir, d.dir.epoch, name, len, out, tag);
}

int sqk_tree_tag(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, uint64_t tag)
{
	uint64_t old;
	sqk_nid node;
	int err = sqk_tree_lookup_tag(t, dir, name, len, &node, &old);

	if (err)
		return err;
	if (!node)
		return SQK_ERR_NOENT;
	return old == tag ? 0 : sqk_tree_index_add(t, dir, name, len, node, tag);
}

/* A record of one of the directory's names; seq: the later, the newer. */
struct lrec {
	uint64_t name;
	uint32_t len;
	uint32_t seq;
	sqk_nid node;
	uint64_t tag;
};

struct listing {
	sqk_nid dir;
	const uint8_t *prefix; /* the key of the directory's entries, before their names */
	size_t plen;
	struct lrec *v;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
};

static int push(struct listing *l, const void *name, size_t len, sqk_nid node, uint64_t tag)
{
	if (l->n >= UINT32_MAX || SQK_ARRAY_GROW(l->v, l->cap, l->n + 1) ||
	    SQK_ARRAY_GROW(l->names, l->ncap, l->nlen + len + 1))
		return SQK_ERR_NOMEM;
	memcpy(l->names + l->nlen, name, len);
	l->v[l->n] = (struct lrec){l->nlen, (uint32_t)len, (uint32_t)l->n, node, tag};
	l->n++;
	l->nlen += len;
	return 0;
}

/* A record of a run from the directory's key on: 1 past what the directory's path begins. */
static int from_run(void *ctx, const struct sqk_rec *rec)
{
	struct listing *l = ctx;
	struct erec e;

	if (rec->klen < l->plen || memcmp(rec->key, l->prefix, l->plen))
		return 1;
	memcpy(&e, rec->val, sizeof(e));
	if (e.parent != l->dir)
		return 0; /* deeper, or of a directory removed and made again */
	return push(l, rec->key + l->plen, rec->klen - l->plen, e.node, e.tag);
}

static int by_name(const void *x, const void *y, void *arg)
{
	const struct lrec *a = x, *b = y;
	const char *names = arg;
	int c = sqk_name_cmp(names + a->name, a->len, names + b->name, b->len);

	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

/* Every record of dir's entries: the runs that may hold them, oldest first, then memory. */
static int gather(struct sqk_tree *t, sqk_nid dir, struct listing *l)
{
	struct sqk_node d;
	uint8_t *key = NULL;
	uint64_t v;
	size_t i;
	int err = sqk_tree_get(t, dir, &d);

	if (!err && d.type != SQK_DIR)
		return SQK_ERR_NOTDIR;
	if (!err)
		err = sqk_tree_dir_key(t, &d, &key, &l->plen);
	l->prefix = key;
	for (i = 0; !err && i < t->nruns; i++)
		if (t->runs[i].seq >= d.dir.epoch)
			err = sqk_run_scan(t->runs[i].run, key, (uint32_t)l->plen, from_run, l);
	/* Memory holds a name once; its records are newer than any run's. */
	for (v = sqk_hash_get(&t->by_dir, dir); !err && v; v = t->ments[v - 1].sib) {
		const struct ment *m = &t->ments[v - 1];

		err = push(l, t->names + m->name, m->len, m->node, m->tag);
	}
	free(key);
	l->prefix = NULL;
	return err;
}

int sqk_tree_list(struct sqk_tree *t, sqk_nid dir, sqk_tree_list_fn fn, void *ctx)
{
	struct listing l = {.dir = dir};
	size_t i, j;
	int err = t->err ? t->err : gather(t, dir, &l);

	if (err == SQK_ERR_NOTDIR) {
		free(l.v);
		free(l.names);
		return err;
	}
	if (!err)
		qsort_r(l.v, l.n, sizeof(*l.v), by_name, l.names);
	/* Of a name's records the newest stands; a removed entry is none. */
	for (i = 0; !err && i < l.n; i = j) {
		for (j = i + 1; j < l.n && !sqk_name_cmp(l.names + l.v[i].name, l.v[i].len,
							 l.names + l.v[j].name, l.v[j].len);
		     j++)
			;
		if (l.v[j - 1].node)
			err = fn(ctx, l.names + l.v[j - 1].name, l.v[j - 1].len, l.v[j - 1].node,
				 l.v[j - 1].tag);
	}
	free(l.v);
	free(l.names);
	return err && err != SQK_ERR_NOTDIR ? sqk_tree_fail(t, err) : err;
}

struct removing {
	struct sqk_tree *t;
	sqk_nid dir;
};

static int remove_entry(void *ctx, const char *name, size_t len, sqk_nid node, uint64_t tag)
{
	struct removing *r = ctx;

	(void)node;
	(void)tag;
	return sqk_tree_remove(r->t, r->dir, name, len);
}

int sqk_tree_remove(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len)
{
	struct sqk_node n;
	sqk_nid node;
	int err = sqk_tree_lookup(t, dir, name, len, &node);

	if (err)
		return err;
	if (!node)
		return SQK_ERR_NOENT;
	err = sqk_tree_get(t, node, &n);
	if (!err && n.type == SQK_DIR) {
		/* What it holds first: each node named there loses that link. */
		struct removing r = {t, node};

		err = sqk_tree_list(t, node, remove_entry, &r);
		if (!err)
			err = sqk_tree_get(t, node, &n);
	}
	if (!err)
		err = sqk_tree_index_add(t, dir, name, len, 0, 0);
	if (err)
		return err;
	/* The directories the last walk went through may be gone. */
	t->nlast = 0;
	n.nlink--;
	return sqk_tree_put(t, node, &n);
}
