// SPDX-License-Identifier: BSD-2-Clause
/*
 * The FUSE low-level operations over the file-system object. The image
 * never changes, so the kernel may keep everything it is given: names,
 * attributes, file pages, directory listings and symlink targets.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "serve_int.h"
#include "util/error.h"

static struct sqk_serve *of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void reply_err(fuse_req_t req, int err)
{
	fuse_reply_err(req, sqk_fs_errno(err));
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct sqk_serve *s = userdata;

	/*
	 * Every page-cache read is a background request, and the kernel lets
	 * only max_background of those reach us at once (12 by default): as
	 * many as there may be threads, so that readers never queue in the
	 * kernel while a thread could take them.
	 */
	conn->max_background = s->threads;
	conn->congestion_threshold = 0; /* libfuse's: three quarters of that */
	/* Nothing changes under the kernel: no need to check pages against mtimes. */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/*
	 * Every listing carries its entries' attributes, not only the first
	 * part of it: a walk that looks at what it lists then costs one
	 * request per directory, not one more per entry past the first part.
	 */
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	/*
	 * Opens cost the kernel two requests per file (open, release) and
	 * tell us nothing: a file's blocks and a directory's listing are kept
	 * with its node instead, and the kernel then keeps the page cache and
	 * the listing across opens by itself.
	 */
	if (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT)
		s->no_open = 1;
	if (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT)
		s->no_opendir = 1;
}

static void entry_param(struct sqk_serve *s, struct fuse_entry_param *e, uint64_t node)
{
	e->ino = node;
	e->generation = 1;
	e->attr_timeout = s->timeout;
	e->entry_timeout = s->timeout;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct sqk_serve *s = of(req);
	struct fuse_entry_param e;
	uint64_t node;
	int err;

	memset(&e, 0, sizeof(e));
	err = sqk_fs_lookup(s->fs, parent, name, &node, &e.attr);
	if (err == SQK_ERR_NOENT) {
		/* A negative entry: the kernel remembers that the name is absent. */
		e.entry_timeout = s->timeout;
		fuse_reply_entry(req, &e);
		return;
	}
	if (err) {
		reply_err(req, err);
		return;
	}
	entry_param(s, &e, node);
	/* An interrupted request never reached the kernel: it holds no count. */
	if (fuse_reply_entry(req, &e) == -ENOENT)
		sqk_fs_forget(s->fs, node, 1);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	sqk_fs_forget(of(req)->fs, ino, nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct sqk_serve *s = of(req);
	size_t i;

	for (i = 0; i < count; i++)
		sqk_fs_forget(s->fs, forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct sqk_serve *s = of(req);
	struct stat st;
	int err = sqk_fs_getattr(s->fs, ino, &st);

	if (err)
		reply_err(req, err);
	else
		fuse_reply_attr(req, &st, s->timeout);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char *target;
	int err = sqk_fs_readlink(of(req)->fs, ino, &target);

	if (err) {
		reply_err(req, err);
		return;
	}
	fuse_reply_readlink(req, target);
	free(target);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct sqk_fs_file *f;
	int err;

	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
		return;
	}
	if (of(req)->no_open) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	err = sqk_fs_open(of(req)->fs, ino, &f);
	if (err) {
		reply_err(req, err);
		return;
	}
	fi->fh = (uintptr_t)f;
	fi->keep_cache = 1;
	fi->noflush = 1;
	if (fuse_reply_open(req, fi) == -ENOENT)
		sqk_fs_close(f);
}

/* Push the block of f at off whole into the page cache (serve_store.c). */
static void push_block(struct sqk_serve *s, struct sqk_fs_file *f, fuse_ino_t ino, uint64_t off)
{
	struct sqk_fs_piece p;

	if (sqk_fs_read_piece(s->fs, f, off, 1, &p) != 0)
		return;
	sqk_serve_store_push(&s->store, ino, &p);
	sqk_fs_piece_put(&p);
}

/*
 * A read inside one block is answered straight from the cache entry, with
 * no copy; a read across blocks gathers them in the scratch buffer one at
 * a time, so that a thread never holds two entries of one cache. After
 * the reply (the push waits for the pages the reply unlocks), each block
 * the read took only part of goes into the page cache whole: only the
 * first and the last can be such.
 */
static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct sqk_fs_file *f = (struct sqk_fs_file *)(uintptr_t)fi->fh;
	struct sqk_serve *s = of(req);
	struct sqk_fs *fs = s->fs;
	struct sqk_fs_piece p;
	uint64_t partial[2];
	unsigned npartial = 0, i;
	size_t got = 0;
	char *buf;
	int err;

	if (!f) {
		err = sqk_fs_file_of(fs, ino, &f);
		if (err) {
			reply_err(req, err);
			return;
		}
	}
	err = sqk_fs_read_piece(fs, f, (uint64_t)off, size, &p);
	if (err) {
		reply_err(req, err);
		return;
	}
	if (p.len == size || p.len == 0 || (uint64_t)off + p.len >= sqk_fs_file_size(f)) {
		fuse_reply_buf(req, (const char *)p.data, p.len);
		sqk_serve_store_push(&s->store, ino, &p);
		sqk_fs_piece_put(&p);
		return;
	}
	buf = sqk_serve_scratch(size);
	while (!err && buf) {
		memcpy(buf + got, p.data, p.len);
		got += p.len;
		if (p.len < p.block_len && npartial < 2)
			partial[npartial++] = p.block_off;
		sqk_fs_piece_put(&p);
		if (got == size)
			break;
		err = sqk_fs_read_piece(fs, f, (uint64_t)off + got, size - got, &p);
		if (!err && p.len == 0)
			break;
	}
	if (!buf) {
		sqk_fs_piece_put(&p);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (err) {
		reply_err(req, err);
		return;
	}
	fuse_reply_buf(req, buf, got);
	for (i = 0; i < npartial; i++)
		push_block(s, f, ino, partial[i]);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/* NULL without an open: the node keeps its file. */
	sqk_fs_close((struct sqk_fs_file *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct sqk_fs_dir *d;
	int err;

	if (of(req)->no_opendir) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	err = sqk_fs_opendir(of(req)->fs, ino, &d);
	if (err) {
		reply_err(req, err);
		return;
	}
	fi->fh = (uintptr_t)d;
	fi->keep_cache = 1;
	fi->cache_readdir = 1;
	if (fuse_reply_open(req, fi) == -ENOENT)
		sqk_fs_closedir(d);
}

static int is_dot(const struct sqk_fs_dirent *ent)
{
	return ent->name[0] == '.' &&
	       (ent->name_len == 1 || (ent->name_len == 2 && ent->name[1] == '.'));
}

/*
 * Entries from off on until the buffer is full. An entry whose inode
 * cannot be read still appears (readdirplus passes it on without
 * attributes): its own lookup fails later, and the rest of the listing
 * stays visible. A broken listing ends with its good entries, and the
 * next call, starting at the broken one, gets the error.
 */
static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi, int plus)
{
	struct sqk_fs_dir *d = (struct sqk_fs_dir *)(uintptr_t)fi->fh;
	struct sqk_serve *s = of(req);
	struct sqk_fs_dirent ent;
	size_t pos = 0, n;
	uint64_t o;
	char *buf;
	int r;

	if (!d && (r = sqk_fs_dir_of(s->fs, ino, &d)) != 0) {
		reply_err(req, r);
		return;
	}
	buf = sqk_serve_scratch(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (o = (uint64_t)off;; o++) {
		struct fuse_entry_param e;
		uint64_t node = 0;

		r = sqk_fs_readdir(s->fs, d, o, &ent);
		if (r < 0 && pos == 0) {
			reply_err(req, r);
			return;
		}
		if (r <= 0)
			break;
		memset(&e, 0, sizeof(e));
		e.attr.st_ino = ent.number;
		e.attr.st_mode = ent.type;
		if (!plus) {
			n = fuse_add_direntry(req, buf + pos, size - pos, ent.name, &e.attr,
					      (off_t)(o + 1));
			if (n > size - pos)
				break;
			pos += n;
			continue;
		}
		if (!is_dot(&ent) && sqk_fs_entry_lookup(s->fs, &ent, &node, &e.attr) == 0)
			entry_param(s, &e, node);
		n = fuse_add_direntry_plus(req, buf + pos, size - pos, ent.name, &e,
					   (off_t)(o + 1));
		if (n > size - pos) {
			if (node)
				sqk_fs_forget(s->fs, node, 1);
			break;
		}
		pos += n;
	}
	fuse_reply_buf(req, buf, pos);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, fi, 0);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, fi, 1);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/* NULL without an opendir: the node keeps its listing. */
	sqk_fs_closedir((struct sqk_fs_dir *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs st;

	sqk_fs_statfs(of(req)->fs, &st);
	fuse_reply_statfs(req, &st);
}

/* A size of 0 asks how large the answer is; a smaller buffer than that is ERANGE. */
static void reply_sized(fuse_req_t req, const void *data, size_t len, size_t size)
{
	if (size == 0)
		fuse_reply_xattr(req, len);
	else if (len > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, data, len);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	uint8_t *value;
	size_t len;
	int err = sqk_fs_getxattr(of(req)->fs, ino, name, &value, &len);

	if (err == SQK_ERR_NOENT)
		fuse_reply_err(req, ENODATA);
	else if (err)
		reply_err(req, err);
	else
		reply_sized(req, value, len, size);
	free(value);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	/* As the kernel's squashfs: trusted.* is listed to the privileged only. */
	int trusted = fuse_req_ctx(req)->uid == 0;
	size_t len;
	char *names;
	int err = sqk_fs_listxattr(of(req)->fs, ino, trusted, &names, &len);

	if (err)
		reply_err(req, err);
	else
		reply_sized(req, names, len, size);
	free(names);
}

const struct fuse_lowlevel_ops sqk_serve_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.forget = op_forget,
	.forget_multi = op_forget_multi,
	.getattr = op_getattr,
	.readlink = op_readlink,
	.open = op_open,
	.read = op_read,
	.release = op_release,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.releasedir = op_releasedir,
	.statfs = op_statfs,
	.getxattr = op_getxattr,
	.listxattr = op_listxattr,
};
