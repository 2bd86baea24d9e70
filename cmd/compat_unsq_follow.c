// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit unsquashfs -follow-symlinks (-L) and -missing-symlinks: each
 * extract name is resolved by the public API's tracing open
 * (sqk_inode_open_trace) under unsquashfs's rules (relative symlinks only,
 * no ".." above the root). What the name
 * needs becomes extract names: the target (a directory with everything in
 * it), every symlink on the way, and every directory the resolution left
 * through "..", without its contents, so that the extracted symlinks
 * resolve the same way in the extracted tree.
 *
 * Without -L, a literal name that goes through a symlink (which unsquashfs
 * matches to nothing, and extracts nothing for) is resolved as any other
 * command resolves a path, as lstat(2) does: the symlinks on the way are
 * followed, the last component only when the name ends with "/".
 */
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "compat.h"
#include "compat_unsq.h"

/* What one resolution went through, added to the filter only if it succeeds. */
struct needs {
	char **path;
	int *is_link;
	size_t n;
	char *result; /* where it ended */
};

static int note(void *ctx, const char *path, enum sqk_trace_kind kind)
{
	struct needs *nd = ctx;
	int is_link = kind == SQK_TRACE_LINK;
	char **p;

	path = cli_relpath(path);
	if (kind == SQK_TRACE_RESULT)
		return (nd->result = strdup(path)) ? 0 : SQK_ERR_NOMEM;
	p = realloc(nd->path, (nd->n + 1) * sizeof(*p));
	int *l;

	if (!p)
		return SQK_ERR_NOMEM;
	nd->path = p;
	l = realloc(nd->is_link, (nd->n + 1) * sizeof(*l));
	if (!l)
		return SQK_ERR_NOMEM;
	nd->is_link = l;
	if (!(nd->path[nd->n] = strdup(path)))
		return SQK_ERR_NOMEM;
	nd->is_link[nd->n++] = is_link;
	return 0;
}

static int add_needs(struct usq_filter *f, const struct needs *nd)
{
	size_t i;

	for (i = 0; i < nd->n; i++)
		if ((nd->is_link[i] ? cli_usq_filter_add(f, 0, nd->path[i])
				    : cli_usq_filter_add_dir(f, nd->path[i])) != 0)
			return SQK_ERR_NOMEM;
	return 0;
}

static void release(struct needs *nd)
{
	while (nd->n)
		free(nd->path[--nd->n]);
	free(nd->path);
	free(nd->is_link);
	free(nd->result);
}

static const char *why(int err)
{
	if (err == SQK_ERR_UNSUPPORTED)
		return "a symlink on the way is absolute or leads above the root";
	if (err == SQK_ERR_LOOP)
		return "too many levels of symlinks";
	return sqk_strerror(err);
}

/* A name with a character the filter's style reads as more than itself. */
static int has_magic(const struct usq_filter *f, const char *name)
{
	if (f->regex)
		return strpbrk(name, ".^$*+?()[]{}|\\") != NULL;
	/* Globs, with the extended forms ?(...) @(...) !(...) +(...) *(...). */
	return !f->no_wildcards && strpbrk(name, "*?[\\(") != NULL;
}

int cli_usq_through(struct usq *u, struct sqk_image *img, char **names, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct needs nd = {NULL, NULL, 0, NULL};
		struct sqk_inode *ino;
		int err = 0, through = 0, literal = !has_magic(&u->filter, names[i]);

		/* Literal names only, whose resolution can be added as names of the same style. */
		if (literal)
			err = sqk_inode_open_trace(img, names[i], SQK_TRACE_NOFOLLOW, note, &nd,
						   &ino);
		if (literal && !err) {
			sqk_inode_destroy(ino);
			through = nd.n && !has_magic(&u->filter, nd.result);
			if (through && (add_needs(&u->filter, &nd) != 0 ||
					cli_usq_filter_add(&u->filter, 0, nd.result) != 0))
				err = SQK_ERR_NOMEM;
		}
		release(&nd);
		if (err == SQK_ERR_NOMEM)
			return cli_compat_fail("%s", sqk_strerror(err));
		/* Not resolved, or through no symlink: matched as unsquashfs matches it. */
		if (!through && cli_usq_filter_add(&u->filter, 0, names[i]) != 0)
			return cli_compat_fail("%s: invalid name", names[i]);
	}
	return COMPAT_OK;
}

int cli_usq_follow(struct usq *u, struct sqk_image *img, char **names, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct needs nd = {NULL, NULL, 0, NULL};
		struct sqk_inode *ino;
		int err = sqk_inode_open_trace(img, names[i], SQK_TRACE_RELATIVE_ONLY, note, &nd,
					       &ino);

		if (!err) {
			sqk_inode_destroy(ino);
			err = add_needs(&u->filter, &nd);
			if (!err && cli_usq_filter_add(&u->filter, 0, nd.result) != 0)
				err = SQK_ERR_NOMEM;
		}
		release(&nd);
		if (err == SQK_ERR_NOMEM)
			return cli_compat_fail("%s", sqk_strerror(err));
		if (!err)
			continue;
		/*
		 * What cannot be resolved is an error with -missing-symlinks;
		 * else a warning, and the name is extracted as it is, if it is.
		 */
		if (u->missing)
			return cli_compat_fail("%s: extract name %s can't be resolved (%s)",
					       u->image, names[i], why(err));
		fprintf(stderr,
			"squashkit unsquashfs: %s: extract name %s can't be resolved (%s)\n",
			u->image, names[i], why(err));
		if (cli_usq_filter_add(&u->filter, 0, names[i]) != 0)
			return cli_compat_fail("%s", sqk_strerror(SQK_ERR_NOMEM));
	}
	return COMPAT_OK;
}
