// SPDX-License-Identifier: BSD-2-Clause
/*
 * Inodes of an open image: the public struct sqk_inode is the reader's,
 * opened from a path or a reference, read through the shared caches.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "api_int.h"
#include "format/fmt_inode.h"
#include "format/format.h"
#include "read/data.h"
#include "read/inode.h"
#include "read/xattr.h"
#include "walk/resolve.h"
#include "walk/walk.h"

/*
 * The errno a failed resolution of a path stands for: too many symlinks is
 * the kernel's ELOOP; a read of the image, its file's errno.
 */
static int path_errnum(struct sqk_image *img, int err)
{
	return err == SQK_ERR_LOOP ? ELOOP : sqk_api_io_errnum(img, err);
}

/*
 * Read an inode into a new allocation: by path when path is set (symlinks
 * on the way followed inside the image, the last one too when follow is),
 * else by ref.
 */
static int open_inode(struct sqk_image *img, const char *path, int follow, uint64_t ref,
		      struct sqk_inode **out)
{
	struct sqk_inode *ino = calloc(1, sizeof(*ino));
	int err;

	*out = NULL;
	if (!ino)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, path, NULL);
	if (!path)
		err = sqk_inode_read(img, ref, ino);
	else
		err = sqk_resolve_follow(img, path, follow, ino);
	if (err) {
		free(ino);
		if (path)
			return sqk_api_fail(err, path_errnum(img, err), path, NULL);
		return sqk_api_fail(err, 0, NULL, "inode at %#llx: %s", (unsigned long long)ref,
				    sqk_strerror(err));
	}
	*out = ino;
	return sqk_api_ok();
}

int sqk_inode_open(struct sqk_image *img, const char *path, struct sqk_inode **out)
{
	return open_inode(img, path, 0, 0, out);
}

int sqk_inode_open_follow(struct sqk_image *img, const char *path, struct sqk_inode **out)
{
	return open_inode(img, path, 1, 0, out);
}

int sqk_inode_open_lstat(struct sqk_image *img, const char *path, struct sqk_inode **out)
{
	return open_inode(img, path, 0, 0, out);
}

struct trace {
	sqk_trace_fn fn;
	void *ctx;
};

/* The trace callback told of path ("a/b", "" for the root) as "/a/b". */
static int trace_call(struct trace *t, const char *path, enum sqk_trace_kind kind)
{
	struct sqk_api_abs at;
	const char *p = sqk_api_abspath(&at, path);
	int r = p ? t->fn(t->ctx, p, kind) : SQK_ERR_NOMEM;

	sqk_api_abs_done(&at);
	return r;
}

static int trace_visit(void *ctx, const char *path, int is_link)
{
	return trace_call(ctx, path, is_link ? SQK_TRACE_LINK : SQK_TRACE_PARENT);
}

int sqk_inode_open_trace(struct sqk_image *img, const char *path, unsigned flags, sqk_trace_fn fn,
			 void *ctx, struct sqk_inode **out)
{
	struct trace t = {fn, ctx};
	struct sqk_resolve_trace rt = {!!(flags & SQK_TRACE_RELATIVE_ONLY), fn ? trace_visit : NULL,
				       &t, NULL};
	struct sqk_inode *ino = calloc(1, sizeof(*ino));
	int err;

	*out = NULL;
	if (!ino)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, path, NULL);
	err = sqk_resolve_trace(img, path, !(flags & SQK_TRACE_NOFOLLOW), &rt, ino);
	if (!err && fn && (err = trace_call(&t, rt.path ? rt.path : "", SQK_TRACE_RESULT)) != 0)
		sqk_inode_free(ino);
	free(rt.path);
	if (err) {
		free(ino);
		return sqk_api_fail(err, path_errnum(img, err), path, NULL);
	}
	*out = ino;
	return sqk_api_ok();
}

int sqk_inode_open_ref(struct sqk_image *img, uint64_t ref, struct sqk_inode **out)
{
	return open_inode(img, NULL, 0, ref, out);
}

void sqk_inode_destroy(struct sqk_inode *ino)
{
	if (!ino)
		return;
	sqk_inode_free(ino);
	free(ino);
}

int(sqk_inode_stat)(const struct sqk_inode *ino, struct sqk_stat *given, size_t size)
{
	struct sqk_stat s, *st = &s;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_stat, has_xattrs), "sqk_stat"))
		return SQK_ERR_ARG;
	memset(st, 0, sizeof(*st));
	st->ref = ino->ref;
	st->ino = ino->number;
	st->mode = ino->mode;
	st->uid = ino->uid;
	st->gid = ino->gid;
	st->mtime = ino->mtime;
	st->nlink = ino->nlink;
	st->size = ino->size;
	if (S_ISBLK(ino->mode) || S_ISCHR(ino->mode))
		st->rdev = makedev(sqk_dev_major(ino->rdev), sqk_dev_minor(ino->rdev));
	if (S_ISREG(ino->mode)) {
		st->sparse = ino->sparse;
		st->blocks = ino->nblocks;
		st->has_tail = ino->frag_index != SQK_INVALID_FRAG;
	}
	st->extended = sqk_inode_extended(ino);
	st->has_xattrs = ino->xattr != SQK_INVALID_XATTR;
	if (S_ISDIR(ino->mode))
		st->parent = ino->parent;
	sqk_api_out(given, size, &s, sizeof(s), 0, NULL);
	return sqk_api_ok();
}

static int need_file(const struct sqk_inode *ino)
{
	if (S_ISREG(ino->mode))
		return 0;
	return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "inode %u is not a regular file", ino->number);
}

int sqk_inode_pread(struct sqk_image *img, const struct sqk_inode *ino, uint64_t off, void *buf,
		    size_t len, size_t *got)
{
	int err = need_file(ino);

	*got = 0;
	if (err)
		return err;
	err = sqk_data_pread(img, ino, off, buf, len, got);
	if (err)
		return sqk_api_fail(err, sqk_api_io_errnum(img, err), NULL,
				    "inode %u at byte %llu: %s", ino->number,
				    (unsigned long long)off, sqk_strerror(err));
	return sqk_api_ok();
}

int sqk_inode_extent(struct sqk_image *img, const struct sqk_inode *ino, uint64_t off,
		     uint64_t *data, uint64_t *hole)
{
	int err = need_file(ino);

	if (err)
		return err;
	sqk_data_extent(img, ino, off, data, hole);
	return sqk_api_ok();
}

int sqk_inode_readlink(const struct sqk_inode *ino, char *buf, size_t cap)
{
	if (!S_ISLNK(ino->mode))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "inode %u is not a symlink", ino->number);
	if (cap <= ino->size)
		return sqk_api_fail(SQK_ERR_OVERFLOW, 0, NULL,
				    "the target of inode %u needs %llu bytes", ino->number,
				    (unsigned long long)ino->size + 1);
	memcpy(buf, ino->target, ino->size);
	buf[ino->size] = '\0';
	sqk_api_ok();
	return (int)ino->size;
}

/*
 * A list of pairs as the caller's struct is laid out (size bytes each),
 * after a header that keeps the reader's attributes, whose strings the
 * pairs point at, for sqk_inode_xattrs_destroy().
 */
struct pairs {
	struct sqk_xattr *x;
	uint32_t n;
	max_align_t align[];
};

static int read_xattrs(struct sqk_image *img, const struct sqk_inode *ino, struct sqk_xattr **x,
		       uint32_t *n)
{
	int err;

	*x = NULL;
	*n = 0;
	if (ino->xattr == SQK_INVALID_XATTR)
		return 0;
	err = sqk_xattr_read(img, ino->xattr, x, n);
	if (err)
		return sqk_api_fail(err, sqk_api_io_errnum(img, err), NULL,
				    "the xattrs of inode %u: %s", ino->number, sqk_strerror(err));
	return 0;
}

int(sqk_inode_xattrs)(struct sqk_image *img, const struct sqk_inode *ino,
		      struct sqk_xattr_pair **list, size_t *count, size_t size)
{
	struct sqk_xattr *x;
	struct sqk_xattr_pair one;
	struct pairs *h;
	uint32_t n, i;
	int err;

	*list = NULL;
	*count = 0;
	if (sqk_api_size(size, SQK_API_V1(struct sqk_xattr_pair, size), "sqk_xattr_pair"))
		return SQK_ERR_ARG;
	err = read_xattrs(img, ino, &x, &n);
	if (err)
		return err;
	if (!n)
		return sqk_api_ok();
	h = calloc(1, sizeof(*h) + (size_t)n * size);
	if (!h) {
		sqk_xattr_free(x, n);
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	}
	h->x = x;
	h->n = n;
	for (i = 0; i < n; i++) {
		memset(&one, 0, sizeof(one));
		one.name = x[i].name;
		one.value = x[i].value;
		one.size = x[i].value_len;
		sqk_api_out((char *)h->align + (size_t)i * size, size, &one, sizeof(one), 0, NULL);
	}
	*list = (struct sqk_xattr_pair *)h->align;
	*count = n;
	return sqk_api_ok();
}

void sqk_inode_xattrs_destroy(struct sqk_xattr_pair *list, size_t count)
{
	struct pairs *h;

	if (!list)
		return;
	h = (struct pairs *)((char *)list - offsetof(struct pairs, align));
	sqk_xattr_free(h->x, h->n);
	free(h);
}

int sqk_inode_getxattr(struct sqk_image *img, const struct sqk_inode *ino, const char *name,
		       void *buf, size_t cap, size_t *size)
{
	struct sqk_xattr *x;
	uint32_t n, i;
	int err = read_xattrs(img, ino, &x, &n);

	if (size)
		*size = 0;
	if (err)
		return err;
	for (i = 0; i < n && strcmp(x[i].name, name); i++)
		;
	if (i == n)
		err = sqk_api_fail(SQK_ERR_NOENT, ENODATA, NULL, "inode %u has no attribute %s",
				   ino->number, name);
	else if (size)
		*size = x[i].value_len;
	if (!err && x[i].value_len > cap && buf)
		err = sqk_api_fail(SQK_ERR_OVERFLOW, ERANGE, NULL,
				   "attribute %s of inode %u has %zu bytes", name, ino->number,
				   (size_t)x[i].value_len);
	else if (!err && buf)
		memcpy(buf, x[i].value, x[i].value_len);
	sqk_xattr_free(x, n);
	return err ? err : sqk_api_ok();
}
