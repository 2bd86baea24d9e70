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

struct sqk_xattr_adder {
	struct sqk_xattrs *x;
	struct sqk_xattr_in *all, *other; /* every add; the adds outside user. */
	size_t nall, nother;
	struct sqk_xattr_set *bare_all, *bare_other; /* for inodes that had none */
};

int sqk_attrs_adder_apply(struct sqk_xattr_adder *a, struct sqk_node *n, const char **name)
{
	int user_ok = n->type == SQK_FILE || n->type == SQK_DIR;
	struct sqk_xattr_in *in = user_ok ? a->all : a->other;
	size_t cnt = user_ok ? a->nall : a->nother, dup = 0;
	struct sqk_xattr_set **bare = user_ok ? &a->bare_all : &a->bare_other;
	int err;

	/* An appended-to image's inodes keep their attributes. */
	if (!cnt || (n->flags & SQK_NODE_KEPT))
		return 0;
	if (!n->xattrs && *bare) {
		n->xattrs = *bare;
		return 0;
	}
	err = sqk_xattrs_extend(a->x, n->xattrs, in, cnt, &n->xattrs, &dup);
	if (err == SQK_ERR_EXIST)
		*name = in[dup].name;
	return err;
}

void sqk_attrs_adder_destroy(struct sqk_xattr_adder *a)
{
	if (!a)
		return;
	free(a->all);
	free(a->other);
	free(a);
}

int sqk_attrs_adder_create(const struct sqk_mkfs_opts *o, struct sqk_xattrs *x,
			   struct sqk_xattr_adder **out)
{
	struct sqk_xattr_adder *a;
	size_t i;
	int err = 0;

	*out = NULL;
	if (!x || !o->nxattr_adds)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return SQK_ERR_NOMEM;
	a->x = x;
	a->all = calloc(o->nxattr_adds, sizeof(*a->all));
	a->other = calloc(o->nxattr_adds, sizeof(*a->other));
	if (!a->all || !a->other) {
		sqk_attrs_adder_destroy(a);
		return SQK_ERR_NOMEM;
	}
	for (i = 0; i < o->nxattr_adds; i++) {
		const struct sqk_xattr_add *xa = &o->xattr_adds[i];
		struct sqk_xattr_in in = {xa->name, xa->value, xa->value_len};

		a->all[a->nall++] = in;
		if (strncmp(xa->name, "user.", 5) != 0)
			a->other[a->nother++] = in;
	}
	/* What an inode without attributes of its own gets: interned once. */
	if (a->nall)
		err = sqk_xattrs_intern(x, a->all, a->nall, &a->bare_all, NULL);
	if (!err && a->nother)
		err = sqk_xattrs_intern(x, a->other, a->nother, &a->bare_other, NULL);
	if (err) {
		sqk_attrs_adder_destroy(a);
		return err;
	}
	*out = a;
	return 0;
}
