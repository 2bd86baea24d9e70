// SPDX-License-Identifier: BSD-2-Clause
/*
 * Symlink-following path resolution in an image: the path walk
 * (util/path_walk.c) over the image's directories, ".." done by resolving
 * the directory above again from the root.
 */
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "read/dir.h"
#include "read/inode.h"
#include "resolve.h"
#include "util/error.h"
#include "util/path_walk.h"
#include "walk.h"

/* The image as the path walk's tree: the current directory and the entry looked up. */
struct itree {
	struct sqk_image *img;
	struct sqk_inode cur, child;
	int have_child;
};

static void drop_child(struct itree *it)
{
	if (it->have_child)
		sqk_inode_free(&it->child);
	it->have_child = 0;
}

static int i_lookup(void *ctx, const char *name, size_t len, enum sqk_path_kind *kind,
		    const char **target)
{
	struct itree *it = ctx;
	struct sqk_dir_entry ent;
	unsigned type;
	int err;

	drop_child(it);
	err = sqk_dir_lookup(it->img, &it->cur, name, len, &ent);
	if (!err)
		err = sqk_inode_read(it->img, ent.ref, &it->child);
	if (err)
		return err;
	it->have_child = 1;
	type = sqk_basic_type(it->child.type);
	*kind = type == SQK_DIR	      ? SQK_PATH_DIR
		: type == SQK_SYMLINK ? SQK_PATH_SYMLINK
				      : SQK_PATH_OTHER;
	*target = it->child.target;
	return 0;
}

static int i_enter(void *ctx)
{
	struct itree *it = ctx;

	sqk_inode_free(&it->cur);
	it->cur = it->child;
	it->have_child = 0;
	return 0;
}

/* ".." and an absolute target: the directory resolved again from the root. */
static int i_up(void *ctx, const char *done)
{
	struct itree *it = ctx;

	drop_child(it);
	sqk_inode_free(&it->cur);
	return sqk_resolve(it->img, done, &it->cur);
}

static int i_root(void *ctx)
{
	return i_up(ctx, "");
}

static const struct sqk_path_ops image_ops = {i_lookup, i_enter, i_up, i_root};

int sqk_resolve_follow(struct sqk_image *img, const char *path, int follow_last,
		       struct sqk_inode *ino)
{
	return sqk_resolve_trace(img, path, follow_last, NULL, ino);
}

int sqk_resolve_trace(struct sqk_image *img, const char *path, int follow_last,
		      struct sqk_resolve_trace *t, struct sqk_inode *ino)
{
	struct sqk_path_trace pt = {0, NULL, NULL};
	struct itree it = {.img = img};
	int err, pending = 0;

	if (t) {
		pt.relative_only = t->relative_only;
		pt.visit = t->visit;
		pt.ctx = t->ctx;
	}
	err = sqk_resolve(img, "", &it.cur);
	if (err)
		return err;
	/* sqk_resolve() failing leaves cur empty: freeing it is safe. */
	err = sqk_path_walk(path, follow_last, &image_ops, &it, &pt, &pending, t ? &t->path : NULL);
	if (!err && pending) {
		*ino = it.child;
		it.have_child = 0;
	} else if (!err) {
		*ino = it.cur;
		memset(&it.cur, 0, sizeof(it.cur));
	}
	drop_child(&it);
	sqk_inode_free(&it.cur);
	return err;
}
