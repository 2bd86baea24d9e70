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

static int add_opaque(struct sqk_layer_state *st, struct sqk_node *dir)
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
	struct sqk_node *parent, *dev;
	const char *name;
	size_t len;
	int err;

	if (!strcmp(base, SQK_WH_OPAQUE)) {
		err = sqk_tree_walk_parent(st->t, path, &parent, &name, &len);
		if (err)
			return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path,
					      "a parent is not a directory");
		return add_opaque(st, parent);
	}
	/* NAME in place of ".wh.NAME", with the whiteout's attributes. */
	memmove(base, base + SQK_WH_LEN, strlen(base + SQK_WH_LEN) + 1);
	err = sqk_tree_walk_parent(st->t, path, &parent, &name, &len);
	if (err)
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path, "a parent is not a directory");
	dev = sqk_tree_node(st->t, SQK_CHRDEV);
	if (!dev || SQK_ARRAY_GROW(st->whiteouts, st->cap_whiteouts, st->nwhiteouts + 1))
		return SQK_ERR_NOMEM;
	err = sqk_src_archive_attrs(st->c, dev, e, path);
	if (err)
		return err;
	dev->xattrs = NULL;
	w = &st->whiteouts[st->nwhiteouts];
	*w = (struct sqk_layer_whiteout){parent, sqk_tree_strdup(st->t, name, len), (uint32_t)len,
					 dev};
	if (!w->name)
		return SQK_ERR_NOMEM;
	st->nwhiteouts++;
	return 0;
}

/* The whiteouts where the layer has nothing of that name, and the opaque directories' xattr. */
int sqk_layer_end(struct sqk_layer_state *st)
{
	static const struct sqk_xattr_in opaque = {"trusted.overlay.opaque", "y", 1};
	size_t i, dup;
	int err;

	for (i = 0; i < st->nwhiteouts; i++) {
		struct sqk_layer_whiteout *w = &st->whiteouts[i];
		struct sqk_node *n = sqk_tree_lookup(st->t, w->dir, w->name, w->len);

		if (!n)
			err = sqk_layer_place(st, w->dir, w->name, w->len, w->dev, w->name);
		else
			err = n->type == SQK_DIR ? add_opaque(st, n) : 0;
		if (err)
			return err;
	}
	st->nwhiteouts = 0;
	for (i = 0; i < st->nopaque; i++) {
		struct sqk_node *d = st->opaque[i];
		char where[4096];

		if (!st->c->xattrs) {
			sqk_tree_dir_path(d, where, sizeof(where));
			return sqk_layer_fail(st, SQK_ERR_ARG, *where ? where : "/",
					      "an opaque directory needs the xattr "
					      "trusted.overlay.opaque, and xattrs are left out");
		}
		err = sqk_xattrs_extend(st->c->xattrs, d->xattrs, &opaque, 1, &d->xattrs, &dup);
		if (err && err != SQK_ERR_EXIST)
			return err;
	}
	st->nopaque = 0;
	return 0;
}
