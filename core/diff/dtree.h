/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DTREE_H
#define SQK_DTREE_H

/*
 * A tree to compare: what the comparison asks of each side, with one
 * implementation over an open image and one over a host directory. A walk
 * enters a directory (which gives its entries one at a time, in the order of
 * their names' bytes: an image's listing a piece at a time, a host
 * directory's names packed), stats its entries, reads their xattrs and opens
 * their contents, and leaves it; the host tree does all that relative to the directory it
 * is in, never following a symlink. A call that fails with SQK_ERR_IO
 * leaves the cause in errno.
 */
#include <stddef.h>
#include <stdint.h>

#include "read/dir.h"
#include "read/inode.h"
#include "read/xattr.h"

struct sqk_image;

/* An entry, stat'ed. */
struct sqk_dnode {
	unsigned type; /* basic type 1..7 */
	uint32_t perm; /* 07777 */
	uint32_t uid, gid;
	int64_t mtime;
	uint64_t size; /* a regular file's bytes */
	uint32_t nlink;
	uint64_t dev, ino; /* who it is, for hard links: st_dev and st_ino, or 0 and the number */
	uint32_t major, minor;
	char *target; /* a symlink's target, target_len bytes (NUL-terminated) */
	size_t target_len;
	const char *name;	/* host: its name in the directory it was found in */
	struct sqk_inode inode; /* image: the inode */
};

/* A file's contents, readable from any thread until closed. */
struct sqk_dfile {
	struct sqk_dtree *tree;
	struct sqk_image *img; /* image: the image and the inode (for its blocks) */
	struct sqk_inode inode;
	int fd; /* host */
};

struct sqk_dtree_ops {
	/* The root, and the start of a walk (a tree serves one walk at a time). */
	int (*root)(struct sqk_dtree *t, struct sqk_dnode *out);
	/*
	 * Go into dir (a directory this tree gave): its listing is read whole
	 * (an image's is checked, a host directory's names sorted by
	 * sqk_name_cmp()), then given an entry at a time by next. SQK_ERR_LOOP
	 * for a directory met again on the way down.
	 */
	int (*enter)(struct sqk_dtree *t, struct sqk_dnode *dir);
	/*
	 * The next entry of the directory entered last: 1 and *e, valid until
	 * the next call of next or rewind for that directory (going into a
	 * subdirectory and back leaves it be); 0 at the end, or an error.
	 */
	int (*next)(struct sqk_dtree *t, const struct sqk_dir_entry **e);
	/* Back to the first entry of the directory entered last. */
	int (*rewind)(struct sqk_dtree *t);
	void (*leave)(struct sqk_dtree *t);
	/* An entry of the directory entered last. */
	int (*stat)(struct sqk_dtree *t, const struct sqk_dir_entry *e, struct sqk_dnode *out);
	/* The node's xattrs (sqk_xattr_free() them); *n may be 0. */
	int (*xattrs)(struct sqk_dtree *t, const struct sqk_dnode *node, struct sqk_xattr **list,
		      uint32_t *n);
	/* The contents of a regular file; the file takes what it needs of node. */
	int (*open)(struct sqk_dtree *t, struct sqk_dnode *node, struct sqk_dfile **out);
	/* len bytes at off into buf: *got is less only where a host file ends early. */
	int (*read)(struct sqk_dfile *f, uint64_t off, void *buf, size_t len, size_t *got);
	void (*close)(struct sqk_dfile *f);
	void (*release)(struct sqk_dnode *node);
	void (*destroy)(struct sqk_dtree *t);
};

struct sqk_dtree {
	const struct sqk_dtree_ops *ops;
	struct sqk_image *img; /* NULL for a directory */
};

/* The tree of an open image (which stays the caller's). */
int sqk_dtree_image(struct sqk_image *img, struct sqk_dtree **out);
/* The tree of the host directory at path (followed, as an operand is). */
int sqk_dtree_host(const char *path, struct sqk_dtree **out);

static inline void sqk_dtree_destroy(struct sqk_dtree *t)
{
	if (t)
		t->ops->destroy(t);
}

#endif
