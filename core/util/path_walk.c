// SPDX-License-Identifier: BSD-2-Clause
/*
 * Symlink-following path resolution over a caller's tree. work holds what
 * is left to resolve; done the directories resolved so far (plain names,
 * no symlinks), which is where ".." goes back to.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "path_walk.h"

/* A growable string. */
struct buf {
	char *s;
	size_t len, cap;
};

/* b = a + "/" + c (no "/" when c is empty); a and c must not point into b. */
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

/* Drop the last component ("a/b" -> "a"). */
static void buf_pop(struct buf *b)
{
	char *slash = b->len ? memrchr(b->s, '/', b->len) : NULL;

	b->len = slash ? (size_t)(slash - b->s) : 0;
	b->s[b->len] = '\0';
}

/* Tell t of done + "/" + name (name may be empty). */
static int visit(const struct sqk_path_trace *t, const struct buf *done, const char *name,
		 size_t len, int is_link)
{
	struct buf b = {NULL, 0, 0};
	int err;

	if (!t || !t->visit)
		return 0;
	err = done->len ? buf_set(&b, done->s, done->len, name, len)
			: buf_set(&b, name, len, "", 0);
	if (!err)
		err = t->visit(t->ctx, b.s, is_link);
	free(b.s);
	return err;
}

/* work = target + "/" + rest, rest being in work itself. */
static int splice(struct buf *work, const char *target, size_t rest_off)
{
	struct buf nw = {NULL, 0, 0};
	int err = buf_set(&nw, target, strlen(target), work->s + rest_off,
			  strlen(work->s + rest_off));

	if (!err) {
		free(work->s);
		*work = nw;
	}
	return err;
}

int sqk_path_walk(const char *path, int follow_last, const struct sqk_path_ops *ops, void *ctx,
		  const struct sqk_path_trace *t, int *pending, char **resolved)
{
	struct buf work = {NULL, 0, 0}, done = {NULL, 0, 0};
	unsigned hops = 0;
	size_t at = 0;
	int err, got = 0;

	err = buf_set(&work, "", 0, path, strlen(path));
	if (!err)
		err = buf_set(&done, "", 0, "", 0);
	while (!err) {
		const char *p = work.s + at, *target = NULL;
		size_t len;
		enum sqk_path_kind kind;
		int last, slash;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		last = p[len + strspn(p + len, "/")] == '\0';
		slash = last && p[len] == '/';
		at = (size_t)(p - work.s) + len;
		if (len == 1 && p[0] == '.') {
			got = 0;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			got = 0;
			if (!done.len) {
				if (t && t->relative_only)
					err = SQK_ERR_UNSUPPORTED;
				continue;
			}
			err = visit(t, &done, "", 0, 0);
			if (!err) {
				buf_pop(&done);
				err = ops->up(ctx, done.s);
			}
			continue;
		}
		err = ops->lookup(ctx, p, len, &kind, &target);
		if (err)
			break;
		got = 1;
		if (kind == SQK_PATH_SYMLINK && (!last || follow_last || slash)) {
			got = 0;
			if (++hops > SQK_PATH_MAX_SYMLINKS)
				err = SQK_ERR_LOOP;
			else if (t && t->relative_only && target[0] == '/')
				err = SQK_ERR_UNSUPPORTED;
			else
				err = visit(t, &done, p, len, 1);
			/* The target is the tree's until its next call: into work first. */
			if (!err) {
				int absolute = target[0] == '/';

				err = splice(&work, target, at);
				if (!err && absolute) {
					done.len = 0;
					done.s[0] = '\0';
					err = ops->root(ctx);
				}
			}
			at = 0;
			continue;
		}
		if (last && !slash)
			err = buf_append(&done, p, len);
		else if (kind != SQK_PATH_DIR)
			err = SQK_ERR_NOTDIR;
		else if (!(err = buf_append(&done, p, len)) && !last)
			err = ops->enter(ctx);
	}
	free(work.s);
	if (!err) {
		*pending = got;
		if (resolved) {
			*resolved = done.s;
			done.s = NULL;
		}
	}
	free(done.s);
	return err;
}
