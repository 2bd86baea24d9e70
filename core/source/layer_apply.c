// SPDX-License-Identifier: BSD-2-Clause
/*
 * One entry of a layer applied to the tree (layers.h; the OCI image spec's
 * "Applying Changesets" and "Whiteouts"). Each entry is stamped with the
 * layer that made it, because a whiteout applies to what the lower layers
 * made only: the entries of its own layer stay, before it in the tar or
 * after. A file of a lower layer is pending: its data waits for the second
 * pass, fed only if the finished tree still names the file.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "layers_int.h"
#include "src_archive.h"
#include "util/array.h"
#include "util/error.h"
#include "write/xattr_writer.h"

int sqk_layer_fail(struct sqk_layer_state *st, int err, const char *path, const char *what)
{
	errno = 0;
	sqk_src_fail(st->c, st->name, "%s: %s", path, what);
	return err;
}

/* The layer that made the entry (its tree name), and that gave a directory its attributes. */
static void stamps(const struct sqk_layer_state *st, const char *ename, uint32_t *made,
		   uint32_t *attrs)
{
	uint64_t v = ename ? sqk_hash_get(&st->stamps, (uintptr_t)ename) : 0;

	*made = (uint32_t)v;
	*attrs = (uint32_t)(v >> 32);
}

static int stamp(struct sqk_layer_state *st, const char *ename, uint32_t made, uint32_t attrs)
{
	uint64_t old = sqk_hash_get(&st->stamps, (uintptr_t)ename);

	if (old)
		sqk_hash_remove(&st->stamps, (uintptr_t)ename, old);
	if (sqk_hash_add(&st->stamps, (uintptr_t)ename, made | (uint64_t)attrs << 32))
		return SQK_ERR_NOMEM;
	return 0;
}

uint64_t sqk_layer_check(struct archive_entry *e)
{
	const char *p = archive_entry_pathname(e);
	uint64_t h = 0xcbf29ce484222325ull;
	int64_t size = archive_entry_size(e);

	for (; p && *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h ^ (uint64_t)size * 0x9e3779b97f4a7c15ull;
}

static struct sqk_layer_pending *pending_of(struct sqk_layer_state *st, struct sqk_node *n)
{
	uint64_t i = sqk_hash_get(&st->by_node, (uintptr_t)n);

	return i ? &st->pending[i - 1] : NULL;
}

/* The file n waits for the data of entry e of this layer, at parent/name. */
static int pending_set(struct sqk_layer_state *st, struct sqk_node *n, struct sqk_node *parent,
		       const char *name, size_t len, struct archive_entry *e)
{
	struct sqk_layer_pending *p = pending_of(st, n);

	if (!p) {
		if (SQK_ARRAY_GROW(st->pending, st->cap_pending, st->npending + 1) ||
		    sqk_hash_add(&st->by_node, (uintptr_t)n, st->npending + 1))
			return SQK_ERR_NOMEM;
		p = &st->pending[st->npending++];
	}
	*p = (struct sqk_layer_pending){n,	st->layer, st->ordinal,	 sqk_layer_check(e),
					parent, name,	   (uint32_t)len};
	return 0;
}

/* A copy of n (--no-hardlinks) waits for the same data as n. */
static int pending_copy(struct sqk_layer_state *st, struct sqk_node *n, struct sqk_node *copy)
{
	struct sqk_layer_pending *p = pending_of(st, n), q;

	if (!p || !p->layer)
		return 0;
	q = *p;
	q.node = copy;
	if (SQK_ARRAY_GROW(st->pending, st->cap_pending, st->npending + 1) ||
	    sqk_hash_add(&st->by_node, (uintptr_t)copy, st->npending + 1))
		return SQK_ERR_NOMEM;
	st->pending[st->npending++] = q;
	return 0;
}

/*
 * A directory kept only for what this layer put in it: the lower one it
 * was is gone, so its attributes are those of a directory made for a path.
 */
static void make_implicit(struct sqk_node *dir)
{
	if (dir->flags & SQK_NODE_IMPLICIT)
		return;
	dir->flags |= SQK_NODE_IMPLICIT;
	dir->mode = 0755;
	dir->uid = dir->gid = 0;
	dir->xattrs = NULL;
	if (dir->dir.parent)
		dir->mtime = dir->dir.parent->mtime;
}

/*
 * Remove from dir's entry name what the lower layers made (a whiteout names
 * it, or an opaque directory holds it); what this layer made stays, and so
 * does a directory on the way to it. 1 when the entry stays.
 */
static int strip(struct sqk_layer_state *st, struct sqk_node *dir, const char *name, size_t len)
{
	const char *ename = sqk_tree_entry_name(st->t, dir, name, len);
	struct sqk_node *n;
	uint32_t made, attrs, i;

	if (!ename)
		return 0;
	stamps(st, ename, &made, &attrs);
	if (made == st->layer)
		return 1;
	n = sqk_tree_lookup(st->t, dir, name, len);
	if (n->type == SQK_DIR) {
		/* Last first: a removal moves the last entry into the freed place. */
		for (i = n->dir.n; i-- > 0;)
			strip(st, n, n->dir.ents[i].name, n->dir.ents[i].len);
		if (attrs == st->layer)
			return 1;
		if (n->dir.n) {
			make_implicit(n);
			return 1;
		}
	}
	sqk_tree_remove(st->t, dir, name, len);
	return 0;
}

/* The node at path (as normalize leaves it), making nothing: NULL when it is not there. */
static struct sqk_node *find(struct sqk_tree *t, const char *path, size_t plen)
{
	struct sqk_node *n = sqk_tree_root(t);
	size_t i = 0, j;

	while (i < plen) {
		for (j = i; j < plen && path[j] != '/'; j++)
			;
		if (j > i && !(j - i == 1 && path[i] == '.')) {
			if (n->type != SQK_DIR ||
			    (j - i == 2 && path[i] == '.' && path[i + 1] == '.'))
				return NULL;
			n = sqk_tree_lookup(t, n, path + i, j - i);
			if (!n)
				return NULL;
		}
		i = j + 1;
	}
	return n;
}

/*
 * The path as the tree takes it, into buf: no leading '/' or "./", no
 * trailing '/'. *abs says whether it was absolute; SQK_ERR_OVERFLOW when
 * it does not fit.
 */
static int normalize(const char *in, char *buf, size_t cap, int *abs)
{
	size_t n;

	*abs = in[0] == '/';
	for (;;) {
		while (in[0] == '/')
			in++;
		if (in[0] == '.' && in[1] == '/')
			in += 2;
		else
			break;
	}
	n = strlen(in);
	while (n && in[n - 1] == '/')
		n--;
	if (n == 1 && in[0] == '.')
		n = 0;
	if (n >= cap)
		return SQK_ERR_OVERFLOW;
	memcpy(buf, in, n);
	buf[n] = '\0';
	return 0;
}

static int has_dotdot(const char *p)
{
	for (;;) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return 1;
		p = strchr(p, '/');
		if (!p)
			return 0;
		p++;
	}
}

int sqk_layer_place(struct sqk_layer_state *st, struct sqk_node *parent, const char *name,
		    size_t len, struct sqk_node *node, const char *path)
{
	int err;

	if (sqk_tree_lookup(st->t, parent, name, len))
		sqk_tree_remove(st->t, parent, name, len);
	err = sqk_tree_add(st->t, parent, name, len, node);
	if (err)
		return sqk_layer_fail(st, err, path, sqk_strerror(err));
	st->c->entries++;
	return stamp(st, sqk_tree_entry_name(st->t, parent, name, len), st->layer,
		     node->type == SQK_DIR ? st->layer : 0);
}

/* A file's data: to the pipeline now (the top layer), or pending for the second pass. */
static int take_data(struct sqk_layer_state *st, struct sqk_node *n, struct archive_entry *e,
		     const char *path, struct sqk_node *parent, const char *name, size_t len)
{
	struct sqk_layer_pending *p;

	if (st->feed_now) {
		p = pending_of(st, n);
		if (p)
			p->layer = 0;
		return sqk_src_archive_feed(st->c, st->a, e, n, path, parent, name, len);
	}
	n->size = (uint64_t)(archive_entry_size(e) > 0 ? archive_entry_size(e) : 0);
	n->file.data = NULL;
	n->flags &= ~SQK_NODE_DATA_DONE;
	if (archive_entry_size_is_set(e) && archive_entry_size(e) <= 0)
		return 0; /* empty: the writer makes it at finish */
	return pending_set(st, n, parent, name, len, e);
}

static int hardlink(struct sqk_layer_state *st, struct archive_entry *e, const char *link,
		    const char *path, struct sqk_node *parent, const char *name, size_t len)
{
	char target[4096];
	struct sqk_node *n;
	int abs, err;

	if (normalize(link, target, sizeof(target), &abs) ||
	    !(n = find(st->t, target, strlen(target))) || n->type == SQK_DIR) {
		char why[4200];

		snprintf(why, sizeof(why),
			 st->mode == SQK_LAYERS_APPLY
				 ? "hard link to '%s', which is not in the layers before it"
				 : "hard link to '%s', which is not in this layer (a layer of "
				   "overlayfs cannot link to a lower layer's file)",
			 link);
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path, why);
	}
	if (!len)
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path,
				      "the root entry is not a directory");
	if (st->c->no_hardlinks) {
		struct sqk_node *copy = sqk_tree_node(st->t, n->type);

		if (!copy)
			return SQK_ERR_NOMEM;
		*copy = *n;
		copy->nlink = 0;
		err = pending_copy(st, n, copy);
		if (err)
			return err;
		n = copy;
	}
	/* A link that carries data (cpio's way) gives its file that data. */
	if (n->type == SQK_FILE && archive_entry_size_is_set(e) && archive_entry_size(e) > 0) {
		err = take_data(st, n, e, path, parent, name, len);
		if (err)
			return err;
	}
	return sqk_layer_place(st, parent, name, len, n, path);
}

static int regular(struct sqk_layer_state *st, struct archive_entry *e, const char *path)
{
	const char *link = archive_entry_hardlink(e), *name, *ename;
	struct sqk_node *parent, *node, *old;
	unsigned type;
	uint32_t made, attrs;
	size_t len;
	int err = sqk_tree_walk_parent(st->t, path, &parent, &name, &len);

	if (err)
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path,
				      err == SQK_ERR_NOTDIR ? "a parent is not a directory"
							    : "unsafe path in the layer");
	if (link)
		return hardlink(st, e, link, path, parent, name, len);
	type = sqk_src_archive_type(e);
	if (!type)
		return sqk_layer_fail(st, SQK_ERR_UNSUPPORTED, path,
				      "unsupported entry type in the layer");
	if (!len) {
		node = sqk_tree_root(st->t);
		if (type != SQK_DIR)
			return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path,
					      "the root entry is not a directory");
		node->flags &= ~SQK_NODE_IMPLICIT;
		return sqk_src_archive_attrs(st->c, node, e, "/");
	}
	old = sqk_tree_lookup(st->t, parent, name, len);
	if (old && old->type == SQK_DIR && type == SQK_DIR) {
		/* A directory over a directory: its attributes replace the old ones, no more. */
		old->flags &= ~SQK_NODE_IMPLICIT;
		err = sqk_src_archive_attrs(st->c, old, e, path);
		ename = sqk_tree_entry_name(st->t, parent, name, len);
		stamps(st, ename, &made, &attrs);
		return err ? err : stamp(st, ename, made, st->layer);
	}
	node = sqk_tree_node(st->t, type);
	if (!node)
		return SQK_ERR_NOMEM;
	err = sqk_src_archive_attrs(st->c, node, e, path);
	if (err)
		return err;
	err = type == SQK_FILE ? take_data(st, node, e, path, parent, name, len)
			       : sqk_src_archive_special(st->c, node, e);
	return err ? err : sqk_layer_place(st, parent, name, len, node, path);
}

static int whiteout(struct sqk_layer_state *st, struct archive_entry *e, char *path, char *base,
		    int abs)
{
	struct sqk_node *dir;
	uint32_t i;

	if (abs || has_dotdot(path))
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, archive_entry_pathname(e),
				      "a whiteout outside the image's tree");
	if (!base[SQK_WH_LEN])
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path, "a whiteout that names nothing");
	if (st->mode == SQK_LAYERS_OVERLAY)
		return sqk_layer_overlay_whiteout(st, e, path, base);
	/* What it names must be there already: a whiteout makes no directory. */
	dir = find(st->t, path, (size_t)(base - path));
	if (!dir || dir->type != SQK_DIR)
		return 0;
	if (!strcmp(base, SQK_WH_OPAQUE)) {
		for (i = dir->dir.n; i-- > 0;)
			strip(st, dir, dir->dir.ents[i].name, dir->dir.ents[i].len);
		return 0;
	}
	strip(st, dir, base + SQK_WH_LEN, strlen(base + SQK_WH_LEN));
	return 0;
}

/* A component of path named ".wh..wh.*", but the opaque marker as its base name. */
static int aufs_meta(const char *path, const char *base)
{
	const char *p = path;

	for (;;) {
		if (!strncmp(p, SQK_WH SQK_WH, 2 * SQK_WH_LEN) &&
		    (p != base || strcmp(p, SQK_WH_OPAQUE)))
			return 1;
		p = strchr(p, '/');
		if (!p)
			return 0;
		p++;
	}
}

int sqk_layer_entry(struct sqk_layer_state *st, struct archive_entry *e)
{
	const char *raw = archive_entry_pathname(e);
	char path[4096], *base;
	int abs;

	if (!raw)
		raw = archive_entry_pathname_utf8(e);
	if (!raw)
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, "?", "an entry has no name");
	if (normalize(raw, path, sizeof(path), &abs))
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, raw, "the path is too long");
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	/* AUFS's own files (.wh..wh.plnk/...): no part of the image, as Docker skips them. */
	if (aufs_meta(path, base))
		return 0;
	if (!strncmp(base, SQK_WH, SQK_WH_LEN))
		return whiteout(st, e, path, base, abs);
	if (sqk_src_archive_excluded(st->c, path))
		return 0;
	return regular(st, e, path);
}

void sqk_layer_state_release(struct sqk_layer_state *st)
{
	sqk_hash_release(&st->stamps);
	sqk_hash_release(&st->by_node);
	free(st->pending);
	free(st->opaque);
	free(st->whiteouts);
}
