// SPDX-License-Identifier: GPL-2.0-or-later
/* Comparing two trees (images or host directories): core/diff's walk, its changes as data. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_int.h"
#include "util/pool.h"
#include "diff/diff.h"
#include "diff/dtree.h"
#include "format/fmt_inode.h"
#include "source/src.h"
#include "util/parse.h"

struct sqk_diff_opts {
	struct sqk_diff_conf conf;
	char **paths, **excludes;
	size_t npaths, nexcludes;
};

struct sqk_diff_opts *sqk_diff_opts_create(void)
{
	struct sqk_diff_opts *o = calloc(1, sizeof(*o));
	if (!o) {
		sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
		return NULL;
	}
	o->conf.threads = sqk_online_cpus();
	return o;
}

static void strv_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

void sqk_diff_opts_destroy(struct sqk_diff_opts *o)
{
	if (!o)
		return;
	strv_free(o->paths, o->npaths);
	strv_free(o->excludes, o->nexcludes);
	free(o);
}

static int strv_add(char ***v, size_t *n, const char *s, size_t len)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	*v = nv;
	nv[*n] = strndup(s, len);
	if (!nv[*n])
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	++*n;
	return sqk_api_ok();
}

int sqk_diff_opts_set(struct sqk_diff_opts *o, const char *name, const char *value)
{
	static const struct {
		const char *name;
		size_t at;
	} switches[] = {
		{"no-contents", offsetof(struct sqk_diff_conf, no_contents)},
		{"no-owner", offsetof(struct sqk_diff_conf, no_owner)},
		{"no-permissions", offsetof(struct sqk_diff_conf, no_perms)},
		{"no-xattrs", offsetof(struct sqk_diff_conf, no_xattrs)},
		{"times", offsetof(struct sqk_diff_conf, times)},
		{"super", offsetof(struct sqk_diff_conf, super)},
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(switches) / sizeof(switches[0]); i++)
		if (!strcmp(name, switches[i].name)) {
			*(int *)((char *)&o->conf + switches[i].at) = 1;
			return sqk_api_ok();
		}
	if (!strcmp(name, "exclude") && value)
		return strv_add(&o->excludes, &o->nexcludes, value, strlen(value));
	if (!strcmp(name, "threads") && value) {
		if (sqk_parse_uint(value, 4096, &v) || !v)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid thread count '%s'",
					    value);
		o->conf.threads = (unsigned)v;
		return sqk_api_ok();
	}
	return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no diff option '%s'%s", name,
			    value ? "" : " without a value");
}

int sqk_diff_opts_add_path(struct sqk_diff_opts *o, const char *path)
{
	size_t len;

	path += strspn(path, "/");
	len = strlen(path);
	while (len && path[len - 1] == '/')
		len--;
	return strv_add(&o->paths, &o->npaths, path, len);
}

struct change_sink {
	struct sqk_diff_sink s;
	sqk_change_fn fn;
	void *ctx;
	int differ;
};

static int change(struct sqk_diff_sink *s, const struct sqk_diff_change *c)
{
	static const enum sqk_change_kind kind[] = {
		[SQK_DIFF_SUPER] = SQK_CHANGE_SUPER,	   [SQK_DIFF_ADDED] = SQK_CHANGE_ADDED,
		[SQK_DIFF_REMOVED] = SQK_CHANGE_REMOVED,   [SQK_DIFF_TYPE] = SQK_CHANGE_TYPE,
		[SQK_DIFF_MODE] = SQK_CHANGE_MODE,	   [SQK_DIFF_OWNER] = SQK_CHANGE_OWNER,
		[SQK_DIFF_MTIME] = SQK_CHANGE_MTIME,	   [SQK_DIFF_SIZE] = SQK_CHANGE_SIZE,
		[SQK_DIFF_CONTENTS] = SQK_CHANGE_CONTENTS, [SQK_DIFF_TARGET] = SQK_CHANGE_TARGET,
		[SQK_DIFF_DEVICE] = SQK_CHANGE_DEVICE,	   [SQK_DIFF_XATTR] = SQK_CHANGE_XATTR,
		[SQK_DIFF_LINK] = SQK_CHANGE_LINK,
	};
	struct change_sink *cs = (struct change_sink *)s;
	struct sqk_change pc = {
		.kind = kind[c->what],
		.path = c->path,
		.a = c->a,
		.b = c->b,
		.a2 = c->a2,
		.b2 = c->b2,
		.offset = c->offset,
		.size = c->size,
		.sa = c->sa,
		.sb = c->sb,
		.name = c->name,
		.la = c->la,
		.lb = c->lb,
	};

	/* Types as the public API gives them everywhere: S_IFxxx bits. */
	if (c->what == SQK_DIFF_TYPE) {
		pc.a = sqk_fmt_type_mode((unsigned)c->a);
		pc.b = sqk_fmt_type_mode((unsigned)c->b);
	}
	cs->differ = 1;
	return cs->fn ? cs->fn(cs->ctx, &pc) : 0;
}

static int tree_of(const struct sqk_diff_side *side, struct sqk_dtree **t)
{
	int err = side->img ? sqk_dtree_image(side->img, t) : sqk_dtree_host(side->dir, t);

	if (err)
		return sqk_api_fail(err, side->img ? 0 : errno, side->img ? NULL : side->dir, NULL);
	return 0;
}

static int excluded(void *ctx, const char *path)
{
	return sqk_src_excluded(ctx, path);
}

int sqk_diff_compare(const struct sqk_diff_side *a, const struct sqk_diff_side *b,
		     const struct sqk_diff_opts *o, sqk_change_fn fn, void *ctx)
{
	struct sqk_diff_opts none = {.conf.threads = 1};
	struct change_sink cs = {.s = {change}, .fn = fn, .ctx = ctx};
	struct sqk_src_ctx ex = {0};
	struct sqk_dtree *ta = NULL, *tb = NULL;
	struct sqk_diff_conf conf;
	struct sqk_diff_stats st;
	struct sqk_diff_error e = {0};
	int err;

	if (!o)
		o = &none;
	conf = o->conf;
	conf.select = o->paths;
	conf.nselect = (unsigned)o->npaths;
	if (o->nexcludes) {
		ex.excludes = (const char *const *)o->excludes;
		ex.nexcludes = o->nexcludes;
		conf.excluded = excluded;
		conf.exclude_ctx = &ex;
	}
	err = tree_of(a, &ta);
	if (!err)
		err = tree_of(b, &tb);
	if (!err) {
		err = sqk_diff(ta, tb, &conf, &cs.s, &st, &e);
		if (err)
			sqk_api_fail(err, e.errnum,
				     e.side < 0 ? NULL
				     : e.side	? "B"
						: "A",
				     "%s%s%s", e.path, *e.path ? ": " : "",
				     e.errnum ? strerror(e.errnum) : sqk_strerror(err));
	}
	if (ta)
		ta->ops->destroy(ta);
	if (tb)
		tb->ops->destroy(tb);
	if (err)
		return err;
	sqk_api_ok();
	return cs.differ;
}
