// SPDX-License-Identifier: BSD-2-Clause
/* The numbering pass (mkfs_number.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "format/format.h"
#include "mkfs_number.h"
#include "reuse.h"
#include "sort.h"
#include "tree_check.h"
#include "util/array.h"
#include "util/error.h"
#include "util/spill.h"

#define ORDER_SHARE    2
#define IMPLICIT_SHARE 1

/* A directory being walked: what its entries need from it. */
struct frame {
	sqk_nid id;
	uint64_t key; /* --reuse: its path's key */
	uint32_t nsubdirs;
	int32_t prio;	  /* --sort: what its files get unless they have their own */
	uint32_t pathlen; /* of its path in the walk's buffer */
};

struct pass {
	struct sqk_number *nb;
	struct sqk_xattr_adder *adder;
	struct frame *stack;
	size_t depth, cap;
	char *path; /* the path of the entry walked last, '/' between names */
	size_t pathcap;
	/* The directories no source described, below the root: the newest time once known. */
	struct sqk_spool implicit;
};

static int fail(struct pass *p, int err, const char *where, const char *fmt, const char *arg)
{
	snprintf(p->nb->where, p->nb->where_len, "%s", where);
	snprintf(p->nb->why, p->nb->why_len, fmt, arg);
	return err;
}

/* Node n gets the next number and what the options want of it. */
static int number(struct pass *p, struct sqk_node *n, sqk_nid id, uint32_t pathlen, int is_root)
{
	struct sqk_number *nb = p->nb;
	const struct sqk_mkfs_opts *o = nb->o;
	char where[4096 + 2];
	const char *dup = "";
	uint16_t idx;
	int err;

	if (nb->count >= UINT32_MAX - 2)
		return SQK_ERR_OVERFLOW;
	n->number = ++nb->count;
	n->flags |= SQK_NODE_NUMBERED;
	if (!(n->flags & SQK_NODE_KEPT)) {
		sqk_attrs_force(o, n, is_root);
		if (o->set_mtime)
			n->mtime = o->mtime;
		else if (o->have_epoch && n->mtime > o->epoch)
			n->mtime = o->epoch;
	}
	if (n->mtime > nb->newest)
		nb->newest = n->mtime;
	err = sqk_id_table_get(nb->ids, n->uid, &idx);
	if (!err)
		err = sqk_id_table_get(nb->ids, n->gid, &idx);
	if (err == SQK_ERR_OVERFLOW) {
		char why[128];

		snprintf(why, sizeof(why),
			 "more than %u distinct owner and group ids; the format stores at most %u",
			 SQK_FMT_MAX_IDS, SQK_FMT_MAX_IDS);
		return fail(p, err, "", "%s", why);
	}
	if (err)
		return err;
	snprintf(where, sizeof(where), "/%.*s", (int)pathlen, p->path);
	if (p->adder && (err = sqk_attrs_adder_apply(p->adder, n, &dup))) {
		if (err == SQK_ERR_EXIST)
			fail(p, err, where,
			     "has the attribute %s already (--xattrs-exclude can drop it)", dup);
		return err;
	}
	err = sqk_tree_check_node(n, o->block_size, nb->why, nb->why_len);
	if (err) {
		snprintf(nb->where, nb->where_len, "%s", is_root ? "/" : where + 1);
		return err;
	}
	if (n->type == SQK_FILE && !(n->flags & SQK_NODE_DATA_DONE))
		nb->total += n->size;
	err = sqk_spool_write(&nb->order, &id, sizeof(id));
	return err ? err : sqk_tree_put(nb->t, id, n);
}

/* The directory on top is done: it is numbered after everything below it. */
static int close_dir(struct pass *p)
{
	struct frame *f = &p->stack[--p->depth];
	struct sqk_node n;
	int err = sqk_tree_get(p->nb->t, f->id, &n);

	if (err)
		return err;
	n.dir.nsubdirs = f->nsubdirs;
	n.nlink = 2 + f->nsubdirs;
	if (p->depth && (n.flags & (SQK_NODE_IMPLICIT | SQK_NODE_KEPT)) == SQK_NODE_IMPLICIT &&
	    !p->nb->o->set_mtime && (err = sqk_spool_write(&p->implicit, &f->id, sizeof(f->id))))
		return err;
	return number(p, &n, f->id, f->pathlen, p->depth == 0);
}

/* A name of the tree: a directory is entered, any other node numbered at its first. */
static int visit(struct pass *p, const struct sqk_tree_item *it)
{
	struct frame *top = &p->stack[p->depth - 1];
	struct sqk_node n;
	size_t i;
	int err;

	if (SQK_ARRAY_GROW(p->path, p->pathcap, it->klen + 1))
		return SQK_ERR_NOMEM;
	for (i = 0; i < it->klen; i++)
		p->path[i] = it->key[i] ? (char)it->key[i] : '/';
	err = sqk_tree_get(p->nb->t, it->node, &n);
	if (err)
		return err;
	if (n.type == SQK_DIR) {
		top->nsubdirs++;
		if (SQK_ARRAY_GROW(p->stack, p->cap, p->depth + 1))
			return SQK_ERR_NOMEM;
		p->stack[p->depth++] =
			(struct frame){it->node, n.dir.key, 0,
				       n.prio != SQK_PRIO_NONE ? n.prio : top->prio, it->klen};
		return 0;
	}
	if (n.type == SQK_FILE && !(n.flags & SQK_NODE_DATA_DONE)) {
		/* The key of its first path, and the highest priority of its names. */
		int32_t prio = n.prio != SQK_PRIO_NONE ? n.prio : top->prio;

		if (p->nb->reuse_keys && !n.file.key)
			n.file.key = sqk_reuse_key(top->key, it->name, it->len);
		if (!(n.flags & SQK_NODE_NUMBERED) || prio > n.rank)
			n.rank = prio;
	}
	if (n.flags & SQK_NODE_NUMBERED)
		return sqk_tree_put(p->nb->t, it->node, &n);
	return number(p, &n, it->node, it->klen, 0);
}

/*
 * The parents a path needed and no source described take the build's
 * time, the newest entry's, as the root does (--mtime set them already).
 */
static int implicit_times(struct pass *p)
{
	struct sqk_node n;
	uint64_t at;
	sqk_nid id;
	int err = 0;

	for (at = 0; !err && at < p->implicit.size; at += sizeof(id)) {
		err = sqk_spool_read(&p->implicit, at, &id, sizeof(id));
		if (!err)
			err = sqk_tree_get(p->nb->t, id, &n);
		if (err)
			break;
		n.mtime = p->nb->newest;
		err = sqk_tree_put(p->nb->t, id, &n);
	}
	return err;
}

int sqk_mkfs_number(struct sqk_number *nb, struct sqk_spill *sp)
{
	struct pass p = {.nb = nb};
	struct sqk_tree_walk *w = NULL;
	struct sqk_tree_item it;
	struct sqk_node root;
	int err;

	sqk_spool_init(&nb->order, sp, sqk_spill_share(sp, ORDER_SHARE, sp->tiny ? 16 : 1 << 16));
	sqk_spool_init(&p.implicit, sp,
		       sqk_spill_share(sp, IMPLICIT_SHARE, sp->tiny ? 16 : 1 << 12));
	nb->count = 0;
	nb->newest = 0;
	nb->total = 0;
	err = sqk_attrs_adder_create(nb->o, nb->xattrs, &p.adder);
	if (!err)
		err = sqk_tree_get(nb->t, SQK_NID_ROOT, &root);
	/* No source described the root: a plain directory of the newest time. */
	if (!err && (root.flags & SQK_NODE_IMPLICIT)) {
		root.mode = 0755;
		err = sqk_tree_put(nb->t, SQK_NID_ROOT, &root);
	}
	if (!err && SQK_ARRAY_GROW(p.stack, p.cap, 64))
		err = SQK_ERR_NOMEM;
	if (!err) {
		p.stack[p.depth++] = (struct frame){SQK_NID_ROOT, root.dir.key, 0,
						    root.prio != SQK_PRIO_NONE ? root.prio : 0, 0};
		err = sqk_tree_walk_start(nb->t, &w);
	}
	while (!err && !(err = sqk_tree_walk_next(w, &it))) {
		while (!err && p.depth > it.depth)
			err = close_dir(&p);
		if (!err)
			err = visit(&p, &it);
	}
	if (err == 1)
		err = 0;
	while (!err && p.depth)
		err = close_dir(&p);
	sqk_tree_walk_end(w);
	if (!err)
		err = implicit_times(&p);
	if (!err && (err = sqk_tree_get(nb->t, SQK_NID_ROOT, &root)) == 0 &&
	    (root.flags & SQK_NODE_IMPLICIT)) {
		root.mtime = nb->o->set_mtime ? nb->o->mtime : nb->newest;
		err = sqk_tree_put(nb->t, SQK_NID_ROOT, &root);
	}
	sqk_attrs_adder_destroy(p.adder);
	sqk_spool_release(&p.implicit);
	free(p.stack);
	free(p.path);
	return err;
}

void sqk_mkfs_number_release(struct sqk_number *nb)
{
	sqk_spool_release(&nb->order);
}
