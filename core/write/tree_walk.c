// SPDX-License-Identifier: BSD-2-Clause
/*
 * Every entry of the tree in order (tree.h): the runs and the entries in
 * memory (sorted for the walk) merged into one stream by path. Records of
 * one path come together, the older first: of those of the directory the
 * walk is in, the newest stands (none when it says removed); those of a
 * directory removed, even one made again at the same path, are passed by.
 */
#include <stdlib.h>
#include <string.h>

#include "tree_int.h"
#include "util/array.h"
#include "util/error.h"

struct sqk_tree_walk {
	struct sqk_tree *t;
	/* The entries in memory, sorted, and the key of the one given last. */
	uint32_t *order;
	uint8_t *ppaths, *key;
	size_t next, kcap;
	struct erec val;
	struct sqk_run_cursor *cur;
	struct sqk_rec_src *src;
	size_t nsrc;
	struct sqk_merge merge;
	/* The record read ahead (have), and the path given last. */
	uint8_t *ahead, *given;
	size_t acap, gcap;
	uint32_t alen;
	struct erec aval;
	int have, done;
	/* dirs[d], d < ndirs: the node given last at depth d (0 when none was), the path's. */
	sqk_nid *dirs;
	size_t dcap, ndirs;
};

static int mem_next(void *ctx, struct sqk_rec *rec)
{
	struct sqk_tree_walk *w = ctx;
	const struct ment *m;
	int err;

	if (w->next == w->t->nments)
		return 1;
	m = &w->t->ments[w->order[w->next++]];
	err = sqk_tree_ment_key(w->t, m, w->ppaths, &w->key, &w->kcap, &rec->klen);
	if (err)
		return err;
	w->val = (struct erec){m->node, m->parent, m->tag};
	rec->key = w->key;
	rec->val = (const uint8_t *)&w->val;
	rec->vlen = sizeof(w->val);
	return 0;
}

int sqk_tree_walk_start(struct sqk_tree *t, struct sqk_tree_walk **out)
{
	struct sqk_tree_walk *w = calloc(1, sizeof(*w));
	size_t i;
	int err;

	*out = NULL;
	if (!w)
		return SQK_ERR_NOMEM;
	w->t = t;
	w->cur = calloc(t->nruns + 1, sizeof(*w->cur));
	w->src = calloc(t->nruns + 1, sizeof(*w->src));
	err = t->err ? t->err : !w->cur || !w->src ? SQK_ERR_NOMEM : 0;
	/* The runs, oldest first, then memory: an entry is in one of them only. */
	for (i = 0; !err && i < t->nruns; i++, w->nsrc++) {
		err = sqk_run_cursor_open(t->runs[i].run, &w->cur[i]);
		w->src[i] = (struct sqk_rec_src){sqk_run_cursor_next, &w->cur[i]};
	}
	if (!err)
		err = sqk_tree_index_sorted(t, &w->order, &w->ppaths);
	if (!err) {
		w->src[w->nsrc++] = (struct sqk_rec_src){mem_next, w};
		err = sqk_merge_init(&w->merge, w->src, w->nsrc);
	}
	if (err) {
		sqk_tree_walk_end(w);
		return sqk_tree_fail(t, err);
	}
	*out = w;
	return 0;
}

/* The next record of the merge, read ahead: 0, 1 at the end, or an error. */
static int read_ahead(struct sqk_tree_walk *w)
{
	struct sqk_rec rec;
	int err = sqk_merge_next(&w->merge, &rec);

	w->have = 0;
	if (err) {
		w->done = err == 1;
		return err;
	}
	if (SQK_ARRAY_GROW(w->ahead, w->acap, rec.klen ? rec.klen : 1))
		return SQK_ERR_NOMEM;
	memcpy(w->ahead, rec.key, rec.klen);
	w->alen = rec.klen;
	memcpy(&w->aval, rec.val, sizeof(w->aval));
	w->have = 1;
	return 0;
}

int sqk_tree_walk_next(struct sqk_tree_walk *w, struct sqk_tree_item *it)
{
	for (;;) {
		struct erec best = {0, 0, 0};
		uint32_t i, last = 0, klen;
		unsigned depth = 1;
		sqk_nid dir;
		int err = w->have ? 0 : w->done ? 1 : read_ahead(w);

		if (err)
			return err < 0 ? sqk_tree_fail(w->t, err) : err;
		/* The path's first record, kept as the one given. */
		klen = w->alen;
		if (SQK_ARRAY_GROW(w->given, w->gcap, klen ? klen : 1))
			return sqk_tree_fail(w->t, SQK_ERR_NOMEM);
		memcpy(w->given, w->ahead, klen);
		for (i = 0; i < klen; i++)
			if (!w->given[i]) {
				depth++;
				last = i + 1;
			}
		if (SQK_ARRAY_GROW(w->dirs, w->dcap, depth + 1))
			return sqk_tree_fail(w->t, SQK_ERR_NOMEM);
		dir = depth == 1 ? SQK_NID_ROOT : depth - 1 < w->ndirs ? w->dirs[depth - 1] : 0;
		/* The path's other records: the newest of the directory the walk is in stands. */
		do {
			if (dir && w->aval.parent == dir)
				best = w->aval;
			err = read_ahead(w);
			if (err < 0)
				return sqk_tree_fail(w->t, err);
		} while (w->have && !sqk_run_keycmp(w->ahead, w->alen, w->given, klen));
		w->dirs[depth] = best.node;
		w->ndirs = depth + 1;
		if (!best.node)
			continue;
		it->key = w->given;
		it->klen = klen;
		it->depth = depth;
		it->name = (const char *)w->given + last;
		it->len = klen - last;
		it->node = best.node;
		it->parent = best.parent;
		return 0;
	}
}

void sqk_tree_walk_end(struct sqk_tree_walk *w)
{
	size_t i;

	if (!w)
		return;
	sqk_merge_release(&w->merge);
	for (i = 0; w->cur && i < w->t->nruns; i++)
		sqk_run_cursor_close(&w->cur[i]);
	free(w->cur);
	free(w->src);
	free(w->order);
	free(w->ppaths);
	free(w->key);
	free(w->ahead);
	free(w->given);
	free(w->dirs);
	free(w);
}
