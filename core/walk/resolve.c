// SPDX-License-Identifier: BSD-2-Clause
/*
 * Symlink-following path resolution. work holds what is left to resolve;
 * done the directories resolved so far (plain names, no symlinks), so ".."
 * is done by resolving done again from the root.
 */
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "read/dir.h"
#include "read/inode.h"
#include "resolve.h"
#include "util/error.h"
#include "walk.h"

/* A growable string. */
struct buf {
	char *s;
	size_t len, cap;
};

static int buf_set(struct buf *b, const char *a, size_t alen, const char *c, size_t clen)
{
	size_t sep = clen ? 1 : 0, need = alen + sep + clen + 1;
	char *s;

	if (need > b->cap) {
		s = malloc(need);
		if (!s)
			return SQK_ERR_NOMEM;
		free(b->s);
		b->s = s;
		b->cap = need;
	}
	/* a and c must not point into b->s, which may be replaced. */
	memmove(b->s, a, alen);
	if (sep)
		b->s[alen] = '/';
	memmove(b->s + alen + sep, c, clen);
	b->len = alen + sep + clen;
	b->s[b->len] = '\0';
	return 0;
}

static int buf_append(struct buf *b, const char *name, size_t len)
{
	if (b->len + 1 + len + 1 > b->cap) {
		size_t cap = (b->len + 1 + len + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s)
			return SQK_ERR_NOMEM;
		b->s = s;
		b->cap = cap;
	}
	if (b->len)
		b->s[b->len++] = '/';
	memcpy(b->s + b->len, name, len);
	b->len += len;
	b->s[b->len] = '\0';
	return 0;
}

/* Drop the last component of a path of components ("a/b" -> "a"). */
static void buf_pop(struct buf *b)
{
	/* s is never NULL when len is not 0: said for the compiler's -Wnonnull. */
	char *slash = b->len && b->s ? memrchr(b->s, '/', b->len) : NULL;

	b->len = slash ? (size_t)(slash - b->s) : 0;
	if (b->s)
		b->s[b->len] = '\0';
}

static int is_dir(const struct sqk_inode *ino)
{
	return sqk_basic_type(ino->type) == SQK_DIR;
}

/* Tell t about done + "/" + name (name may be empty). */
static int visit(struct sqk_resolve_trace *t, const struct buf *done, const char *name, size_t len,
		 int is_link)
{
	struct buf b = {NULL, 0, 0};
	int err;

	if (!t || !t->visit)
		return 0;
	if (done->len)
		err = buf_set(&b, done->s, done->len, name, len);
	else
		err = buf_set(&b, name, len, "", 0);
	if (!err)
		err = t->visit(t->ctx, b.s, is_link);
	free(b.s);
	return err;
}

int sqk_resolve_follow(struct sqk_image *img, const char *path, int follow_last,
		       struct sqk_inode *ino)
{
	return sqk_resolve_trace(img, path, follow_last, NULL, ino);
}

int sqk_resolve_trace(struct sqk_image *img, const char *path, int follow_last,
		      struct sqk_resolve_trace *t, struct sqk_inode *ino)
{
	struct buf work = {NULL, 0, 0}, done = {NULL, 0, 0};
	struct sqk_inode cur, child;
	unsigned hops = 0;
	const char *p;
	int err;

	err = buf_set(&work, "", 0, path, strlen(path));
	if (!err)
		err = buf_append(&done, "", 0);
	if (!err)
		err = sqk_resolve(img, "", &cur);
	if (err) {
		free(work.s);
		free(done.s);
		return err;
	}
	p = work.s;
	for (;;) {
		struct sqk_dir_entry ent;
		size_t len;
		int last, slash;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		last = p[len + strspn(p + len, "/")] == '\0';
		slash = last && p[len] == '/';
		if (!is_dir(&cur)) {
			err = SQK_ERR_NOTDIR;
			break;
		}
		if (len == 1 && p[0] == '.') {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (t && t->relative_only && done.len == 0) {
				err = SQK_ERR_UNSUPPORTED;
				break;
			}
			if (done.len)
				err = visit(t, &done, "", 0, 0);
			if (err)
				break;
			buf_pop(&done);
			sqk_inode_free(&cur);
			err = sqk_resolve(img, done.s, &cur);
			if (err)
				break;
			p += len;
			continue;
		}
		err = sqk_dir_lookup(img, &cur, p, len, &ent);
		if (!err)
			err = sqk_inode_read(img, ent.ref, &child);
		if (err)
			break;
		if (sqk_basic_type(child.type) == SQK_SYMLINK && (!last || follow_last || slash)) {
			const char *rest = p + len;
			size_t off;

			if (++hops > SQK_RESOLVE_MAX_SYMLINKS)
				err = SQK_ERR_LOOP;
			else if (t && t->relative_only && child.target[0] == '/')
				err = SQK_ERR_UNSUPPORTED;
			else
				err = visit(t, &done, p, len, 1);
			if (err) {
				sqk_inode_free(&child);
				break;
			}
			if (child.target[0] == '/') {
				done.len = 0;
				done.s[0] = '\0';
				sqk_inode_free(&cur);
				err = sqk_resolve(img, "", &cur);
			}
			/* rest lives in work: remember where before work moves. */
			off = (size_t)(rest - work.s);
			if (!err) {
				char *old = work.s;
				struct buf nw = {NULL, 0, 0};

				err = buf_set(&nw, child.target, strlen(child.target), old + off,
					      strlen(old + off));
				if (!err) {
					free(work.s);
					work = nw;
					p = work.s;
				}
			}
			sqk_inode_free(&child);
			if (err)
				break;
			continue;
		}
		err = buf_append(&done, p, len);
		sqk_inode_free(&cur);
		cur = child;
		if (err)
			break;
		p += len;
		if (slash && !is_dir(&cur)) {
			err = SQK_ERR_NOTDIR;
			break;
		}
	}
	free(work.s);
	if (!err && t) {
		/* done holds the resolved path: hand it over. */
		t->path = done.s;
		done.s = NULL;
	}
	free(done.s);
	if (err) {
		sqk_inode_free(&cur);
		return err;
	}
	*ino = cur;
	return 0;
}
