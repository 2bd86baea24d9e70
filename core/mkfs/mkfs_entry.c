// SPDX-License-Identifier: BSD-2-Clause
/*
 * Entries added one by one (the public API's sqk_build_*): nodes placed in
 * the writer's tree at their path, as the sources place theirs, beside
 * and over what the sources added. A file's data comes from a host path
 * (read in inode order at finish, as a directory source's files) or is
 * fed to the block pipeline at once (a buffer, a callback), as an
 * archive's.
 */
#include <errno.h>
#include <string.h>

#include "format/fmt_inode.h"
#include "format/fmt_xattr.h"
#include "format/format.h"
#include "mkfs.h"
#include "mkfs_int.h"
#include "util/error.h"
#include "write/data_writer.h"
#include "write/tree.h"
#include "write/xattr_writer.h"

/* The node at path ("a/b", leading '/' allowed; "" the root), or NULL. */
struct sqk_node *sqk_mkfs_lookup(struct sqk_mkfs *m, const char *path)
{
	struct sqk_node *n = sqk_tree_root(m->tree);

	while (n && *path) {
		size_t len;

		path += strspn(path, "/");
		len = strcspn(path, "/");
		if (!len)
			break;
		n = n->type == SQK_DIR ? sqk_tree_lookup(m->tree, n, path, len) : NULL;
		path += len;
	}
	return n;
}

static void set_attrs(struct sqk_node *n, const struct sqk_mkfs_entry *e)
{
	n->mode = e->mode & 07777;
	n->uid = e->uid;
	n->gid = e->gid;
	n->mtime = e->mtime;
}

int sqk_mkfs_add_node(struct sqk_mkfs *m, const char *path, const struct sqk_mkfs_entry *e,
		      struct sqk_node **out)
{
	struct sqk_node *dir, *n;
	const char *name;
	size_t len;
	int err;

	if (e->type == SQK_SYMLINK && (!*e->target || strlen(e->target) > SQK_FMT_SYMLINK_MAX))
		return SQK_ERR_OVERFLOW;
	err = sqk_tree_walk_parent(m->tree, path, &dir, &name, &len);
	if (err)
		return err;
	n = len ? sqk_tree_lookup(m->tree, dir, name, len) : dir;
	if (n) {
		/* A directory made for its children takes its own attributes when added. */
		if (e->type != SQK_DIR || n->type != SQK_DIR ||
		    (len && !(n->flags & SQK_NODE_IMPLICIT)))
			return SQK_ERR_EXIST;
		n->flags &= (uint8_t)~SQK_NODE_IMPLICIT;
		set_attrs(n, e);
		*out = n;
		return 0;
	}
	n = sqk_tree_node(m->tree, e->type);
	if (!n)
		return SQK_ERR_NOMEM;
	set_attrs(n, e);
	switch (e->type) {
	case SQK_SYMLINK:
		n->target = sqk_tree_strdup(m->tree, e->target, strlen(e->target));
		if (!n->target)
			return SQK_ERR_NOMEM;
		n->size = strlen(e->target);
		break;
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		n->dev.major = e->major;
		n->dev.minor = e->minor;
		break;
	case SQK_FILE:
		n->size = e->size;
		if (e->host) {
			n->file.src = sqk_tree_strdup(m->tree, e->host, strlen(e->host));
			if (!n->file.src)
				return SQK_ERR_NOMEM;
		}
		break;
	}
	err = sqk_tree_add(m->tree, dir, name, len, n);
	if (err)
		return err;
	*out = n;
	return 0;
}

int sqk_mkfs_feed(struct sqk_mkfs *m, struct sqk_node *n, sqk_mkfs_read_fn read, void *ctx)
{
	struct sqk_file_data *fdata = sqk_tree_alloc(m->tree, sizeof(*fdata));
	int err;

	if (!fdata)
		return SQK_ERR_NOMEM;
	err = sqk_data_feed(m->dw, fdata, n->size, read, ctx);
	if (err)
		return err;
	n->file.data = fdata;
	n->flags |= SQK_NODE_DATA_DONE;
	return 0;
}

/* A file's data from a caller's callback, read when the data is written. */
struct sqk_node_fn {
	sqk_mkfs_read_fn read;
	void *ctx;
	char path[];
};

int sqk_mkfs_feed_later(struct sqk_mkfs *m, struct sqk_node *n, const char *path,
			sqk_mkfs_read_fn read, void *ctx)
{
	size_t len = strlen(path);
	struct sqk_node_fn *fn = sqk_tree_alloc(m->tree, sizeof(*fn) + len + 1);

	if (!fn)
		return SQK_ERR_NOMEM;
	fn->read = read;
	fn->ctx = ctx;
	memcpy(fn->path, path, len + 1);
	n->file.src = NULL;
	n->file.fn = fn;
	return 0;
}

int sqk_mkfs_feed_now(struct sqk_mkfs *m, struct sqk_node *n)
{
	int err = sqk_data_feed(m->dw, n->file.data, n->size, n->file.fn->read, n->file.fn->ctx);

	/* The caller's code says it all: no errno of ours goes with it. */
	errno = 0;
	if (err && err != SQK_ERR_NOMEM)
		sqk_src_fail(&m->src, n->file.fn->path, "its data callback failed: %s",
			     sqk_strerror(err));
	return err;
}

int sqk_mkfs_link(struct sqk_mkfs *m, const char *path, const char *existing)
{
	struct sqk_node *target = sqk_mkfs_lookup(m, existing), *dir;
	const char *name;
	size_t len;
	int err;

	if (!target)
		return SQK_ERR_NOENT;
	if (target->type == SQK_DIR)
		return SQK_ERR_ARG;
	err = sqk_tree_walk_parent(m->tree, path, &dir, &name, &len);
	if (err)
		return err;
	if (!len)
		return SQK_ERR_EXIST;
	return sqk_tree_add(m->tree, dir, name, len, target);
}

int sqk_mkfs_set_xattr(struct sqk_mkfs *m, const char *path, const char *name, const void *value,
		       size_t size)
{
	struct sqk_node *n = sqk_mkfs_lookup(m, path);
	struct sqk_xattr_in in = {name, value, size};
	struct sqk_xattr_set *set;
	size_t plen, dup;
	int err;

	if (!n)
		return SQK_ERR_NOENT;
	if (!m->xattrs || !m->src.xattrs)
		return SQK_ERR_ARG;
	/* Only the prefixes the format has a type for are storable. */
	if (sqk_fmt_xattr_type(name, &plen) < 0 || !name[plen])
		return SQK_ERR_UNSUPPORTED;
	err = sqk_xattrs_extend(m->xattrs, n->xattrs, &in, 1, &set, &dup);
	if (err)
		return err;
	n->xattrs = set;
	return 0;
}
