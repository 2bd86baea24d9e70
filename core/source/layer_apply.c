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

uint64_t sqk_layer_check(struct archive_entry *e)
{
	const char *p = archive_entry_pathname(e);
	uint64_t h = 0xcbf29ce484222325ull;
	int64_t size = archive_entry_size(e);

	for (; p && *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h ^ (uint64_t)size * 0x9e3779b97f4a7c15ull;
}

/* The pending record of file n: 1 and *p (its index in *at), 0 when it has none, or an error. */
static int pending_of(struct sqk_layer_state *st, sqk_nid n, struct sqk_layer_pending *p,
		      uint64_t *at)
{
	uint64_t i;
	int r = sqk_store_hash_get(&st->by_node, n, &i);

	if (r <= 0)
		return r;
	*at = i - 1;
	r = sqk_store_get(st->pending, *at, p, sizeof(*p));
	return r ? r : 1;
}

/* Record p for file n: at its index, or at a new one. */
static int pending_put(struct sqk_layer_state *st, sqk_nid n, const struct sqk_layer_pending *p)
{
	uint64_t at;
	int r = sqk_store_hash_get(&st->by_node, n, &at);

	if (r < 0)
		return r;
	if (r) {
		at--;
	} else {
		if (!st->pending && (r = sqk_store_create(st->c->spill, 0, 0, &st->pending)))
			return r;
		at = st->npending++;
		r = sqk_store_hash_set(&st->by_node, n, at + 1);
		if (r)
			return r;
	}
	return sqk_store_put(st->pending, at, p, sizeof(*p));
}

/* The file n waits for the data of entry e of this layer, at parent/name. */
static int pending_set(struct sqk_layer_state *st, sqk_nid n, sqk_nid parent, const char *name,
		       size_t len, struct archive_entry *e)
{
	struct sqk_layer_pending p = {0};
	int err = sqk_tree_str(st->t, name, len, &p.name);

	if (err)
		return err;
	p.node = n;
	p.ordinal = st->ordinal;
	p.check = sqk_layer_check(e);
	p.parent = parent;
	p.len = (uint32_t)len;
	p.layer = st->layer;
	return pending_put(st, n, &p);
}

/* A copy of n (--no-hardlinks) waits for the same data as n. */
static int pending_copy(struct sqk_layer_state *st, sqk_nid n, sqk_nid copy)
{
	struct sqk_layer_pending p;
	uint64_t at;
	int r = pending_of(st, n, &p, &at);

	if (r <= 0 || !p.layer)
		return r;
	p.node = copy;
	return pending_put(st, copy, &p);
}

/*
 * A directory kept only for what this layer put in it: the lower one it
 * was is gone, so its attributes are those of a directory made for a path.
 */
static int make_implicit(struct sqk_layer_state *st, sqk_nid id)
{
	struct sqk_node dir, parent;
	int err = sqk_tree_get(st->t, id, &dir);

	if (err || (dir.flags & SQK_NODE_IMPLICIT))
		return err;
	dir.flags |= SQK_NODE_IMPLICIT;
	dir.mode = 0755;
	dir.uid = dir.gid = 0;
	dir.xattrs = NULL;
	if (dir.dir.parent) {
		err = sqk_tree_get(st->t, dir.dir.parent, &parent);
		if (err)
			return err;
		dir.mtime = parent.mtime;
	}
	return sqk_tree_put(st->t, id, &dir);
}

static int strip(struct sqk_layer_state *st, sqk_nid dir, const char *name, size_t len);

/* Stripping a directory's entries: how many stay. */
struct stripping {
	struct sqk_layer_state *st;
	sqk_nid dir;
	uint64_t kept;
};

static int strip_entry(void *ctx, const char *name, size_t len, sqk_nid node, uint64_t tag)
{
	struct stripping *s = ctx;
	int r = strip(s->st, s->dir, name, len);

	(void)node;
	(void)tag;
	if (r < 0)
		return r;
	s->kept += (uint64_t)r;
	return 0;
}

/* Strip every entry of dir (an opaque directory's, or one whited out): how many stay. */
static int strip_all(struct sqk_layer_state *st, sqk_nid dir, uint64_t *kept)
{
	struct stripping s = {st, dir, 0};
	int err = sqk_tree_list(st->t, dir, strip_entry, &s);

	*kept = s.kept;
	return err;
}

/*
 * Remove from dir's entry name what the lower layers made (a whiteout names
 * it, or an opaque directory holds it); what this layer made stays, and so
 * does a directory on the way to it. 1 when the entry stays, 0 when it is
 * gone (or was not there), or an error.
 */
static int strip(struct sqk_layer_state *st, sqk_nid dir, const char *name, size_t len)
{
	struct sqk_node n;
	uint64_t tag, kept;
	sqk_nid id;
	int err = sqk_tree_lookup_tag(st->t, dir, name, len, &id, &tag);

	if (err || !id)
		return err;
	if (SQK_LAYER_MADE(tag) == st->layer)
		return 1;
	err = sqk_tree_get(st->t, id, &n);
	if (err)
		return err;
	if (n.type == SQK_DIR) {
		err = strip_all(st, id, &kept);
		if (err)
			return err;
		if (SQK_LAYER_ATTRS(tag) == st->layer)
			return 1;
		if (kept) {
			err = make_implicit(st, id);
			return err ? err : 1;
		}
	}
	err = sqk_tree_remove(st->t, dir, name, len);
	return err;
}

/* The node at path (as normalize leaves it), making nothing: 0 in *out when it is not there. */
static int find(struct sqk_tree *t, const char *path, size_t plen, sqk_nid *out)
{
	struct sqk_node n;
	sqk_nid id = SQK_NID_ROOT;
	size_t i = 0, j;
	int err;

	*out = 0;
	while (i < plen) {
		for (j = i; j < plen && path[j] != '/'; j++)
			;
		if (j > i && !(j - i == 1 && path[i] == '.')) {
			err = sqk_tree_get(t, id, &n);
			if (err)
				return err;
			if (n.type != SQK_DIR ||
			    (j - i == 2 && path[i] == '.' && path[i + 1] == '.'))
				return 0;
			err = sqk_tree_lookup(t, id, path + i, j - i, &id);
			if (err || !id)
				return err;
		}
		i = j + 1;
	}
	*out = id;
	return 0;
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

int sqk_layer_place(struct sqk_layer_state *st, sqk_nid parent, const char *name, size_t len,
		    sqk_nid node, const char *path)
{
	struct sqk_node n;
	sqk_nid old;
	int err = sqk_tree_lookup(st->t, parent, name, len, &old);

	if (!err && old)
		err = sqk_tree_remove(st->t, parent, name, len);
	if (!err)
		err = sqk_tree_get(st->t, node, &n);
	if (err)
		return err;
	err = sqk_tree_add(st->t, parent, name, len, node);
	if (err)
		return sqk_layer_fail(st, err, path, sqk_strerror(err));
	st->c->entries++;
	return sqk_tree_tag(st->t, parent, name, len,
			    SQK_LAYER_TAG(st->layer, n.type == SQK_DIR ? st->layer : 0));
}

/*
 * A file's data: to the pipeline now (the top layer), or pending for the
 * second pass. n (id) is put back into the tree either way.
 */
static int take_data(struct sqk_layer_state *st, sqk_nid id, struct sqk_node *n,
		     struct archive_entry *e, const char *path, sqk_nid parent, const char *name,
		     size_t len)
{
	struct sqk_layer_pending p;
	uint64_t at;
	int err;

	if (st->feed_now) {
		/* Fed now: no longer waiting for a lower layer's data. */
		err = pending_of(st, id, &p, &at);
		if (err > 0) {
			p.layer = 0;
			err = sqk_store_put(st->pending, at, &p, sizeof(p));
		}
		return err < 0 ? err
			       : sqk_src_archive_feed(st->c, st->a, e, id, n, path, parent, name,
						      len);
	}
	n->size = (uint64_t)(archive_entry_size(e) > 0 ? archive_entry_size(e) : 0);
	n->file.data = 0;
	n->file.srclen = 0;
	n->flags &= ~SQK_NODE_DATA_DONE;
	err = sqk_tree_put(st->t, id, n);
	if (err || (archive_entry_size_is_set(e) && archive_entry_size(e) <= 0))
		return err; /* empty: the writer makes it at finish */
	return pending_set(st, id, parent, name, len, e);
}

static int hardlink(struct sqk_layer_state *st, struct archive_entry *e, const char *link,
		    const char *path, sqk_nid parent, const char *name, size_t len)
{
	char target[4096];
	struct sqk_node n;
	sqk_nid id = 0;
	int abs, err = 0;

	if (!normalize(link, target, sizeof(target), &abs))
		err = find(st->t, target, strlen(target), &id);
	if (!err && id)
		err = sqk_tree_get(st->t, id, &n);
	if (err)
		return err;
	if (!id || n.type == SQK_DIR) {
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
		sqk_nid copy;

		err = sqk_tree_clone(st->t, id, &copy);
		if (!err)
			err = pending_copy(st, id, copy);
		if (!err)
			err = sqk_tree_get(st->t, copy, &n);
		if (err)
			return err;
		id = copy;
	}
	/* A link that carries data (cpio's way) gives its file that data. */
	if (n.type == SQK_FILE && archive_entry_size_is_set(e) && archive_entry_size(e) > 0) {
		err = take_data(st, id, &n, e, path, parent, name, len);
		if (err)
			return err;
	}
	return sqk_layer_place(st, parent, name, len, id, path);
}

static int regular(struct sqk_layer_state *st, struct archive_entry *e, const char *path)
{
	const char *link = archive_entry_hardlink(e), *name;
	struct sqk_node n;
	sqk_nid parent, node, old;
	unsigned type;
	uint64_t tag;
	size_t len;
	int err = sqk_tree_walk_parent(st->t, path, &parent, &name, &len);

	if (err == SQK_ERR_NOTDIR || err == SQK_ERR_BADNAME)
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path,
				      err == SQK_ERR_NOTDIR ? "a parent is not a directory"
							    : "unsafe path in the layer");
	if (err)
		return err;
	if (link)
		return hardlink(st, e, link, path, parent, name, len);
	type = sqk_src_archive_type(e);
	if (!type)
		return sqk_layer_fail(st, SQK_ERR_UNSUPPORTED, path,
				      "unsupported entry type in the layer");
	if (!len) {
		if (type != SQK_DIR)
			return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path,
					      "the root entry is not a directory");
		err = sqk_tree_get(st->t, SQK_NID_ROOT, &n);
		if (err)
			return err;
		n.flags &= ~SQK_NODE_IMPLICIT;
		err = sqk_src_archive_attrs(st->c, &n, e, "/");
		return err ? err : sqk_tree_put(st->t, SQK_NID_ROOT, &n);
	}
	err = sqk_tree_lookup_tag(st->t, parent, name, len, &old, &tag);
	if (!err && old)
		err = sqk_tree_get(st->t, old, &n);
	if (err)
		return err;
	if (old && n.type == SQK_DIR && type == SQK_DIR) {
		/* A directory over a directory: its attributes replace the old ones, no more. */
		n.flags &= ~SQK_NODE_IMPLICIT;
		err = sqk_src_archive_attrs(st->c, &n, e, path);
		if (!err)
			err = sqk_tree_put(st->t, old, &n);
		return err ? err
			   : sqk_tree_tag(st->t, parent, name, len,
					  SQK_LAYER_TAG(SQK_LAYER_MADE(tag), st->layer));
	}
	err = sqk_tree_new(st->t, type, &node, &n);
	if (!err)
		err = sqk_src_archive_attrs(st->c, &n, e, path);
	if (err)
		return err;
	if (type == SQK_FILE) {
		err = take_data(st, node, &n, e, path, parent, name, len);
	} else {
		err = sqk_src_archive_special(st->c, &n, e);
		if (!err)
			err = sqk_tree_put(st->t, node, &n);
	}
	return err ? err : sqk_layer_place(st, parent, name, len, node, path);
}

static int whiteout(struct sqk_layer_state *st, struct archive_entry *e, char *path, char *base,
		    int abs)
{
	struct sqk_node n;
	uint64_t kept;
	sqk_nid dir;
	int err;

	if (abs || has_dotdot(path))
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, archive_entry_pathname(e),
				      "a whiteout outside the image's tree");
	if (!base[SQK_WH_LEN])
		return sqk_layer_fail(st, SQK_ERR_ARCHIVE, path, "a whiteout that names nothing");
	if (st->mode == SQK_LAYERS_OVERLAY)
		return sqk_layer_overlay_whiteout(st, e, path, base);
	/* What it names must be there already: a whiteout makes no directory. */
	err = find(st->t, path, (size_t)(base - path), &dir);
	if (!err && dir)
		err = sqk_tree_get(st->t, dir, &n);
	if (err || !dir || n.type != SQK_DIR)
		return err;
	if (!strcmp(base, SQK_WH_OPAQUE))
		return strip_all(st, dir, &kept);
	err = strip(st, dir, base + SQK_WH_LEN, strlen(base + SQK_WH_LEN));
	return err < 0 ? err : 0;
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
	sqk_store_hash_release(&st->by_node);
	sqk_store_destroy(st->pending);
	free(st->opaque);
	free(st->whiteouts);
}
