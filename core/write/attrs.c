// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "format/format.h"
#include "mkfs_opts.h"
#include "tree.h"
#include "util/error.h"
#include "util/mode.h"
#include "util/xattr_filter.h"
#include "xattr_writer.h"

void sqk_attrs_force(const struct sqk_mkfs_opts *o, struct sqk_node *n, int is_root)
{
	const struct sqk_mode *mode = n->type == SQK_DIR ? o->dir_mode : o->file_mode;

	if (is_root && o->root_mode)
		mode = o->root_mode;
	if (mode)
		n->mode = sqk_mode_apply(mode, n->mode, n->type == SQK_DIR);
	if (o->force_uid)
		n->uid = o->uid;
	if (o->force_gid)
		n->gid = o->gid;
	if (is_root && o->set_root_uid)
		n->uid = o->root_uid;
	if (is_root && o->set_root_gid)
		n->gid = o->root_gid;
}

struct adder {
	struct sqk_xattrs *x;
	struct sqk_xattr_in *all, *other; /* every add; the adds outside user. */
	size_t nall, nother;
	struct sqk_xattr_set *bare_all, *bare_other; /* for inodes that had none */
	uint8_t *done;				     /* by inode number: hard links once */
};

/* 0, or SQK_ERR_EXIST with *name the add the inode has already. */
static int add_to(struct adder *a, struct sqk_node *n, const char **name)
{
	int user_ok = n->type == SQK_FILE || n->type == SQK_DIR;
	struct sqk_xattr_in *in = user_ok ? a->all : a->other;
	size_t cnt = user_ok ? a->nall : a->nother, dup = 0;
	struct sqk_xattr_set **bare = user_ok ? &a->bare_all : &a->bare_other;
	int err;

	/* An appended-to image's inodes keep their attributes. */
	if (a->done[n->number - 1] || !cnt || (n->flags & SQK_NODE_KEPT))
		return 0;
	a->done[n->number - 1] = 1;
	if (!n->xattrs && *bare) {
		n->xattrs = *bare;
		return 0;
	}
	err = sqk_xattrs_extend(a->x, n->xattrs, in, cnt, &n->xattrs, &dup);
	if (err == SQK_ERR_EXIST)
		*name = in[dup].name;
	return err;
}

int sqk_attrs_add_xattrs(const struct sqk_mkfs_opts *o, struct sqk_xattrs *x,
			 struct sqk_node *const *order, uint32_t count, char *where,
			 size_t where_len, char *why, size_t why_len)
{
	struct adder a = {.x = x};
	const char *dup = NULL;
	size_t i;
	uint32_t d, k;
	int err = 0;

	if (!x || !o->nxattr_adds)
		return 0;
	a.all = calloc(o->nxattr_adds, sizeof(*a.all));
	a.other = calloc(o->nxattr_adds, sizeof(*a.other));
	a.done = calloc(count, 1);
	if (!a.all || !a.other || !a.done) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < o->nxattr_adds; i++) {
		const struct sqk_xattr_add *xa = &o->xattr_adds[i];
		struct sqk_xattr_in in = {xa->name, xa->value, xa->value_len};

		a.all[a.nall++] = in;
		if (strncmp(xa->name, "user.", 5) != 0)
			a.other[a.nother++] = in;
	}
	/* What an inode without attributes of its own gets: interned once. */
	if (a.nall)
		err = sqk_xattrs_intern(x, a.all, a.nall, &a.bare_all, NULL);
	if (!err && a.nother)
		err = sqk_xattrs_intern(x, a.other, a.nother, &a.bare_other, NULL);
	if (err)
		goto out;
	/* Through the directories, so that an error can name the entry. */
	for (d = count; d-- > 0 && !err;) {
		struct sqk_node *dir = order[d];

		if (dir->type != SQK_DIR)
			continue;
		if (!dir->dir.parent) {
			err = add_to(&a, dir, &dup);
			if (err == SQK_ERR_EXIST)
				snprintf(where, where_len, "/");
		}
		for (k = 0; k < dir->dir.n && !err; k++) {
			const struct sqk_tree_entry *e = &dir->dir.ents[k];

			err = add_to(&a, e->node, &dup);
			if (err == SQK_ERR_EXIST) {
				char path[4096];

				sqk_tree_dir_path(dir, path, sizeof(path));
				snprintf(where, where_len, "/%s%s%.*s", path, *path ? "/" : "",
					 (int)e->len, e->name);
			}
		}
	}
	if (err == SQK_ERR_EXIST)
		snprintf(why, why_len,
			 "has the attribute %s already (--xattrs-exclude can drop it)", dup);
out:
	free(a.all);
	free(a.other);
	free(a.done);
	return err;
}
