// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tree of an open image: listings, inodes, xattrs and file data, all
 * through the image's caches. A listing is read whole and its metadata
 * released before the walk goes on, as the other walks of an image do.
 */
#include <stdlib.h>
#include <string.h>

#include "dtree.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "util/error.h"
#include "util/u64set.h"

struct image_tree {
	struct sqk_dtree t;
	/* Directories entered: one entered again is a loop, or listed twice. */
	struct sqk_u64set dirs;
};

static void node_from(struct sqk_dnode *n, struct sqk_inode *ino)
{
	memset(n, 0, sizeof(*n));
	n->type = sqk_basic_type(ino->type);
	n->perm = ino->mode & 07777;
	n->uid = ino->uid;
	n->gid = ino->gid;
	n->mtime = ino->mtime;
	n->size = n->type == SQK_FILE ? ino->size : 0;
	n->nlink = ino->nlink;
	n->ino = ino->number;
	if (n->type == SQK_BLKDEV || n->type == SQK_CHRDEV) {
		n->major = sqk_dev_major(ino->rdev);
		n->minor = sqk_dev_minor(ino->rdev);
	}
	if (n->type == SQK_SYMLINK) {
		n->target = ino->target;
		n->target_len = (size_t)ino->size;
	}
	n->inode = *ino;
}

static int img_root(struct sqk_dtree *t, struct sqk_dnode *out)
{
	struct image_tree *it = (struct image_tree *)t;
	struct sqk_inode ino;
	int err;

	/* A new walk: no directory entered yet. */
	sqk_u64set_free(&it->dirs);
	err = sqk_inode_read(t->img, sqk_image_super(t->img)->root_inode, &ino);

	if (err)
		return err;
	if (sqk_basic_type(ino.type) != SQK_DIR) {
		sqk_inode_free(&ino);
		return SQK_ERR_CORRUPT;
	}
	node_from(out, &ino);
	return 0;
}

static int img_enter(struct sqk_dtree *t, struct sqk_dnode *dir, struct sqk_dir_entry **ents,
		     size_t *n)
{
	struct image_tree *it = (struct image_tree *)t;
	int seen = sqk_u64set_add(&it->dirs, dir->inode.number);

	if (seen < 0)
		return seen;
	if (seen)
		return SQK_ERR_LOOP;
	return sqk_dir_read_all(t->img, &dir->inode, ents, n, NULL);
}

static void img_leave(struct sqk_dtree *t)
{
}

static int img_stat(struct sqk_dtree *t, const struct sqk_dir_entry *e, struct sqk_dnode *out)
{
	struct sqk_inode ino;
	/* The listing and the inode must agree about what the entry is. */
	int err = sqk_dirent_inode(t->img, e, &ino);

	if (err)
		return err;
	node_from(out, &ino);
	return 0;
}

static int img_xattrs(struct sqk_dtree *t, const struct sqk_dnode *node, struct sqk_xattr **list,
		      uint32_t *n)
{
	*list = NULL;
	*n = 0;
	if (node->inode.xattr == SQK_INVALID_XATTR)
		return 0;
	return sqk_xattr_read(t->img, node->inode.xattr, list, n);
}

static int img_open(struct sqk_dtree *t, struct sqk_dnode *node, struct sqk_dfile **out)
{
	struct sqk_dfile *f = calloc(1, sizeof(*f));

	if (!f)
		return SQK_ERR_NOMEM;
	f->tree = t;
	f->img = t->img;
	f->fd = -1;
	/* The file keeps the block list; the node lets go of it. */
	f->inode = node->inode;
	f->inode.target = NULL;
	node->inode.blocks = NULL;
	*out = f;
	return 0;
}

static int img_read(struct sqk_dfile *f, uint64_t off, void *buf, size_t len, size_t *got)
{
	int err = sqk_data_pread(f->img, &f->inode, off, buf, len, got);

	/* The inode says how long the file is: less than that is a broken image. */
	if (!err && *got != len)
		err = SQK_ERR_CORRUPT;
	return err;
}

static void img_close(struct sqk_dfile *f)
{
	if (f) {
		sqk_inode_free(&f->inode);
		free(f);
	}
}

static void img_release(struct sqk_dnode *node)
{
	sqk_inode_free(&node->inode);
	node->target = NULL;
}

static void img_destroy(struct sqk_dtree *t)
{
	struct image_tree *it = (struct image_tree *)t;

	sqk_u64set_free(&it->dirs);
	free(it);
}

static const struct sqk_dtree_ops image_ops = {
	img_root, img_enter, img_leave, img_stat,    img_xattrs,
	img_open, img_read,  img_close, img_release, img_destroy,
};

int sqk_dtree_image(struct sqk_image *img, struct sqk_dtree **out)
{
	struct image_tree *it = calloc(1, sizeof(*it));

	if (!it)
		return SQK_ERR_NOMEM;
	it->t.ops = &image_ops;
	it->t.img = img;
	*out = &it->t;
	return 0;
}
