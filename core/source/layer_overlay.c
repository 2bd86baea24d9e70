// SPDX-License-Identifier: BSD-2-Clause
/*
 * One layer as overlayfs keeps a lower directory (layers.h): a whiteout
 * ".wh.NAME" is a character device 0/0 named NAME, ".wh..wh..opq" the xattr
 * trusted.overlay.opaque="y" on its directory. Both wait for the layer's
 * end: a layer that removes a directory and makes it again holds both
 * ".wh.NAME" and NAME, in either order, and overlayfs keeps that as the
 * new directory made opaque (as it does itself when a lower directory is
 * removed and made again); a file NAME needs no whiteout beside it.
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "layers_int.h"
#include "src_archive.h"
#include "util/array.h"
#include "util/error.h"
#include "write/xattr_writer.h"

static int add_opaque(struct sqk_layer_state *st, sqk_nid dir)
{
	if (SQK_ARRAY_GROW(st->opaque, st->cap_opaque, st->nopaque + 1))
		return SQK_ERR_NOMEM;
	st->opaque[st->nopaque++] = dir;
	return 0;
}

int sqk_layer_overlay_whiteout(struct sqk_layer_state *st, struct archive_entry *e, char *path,
			       char *base)
{
	struct sqk_layer_whiteout *w;
	struct sqk_node dev;
	sqk_nid parent, id;
	const char *name;
	uint64_t ref;
	size_t len;
	int err;

	if (!strcmp(base, SQK_WH_OPAQUE)) {
		err = sqk_tree_walk_parent(st->t, path, &parent, &name, &len);
		if (err == SQK_ERR_NOTDIR || err == SQK_ERR_BADNAME)
			return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path,
					      "a parent is not a directory");
		return err ? err : add_opaque(st, parent);
	}
	/* NAME in place of ".wh.NAME", with the whiteout's attributes. */
	memmove(base, base + SQK_WH_LEN, strlen(base + SQK_WH_LEN) + 1);
	err = sqk_tree_walk_parent(st->t, path, &parent, &name, &len);
	if (err == SQK_ERR_NOTDIR || err == SQK_ERR_BADNAME)
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path, "a parent is not a directory");
	if (!err)
		err = sqk_tree_new(st->t, SQK_CHRDEV, &id, &dev);
	if (!err)
		err = sqk_src_archive_attrs(st->c, &dev, e, path);
	if (err)
		return err;
	dev.xattrs = NULL;
	err = sqk_tree_put(st->t, id, &dev);
	if (!err)
		err = sqk_tree_str(st->t, name, len, &ref);
	if (err)
		return err;
	if (SQK_ARRAY_GROW(st->whiteouts, st->cap_whiteouts, st->nwhiteouts + 1))
		return SQK_ERR_NOMEM;
	w = &st->whiteouts[st->nwhiteouts++];
	*w = (struct sqk_layer_whiteout){parent, ref, (uint32_t)len, id};
	return 0;
}

/* The whiteouts where the layer has nothing of that name, and the opaque directories' xattr. */
int sqk_layer_end(struct sqk_layer_state *st)
{
	static const struct sqk_xattr_in opaque = {"trusted.overlay.opaque", "y", 1};
	char name[SQK_NAME_MAX + 1];
	struct sqk_node n;
	size_t i, dup;
	sqk_nid id;
	int err;

	for (i = 0; i < st->nwhiteouts; i++) {
		struct sqk_layer_whiteout *w = &st->whiteouts[i];

		if (w->len > SQK_NAME_MAX)
			return sqk_layer_fail(st, SQK_ERR_BADNAME, "?", sqk_strerror(SQK_ERR_BADNAME));
		err = sqk_tree_str_get(st->t, w->name, w->len, name);
		if (!err)
			err = sqk_tree_lookup(st->t, w->dir, name, w->len, &id);
		if (!err && id)
			err = sqk_tree_get(st->t, id, &n);
		if (!err && !id)
			err = sqk_layer_place(st, w->dir, name, w->len, w->dev, name);
		else if (!err && n.type == SQK_DIR)
			err = add_opaque(st, id);
		if (err)
			return err;
	}
	st->nwhiteouts = 0;
	for (i = 0; i < st->nopaque; i++) {
		char where[4096];

		if (!st->c->xattrs) {
			sqk_tree_dir_path(st->t, st->opaque[i], where, sizeof(where));
			return sqk_layer_fail(st, SQK_ERR_ARG, *where ? where : "/",
					      "an opaque directory needs the xattr "
					      "trusted.overlay.opaque, and xattrs are left out");
		}
		err = sqk_tree_get(st->t, st->opaque[i], &n);
		if (err)
			return err;
		err = sqk_xattrs_extend(st->c->xattrs, n.xattrs, &opaque, 1, &n.xattrs, &dup);
		if (err && err != SQK_ERR_EXIST)
			return err;
		err = sqk_tree_put(st->t, st->opaque[i], &n);
		if (err)
			return err;
	}
	st->nopaque = 0;
	return 0;
}
