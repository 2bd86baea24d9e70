// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tree of an open image: listings, inodes, xattrs and file data, all
 * through the image's caches. A listing is checked whole when it is
 * entered, then read a piece at a time (read/dir.h), holding no metadata
 * block between calls, as the other walks of an image do; the directories
 * entered are a bitmap by inode number in a store within the image's budget.
 */
#include <stdlib.h>
#include <string.h>

#include "dtree.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "util/array.h"
#include "util/error.h"
#include "util/store.h"

/* A directory entered: its listing, and the entry next gives next. */
struct level {
	struct sqk_dir_list l;
	struct sqk_inode dir;
	size_t at;
};

struct image_tree {
	struct sqk_dtree t;
	/* Directories entered: one entered again is a loop, or listed twice. */
	struct sqk_store *dirs;
	struct level *lv;
	size_t depth, cap;
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
	if (it->dirs)
		sqk_store_clear(it->dirs);
	else if ((err = sqk_store_create(sqk_image_budget(t->img), 0, 0, &it->dirs)) != 0)
		return err;
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

static int img_enter(struct sqk_dtree *t, struct sqk_dnode *dir)
{
	struct image_tree *it = (struct image_tree *)t;
	struct level *lv;
	int err = sqk_store_bit(it->dirs, dir->inode.number, 1);

	if (err)
		return err < 0 ? err : SQK_ERR_LOOP;
	if (SQK_ARRAY_GROW(it->lv, it->cap, it->depth + 1))
		return SQK_ERR_NOMEM;
	lv = &it->lv[it->depth];
	err = sqk_dir_list_open(t->img, &dir->inode, 1, &lv->l);
	if (err)
		return err;
	/* Kept for rewind: the inode without what it owns. */
	lv->dir = dir->inode;
	lv->dir.blocks = NULL;
	lv->dir.target = NULL;
	lv->at = 0;
	it->depth++;
	return 0;
}

static int img_next(struct sqk_dtree *t, const struct sqk_dir_entry **e)
{
	struct image_tree *it = (struct image_tree *)t;
	struct level *lv = &it->lv[it->depth - 1];
	int err;

	while (lv->at == lv->l.n && !lv->l.end && !lv->l.error) {
		err = sqk_dir_list_next(&lv->l);
		if (err)
			return err;
		lv->at = 0;
	}
	if (lv->at == lv->l.n)
		return lv->l.error;
	*e = &lv->l.ents[lv->at++];
	return 1;
}

static int img_rewind(struct sqk_dtree *t)
{
	struct image_tree *it = (struct image_tree *)t;
	struct level *lv = &it->lv[it->depth - 1];

	sqk_dir_list_close(&lv->l);
	lv->at = 0;
	return sqk_dir_list_open(t->img, &lv->dir, 1, &lv->l);
}

static void img_leave(struct sqk_dtree *t)
{
	struct image_tree *it = (struct image_tree *)t;

	sqk_dir_list_close(&it->lv[--it->depth].l);
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

	while (it->depth)
		img_leave(t);
	free(it->lv);
	sqk_store_destroy(it->dirs);
	free(it);
}

static const struct sqk_dtree_ops image_ops = {
	img_root,   img_enter, img_next, img_rewind, img_leave,	  img_stat,
	img_xattrs, img_open,  img_read, img_close,  img_release, img_destroy,
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
