// SPDX-License-Identifier: BSD-2-Clause
/*
 * Every entry of the tree in order (tree.h): the runs and the entries in
 * memory (sorted for the walk) merged into one stream by path.
 */
#include <stdlib.h>
#include <string.h>

#include "tree_int.h"
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
	w->val = (struct erec){m->node, m->parent};
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

int sqk_tree_walk_next(struct sqk_tree_walk *w, struct sqk_tree_item *it)
{
	struct sqk_rec rec;
	struct erec e;
	uint32_t i, last = 0;
	int err = sqk_merge_next(&w->merge, &rec);

	if (err)
		return err < 0 ? sqk_tree_fail(w->t, err) : err;
	memcpy(&e, rec.val, sizeof(e));
	it->key = rec.key;
	it->klen = rec.klen;
	it->depth = 1;
	for (i = 0; i < rec.klen; i++)
		if (!rec.key[i]) {
			it->depth++;
			last = i + 1;
		}
	it->name = (const char *)rec.key + last;
	it->len = rec.klen - last;
	it->node = e.node;
	it->parent = e.parent;
	return 0;
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
	free(w);
}
