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

int sqk_mkfs_lookup(struct sqk_mkfs *m, const char *path, sqk_nid *out)
{
	sqk_nid n = SQK_NID_ROOT;
	struct sqk_node node;
	int err;

	*out = 0;
	while (*path) {
		size_t len;

		path += strspn(path, "/");
		len = strcspn(path, "/");
		if (!len)
			break;
		err = sqk_tree_get(m->tree, n, &node);
		if (!err && node.type != SQK_DIR)
			return 0;
		if (!err)
			err = sqk_tree_lookup(m->tree, n, path, len, &n);
		if (err || !n)
			return sqk_mkfs_said(m, err);
		path += len;
	}
	*out = n;
	return 0;
}

static void set_attrs(struct sqk_node *n, const struct sqk_mkfs_entry *e)
{
	n->mode = e->mode & 07777;
	n->uid = e->uid;
	n->gid = e->gid;
	n->mtime = e->mtime;
}

static int add_node(struct sqk_mkfs *m, const char *path, const struct sqk_mkfs_entry *e,
		    sqk_nid *out)
{
	struct sqk_node n;
	sqk_nid dir, id;
	const char *name;
	size_t len;
	int err;

	if (e->type == SQK_SYMLINK && (!*e->target || strlen(e->target) > SQK_FMT_SYMLINK_MAX))
		return SQK_ERR_OVERFLOW;
	err = sqk_tree_walk_parent(m->tree, path, &dir, &name, &len);
	if (err)
		return err;
	id = dir;
	if (len)
		err = sqk_tree_lookup(m->tree, dir, name, len, &id);
	if (!err && id)
		err = sqk_tree_get(m->tree, id, &n);
	if (err)
		return err;
	if (id) {
		/* A directory made for its children takes its own attributes when added. */
		if (e->type != SQK_DIR || n.type != SQK_DIR ||
		    (len && !(n.flags & SQK_NODE_IMPLICIT)))
			return SQK_ERR_EXIST;
		n.flags &= (uint8_t)~SQK_NODE_IMPLICIT;
		set_attrs(&n, e);
		*out = id;
		return sqk_tree_put(m->tree, id, &n);
	}
	err = sqk_tree_new(m->tree, e->type, &id, &n);
	if (err)
		return err;
	set_attrs(&n, e);
	switch (e->type) {
	case SQK_SYMLINK:
		n.size = strlen(e->target);
		err = sqk_tree_str(m->tree, e->target, strlen(e->target), &n.target);
		break;
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		n.dev.major = e->major;
		n.dev.minor = e->minor;
		break;
	case SQK_FILE:
		n.size = e->size;
		if (e->host) {
			n.file.srclen = (uint32_t)strlen(e->host);
			err = sqk_tree_str(m->tree, e->host, strlen(e->host), &n.file.src);
		}
		break;
	}
	if (!err)
		err = sqk_tree_put(m->tree, id, &n);
	if (!err)
		err = sqk_tree_add(m->tree, dir, name, len, id);
	if (!err)
		*out = id;
	return err;
}

int sqk_mkfs_add_node(struct sqk_mkfs *m, const char *path, const struct sqk_mkfs_entry *e,
		      sqk_nid *out)
{
	return sqk_mkfs_said(m, add_node(m, path, e, out));
}

int sqk_mkfs_feed(struct sqk_mkfs *m, sqk_nid id, sqk_mkfs_read_fn read, void *ctx)
{
	struct sqk_node n;
	uint64_t data;
	int err = sqk_tree_get(m->tree, id, &n);

	if (!err)
		err = sqk_data_feed(m->dw, n.size, read, ctx, &data);
	if (err)
		return sqk_mkfs_said(m, err);
	n.file.data = data + 1;
	n.flags |= SQK_NODE_DATA_DONE;
	return sqk_mkfs_said(m, sqk_tree_put(m->tree, id, &n));
}

int sqk_mkfs_link(struct sqk_mkfs *m, const char *path, const char *existing)
{
	struct sqk_node t;
	sqk_nid target, dir;
	const char *name;
	size_t len;
	int err = sqk_mkfs_lookup(m, existing, &target);

	if (err)
		return err;
	if (!target)
		return SQK_ERR_NOENT;
	err = sqk_tree_get(m->tree, target, &t);
	if (err)
		return sqk_mkfs_said(m, err);
	if (t.type == SQK_DIR)
		return SQK_ERR_ARG;
	err = sqk_tree_walk_parent(m->tree, path, &dir, &name, &len);
	if (err)
		return sqk_mkfs_said(m, err);
	if (!len)
		return SQK_ERR_EXIST;
	return sqk_mkfs_said(m, sqk_tree_add(m->tree, dir, name, len, target));
}

int sqk_mkfs_set_xattr(struct sqk_mkfs *m, const char *path, const char *name, const void *value,
		       size_t size)
{
	struct sqk_xattr_in in = {name, value, size};
	struct sqk_xattr_set *set;
	struct sqk_node n;
	size_t plen, dup;
	sqk_nid id;
	int err = sqk_mkfs_lookup(m, path, &id);

	if (err)
		return err;
	if (!id)
		return SQK_ERR_NOENT;
	if (!m->xattrs || !m->src.xattrs)
		return SQK_ERR_ARG;
	/* Only the prefixes the format has a type for are storable. */
	if (sqk_fmt_xattr_type(name, &plen) < 0 || !name[plen])
		return SQK_ERR_UNSUPPORTED;
	err = sqk_tree_get(m->tree, id, &n);
	if (err)
		return sqk_mkfs_said(m, err);
	err = sqk_xattrs_extend(m->xattrs, n.xattrs, &in, 1, &set, &dup);
	if (err)
		return err;
	n.xattrs = set;
	return sqk_mkfs_said(m, sqk_tree_put(m->tree, id, &n));
}
