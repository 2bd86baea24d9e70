// SPDX-License-Identifier: BSD-2-Clause
/*
 * A selected path on one side of a comparison, resolved as a path in a
 * mounted tree resolves (util/path_walk.c): the symlinks on the way are
 * followed inside the tree, the last one only when the path ends with
 * "/". The side goes down directory by directory through its tree's
 * operations, and stays in the parent of what the path names, so that the
 * walk can go on from there as from any entry it meets.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"
#include "format/fmt_name.h"
#include "format/format.h"
#include "util/array.h"
#include "util/error.h"
#include "util/path_walk.h"

static void drop_child(struct diff_side_path *p)
{
	if (p->have_child)
		p->t->ops->release(&p->child);
	p->have_child = 0;
}

/* Enter dir (taken over) and keep it with its listing, at the bottom of the way. */
static int push(struct diff_side_path *p, struct sqk_dnode *dir)
{
	struct diff_path_level *l;
	int err;

	if (SQK_ARRAY_GROW(p->lv, p->cap, p->depth + 1)) {
		p->t->ops->release(dir);
		return SQK_ERR_NOMEM;
	}
	l = &p->lv[p->depth];
	l->node = *dir;
	err = p->t->ops->enter(p->t, &l->node);
	if (err) {
		p->t->ops->release(&l->node);
		return err;
	}
	p->depth++;
	return 0;
}

/* Leave the last directory entered; its node goes to *keep, or is released. */
static void pop(struct diff_side_path *p, struct sqk_dnode *keep)
{
	struct diff_path_level *l = &p->lv[--p->depth];

	p->t->ops->leave(p->t);
	if (keep)
		*keep = l->node;
	else
		p->t->ops->release(&l->node);
}

/* name in the directory entered last, its listing read from the start: 1 and *e, 0, or an error. */
static int find(struct diff_side_path *p, const char *name, size_t len,
		const struct sqk_dir_entry **e)
{
	int r = p->t->ops->rewind(p->t), c = 1;

	while (!r && (r = p->t->ops->next(p->t, e)) == 1) {
		c = sqk_name_cmp((*e)->name, (*e)->name_len, name, len);
		if (c >= 0)
			break;
		r = 0;
	}
	return r < 0 ? r : r == 1 && c == 0;
}

static int lookup(void *ctx, const char *name, size_t len, enum sqk_path_kind *kind,
		  const char **target)
{
	struct diff_side_path *p = ctx;
	const struct sqk_dir_entry *e;
	int err;

	drop_child(p);
	if (len > SQK_NAME_MAX)
		return SQK_ERR_NOENT;
	err = find(p, name, len, &e);
	if (err <= 0)
		return err ? err : SQK_ERR_NOENT;
	err = p->t->ops->stat(p->t, e, &p->child);

	if (err)
		return err;
	p->have_child = 1;
	*kind = p->child.type == SQK_DIR       ? SQK_PATH_DIR
		: p->child.type == SQK_SYMLINK ? SQK_PATH_SYMLINK
					       : SQK_PATH_OTHER;
	*target = p->child.target;
	return 0;
}

static int enter(void *ctx)
{
	struct diff_side_path *p = ctx;

	p->have_child = 0;
	return push(p, &p->child);
}

/*
 * Back at the root, the walk of the tree started afresh: a tree may take a
 * directory entered twice in one walk for a loop (an image's is), and a
 * path may well go through one twice.
 */
static int root(void *ctx)
{
	struct diff_side_path *p = ctx;
	struct sqk_dnode top;
	int err;

	drop_child(p);
	while (p->depth)
		pop(p, NULL);
	err = p->t->ops->root(p->t, &top);
	return err ? err : push(p, &top);
}

/* Up to done ("a/b", resolved already): down again from the root. */
static int up(void *ctx, const char *done)
{
	struct diff_side_path *p = ctx;
	int err = root(ctx);

	while (!err && *done) {
		size_t len = strcspn(done, "/");
		enum sqk_path_kind kind;
		const char *target;

		err = lookup(p, done, len, &kind, &target);
		if (!err)
			err = kind == SQK_PATH_DIR ? enter(p) : SQK_ERR_CORRUPT;
		done += len + (done[len] == '/');
	}
	return err;
}

static const struct sqk_path_ops side_ops = {lookup, enter, up, root};

/*
 * The path ended in a directory entered on the way ("a/.", "a/b/.."): the
 * tree starts afresh and goes down to its parent, and it is looked up there
 * as the last entry of any other path would be.
 */
static int reach(struct diff_side_path *p, char *resolved)
{
	char *slash = strrchr(resolved, '/');
	const char *name = slash ? slash + 1 : resolved, *target;
	enum sqk_path_kind kind;
	int err;

	if (!*resolved) {
		drop_child(p);
		while (p->depth)
			pop(p, NULL);
		err = p->t->ops->root(p->t, &p->child);
		p->have_child = !err;
		return err;
	}
	if (slash)
		*slash = '\0';
	err = up(p, slash ? resolved : "");
	return err ? err : lookup(p, name, strlen(name), &kind, &target);
}

int sqk_diff_path_open(struct diff_side_path *p, struct sqk_dtree *t, const char *path,
		       struct sqk_dnode **out)
{
	char *resolved = NULL;
	int err, pending = 0;

	memset(p, 0, sizeof(*p));
	p->t = t;
	*out = NULL;
	err = root(p);
	if (!err)
		err = sqk_path_walk(path, 0, &side_ops, p, NULL, &pending, &resolved);
	if (!err && !pending)
		err = reach(p, resolved);
	free(resolved);
	/* What the path names is not on this side. */
	if (err == SQK_ERR_NOENT || err == SQK_ERR_NOTDIR)
		return 0;
	if (!err)
		*out = &p->child;
	return err;
}

void sqk_diff_path_close(struct diff_side_path *p)
{
	drop_child(p);
	while (p->depth)
		pop(p, NULL);
	free(p->lv);
	p->lv = NULL;
}
