// SPDX-License-Identifier: BSD-2-Clause
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
	int all;      /* a path was "/": everything is compared */
	char *tmpdir; /* conf.tmpdir points here when set */
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
	free(o->tmpdir);
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
	if (!strcmp(name, "memory") && value) {
		if (sqk_parse_size(value, &v) || !v)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid memory size '%s'",
					    value);
		o->conf.memory = v;
		return sqk_api_ok();
	}
	if (!strcmp(name, "tmpdir") && value && *value) {
		char *copy = strdup(value);

		if (!copy)
			return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
		free(o->tmpdir);
		o->tmpdir = copy;
		o->conf.tmpdir = copy;
		return sqk_api_ok();
	}
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
	char *p, *r, *w;
	int err;

	/*
	 * As the walk takes paths: no leading or doubled "/"; a trailing one
	 * kept, as it follows a symlink the path ends with.
	 */
	err = strv_add(&o->paths, &o->npaths, path, strlen(path));
	if (err)
		return err;
	p = r = w = o->paths[o->npaths - 1];
	while (*r) {
		if (*r != '/') {
			*w++ = *r++;
			continue;
		}
		while (*r == '/')
			r++;
		if (w != p)
			*w++ = '/';
	}
	*w = '\0';
	if (!*p)
		o->all = 1;
	return sqk_api_ok();
}

struct sqk_diff {
	struct sqk_diff_sink s; /* first: the comparison calls it */
	struct sqk_diff_opts o;
	struct sqk_src_ctx ex;
	struct sqk_dtree *t[2];
	sqk_diff_entry_fn fn;
	void *ctx;
	int differ, ran, err;
	struct sqk_diff_stats st;
	struct sqk_diff_error e;
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
	struct sqk_diff *d = (struct sqk_diff *)s;
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
	struct sqk_diff_entry e = {
		.change = &pc,
		.type = c->what == SQK_DIFF_SUPER ? 0 : sqk_fmt_type_mode(c->type),
		.flag = c->flag,
	};

	/* Types as the public API gives them everywhere: S_IFxxx bits. */
	if (c->what == SQK_DIFF_TYPE) {
		pc.a = sqk_fmt_type_mode((unsigned)c->a);
		pc.b = sqk_fmt_type_mode((unsigned)c->b);
	}
	d->differ = 1;
	return d->fn ? d->fn(d->ctx, &e) : 0;
}

static int tree_of(const struct sqk_diff_side *side, struct sqk_dtree **t)
{
	int err;

	if (!side->img && !side->dir)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
				    "a side is neither an image nor a directory");
	err = side->img ? sqk_dtree_image(side->img, t) : sqk_dtree_host(side->dir, t);
	if (err)
		return sqk_api_fail(err, side->img ? 0 : errno, side->img ? NULL : side->dir, NULL);
	return 0;
}

static int excluded(void *ctx, const char *path)
{
	return sqk_src_excluded(ctx, path);
}

/* The options' lists, copied: the comparison owns what it reads. */
static int copy_opts(struct sqk_diff *d, const struct sqk_diff_opts *o)
{
	size_t i;
	int err = 0;

	d->o.conf = o->conf;
	d->o.all = o->all;
	d->o.conf.tmpdir = NULL;
	if (o->tmpdir && !(d->o.tmpdir = strdup(o->tmpdir)))
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	d->o.conf.tmpdir = d->o.tmpdir;
	for (i = 0; !err && i < o->npaths; i++)
		err = strv_add(&d->o.paths, &d->o.npaths, o->paths[i], strlen(o->paths[i]));
	for (i = 0; !err && i < o->nexcludes; i++)
		err = strv_add(&d->o.excludes, &d->o.nexcludes, o->excludes[i],
			       strlen(o->excludes[i]));
	return err;
}

int(sqk_diff_open)(const struct sqk_diff_side *given_a, const struct sqk_diff_side *given_b,
		   const struct sqk_diff_opts *o, struct sqk_diff **out, size_t size)
{
	struct sqk_diff_side sides[2], *a = &sides[0], *b = &sides[1];
	struct sqk_diff *d;
	int err;

	*out = NULL;
	if (!given_a || !given_b)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "a side is missing");
	err = sqk_api_in(a, sizeof(*a), given_a, size, SQK_API_V1(struct sqk_diff_side, dir),
			 "sqk_diff_side");
	if (!err)
		err = sqk_api_in(b, sizeof(*b), given_b, size,
				 SQK_API_V1(struct sqk_diff_side, dir), "sqk_diff_side");
	if (err)
		return err;
	d = calloc(1, sizeof(*d));
	if (!d)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	d->s.change = change;
	d->o.conf.threads = 1;
	err = o ? copy_opts(d, o) : 0;
	if (!err)
		err = tree_of(a, &d->t[0]);
	if (!err)
		err = tree_of(b, &d->t[1]);
	if (err) {
		sqk_diff_destroy(d);
		return err;
	}
	*out = d;
	return sqk_api_ok();
}

/* Paths in the order of the tree: by their names' bytes, a component at a time. */
static int tree_order(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;

	while (*x && *x == *y)
		x++, y++;
	/* A path before those below it, and those before any longer name. */
	return (*x == '/' ? 1 : *x ? *x + 1 : 0) - (*y == '/' ? 1 : *y ? *y + 1 : 0);
}

/* The selected paths in the order of the tree, each once. */
static void order_paths(struct sqk_diff_opts *o)
{
	size_t i, n = 0;

	if (o->npaths > 1)
		qsort(o->paths, o->npaths, sizeof(*o->paths), tree_order);
	for (i = 0; i < o->npaths; i++) {
		if (n && !strcmp(o->paths[n - 1], o->paths[i]))
			free(o->paths[i]);
		else
			o->paths[n++] = o->paths[i];
	}
	o->npaths = n;
}

int sqk_diff_run(struct sqk_diff *d, sqk_diff_entry_fn fn, void *ctx)
{
	struct sqk_diff_conf conf = d->o.conf;
	const struct sqk_diff_error *e = &d->e;

	if (d->ran)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "a comparison runs once");
	d->ran = 1;
	d->fn = fn;
	d->ctx = ctx;
	d->e.side = -1;
	order_paths(&d->o);
	conf.select = d->o.paths;
	conf.nselect = d->o.all ? 0 : (unsigned)d->o.npaths;
	if (d->o.nexcludes) {
		d->ex.excludes = (const char *const *)d->o.excludes;
		d->ex.nexcludes = d->o.nexcludes;
		conf.excluded = excluded;
		conf.exclude_ctx = &d->ex;
	}
	d->err = sqk_diff(d->t[0], d->t[1], &conf, &d->s, &d->st, &d->e);
	if (d->err)
		return sqk_api_fail(d->err, e->errnum,
				    e->side < 0	   ? NULL
				    : e->side == 2 ? "A and B"
				    : e->side	   ? "B"
						   : "A",
				    "%s%s%s", e->path, *e->path ? ": " : "",
				    e->errnum ? strerror(e->errnum) : sqk_strerror(d->err));
	sqk_api_ok();
	return d->differ;
}

/* The counts by name, in the order of the summary. */
static const char *const count_names[] = {
	"added",	  "removed",
	"changed",	  "bytes_added",
	"bytes_removed",  "bytes_changed",
	"files_compared", "blocks_stored_alike",
	"bytes_read",	  NULL,
};
static const size_t count_at[] = {
	offsetof(struct sqk_diff_stats, added),
	offsetof(struct sqk_diff_stats, removed),
	offsetof(struct sqk_diff_stats, changed),
	offsetof(struct sqk_diff_stats, bytes_added),
	offsetof(struct sqk_diff_stats, bytes_removed),
	offsetof(struct sqk_diff_stats, bytes_changed),
	offsetof(struct sqk_diff_stats, files),
	offsetof(struct sqk_diff_stats, blocks_stored),
	offsetof(struct sqk_diff_stats, bytes_read),
};

int sqk_diff_count(const struct sqk_diff *d, const char *name, uint64_t *value)
{
	size_t i;

	for (i = 0; count_names[i]; i++)
		if (!strcmp(name, count_names[i])) {
			*value = *(const uint64_t *)((const char *)&d->st + count_at[i]);
			return sqk_api_ok();
		}
	return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no diff count '%s'", name);
}

const char *const *sqk_diff_count_names(void)
{
	return count_names;
}

int sqk_diff_failure(const struct sqk_diff *d, int *side, const char **path, int *errnum)
{
	if (side)
		*side = d->err ? d->e.side : -1;
	if (path)
		*path = d->err ? d->e.path : "";
	if (errnum)
		*errnum = d->err ? d->e.errnum : 0;
	return d->err;
}

void sqk_diff_destroy(struct sqk_diff *d)
{
	if (!d)
		return;
	sqk_dtree_destroy(d->t[0]);
	sqk_dtree_destroy(d->t[1]);
	strv_free(d->o.paths, d->o.npaths);
	strv_free(d->o.excludes, d->o.nexcludes);
	free(d->o.tmpdir);
	free(d);
}

/* sqk_diff_compare()'s callback, given the change alone. */
struct change_fn {
	sqk_change_fn fn;
	void *ctx;
};

static int to_change(void *ctx, const struct sqk_diff_entry *e)
{
	const struct change_fn *c = ctx;

	return c->fn ? c->fn(c->ctx, e->change) : 0;
}

int(sqk_diff_compare)(const struct sqk_diff_side *a, const struct sqk_diff_side *b,
		      const struct sqk_diff_opts *o, sqk_change_fn fn, void *ctx, size_t size)
{
	struct change_fn c = {fn, ctx};
	struct sqk_diff *d;
	int err = (sqk_diff_open)(a, b, o, &d, size);

	if (err)
		return err;
	err = sqk_diff_run(d, to_change, &c);
	sqk_diff_destroy(d);
	return err;
}
