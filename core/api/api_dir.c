// SPDX-License-Identifier: BSD-2-Clause
/* Listing a directory an entry at a time, and walking a tree: the reader's iterator and walk. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api_int.h"
#include "format/fmt_inode.h"
#include "format/fmt_type.h"
#include "read/dir.h"
#include "read/inode.h"
#include "util/store.h"
#include "walk/resolve.h"
#include "walk/walk.h"

/* A piece of the listing at a time: no metadata block is held between calls. */
struct sqk_dir {
	struct sqk_dir_list l;
	size_t at; /* the next entry of the piece */
	struct sqk_image *img;
};

int sqk_dir_open(struct sqk_image *img, const struct sqk_inode *dir, struct sqk_dir **out)
{
	struct sqk_dir *d;
	int err;

	*out = NULL;
	if (!S_ISDIR(dir->mode))
		return sqk_api_fail(SQK_ERR_NOTDIR, 0, NULL, "inode %u is not a directory",
				    dir->number);
	d = calloc(1, sizeof(*d));
	if (!d)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	d->img = img;
	err = sqk_dir_list_open(img, dir, 0, &d->l);
	if (err) {
		free(d);
		return sqk_api_fail(err, sqk_api_io_errnum(img, err), NULL,
				    "the listing of inode %u: %s", dir->number, sqk_strerror(err));
	}
	*out = d;
	return sqk_api_ok();
}

int(sqk_dir_next)(struct sqk_dir *d, struct sqk_dirent *given, size_t size)
{
	struct sqk_dirent one, *ent = &one;
	struct sqk_dir_list *l = &d->l;
	const struct sqk_dir_entry *e;
	int r;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_dirent, type), "sqk_dirent"))
		return SQK_ERR_ARG;
	while (d->at == l->n && !l->error && !l->end) {
		r = sqk_dir_list_next(l);
		if (r)
			return sqk_api_fail(r, 0, NULL, NULL);
		d->at = 0;
	}
	if (d->at == l->n) {
		r = l->error;
		if (!r)
			return sqk_api_ok();
		if (r == SQK_ERR_BADNAME || r == SQK_ERR_SEQUENCE)
			return sqk_api_fail(r, 0, NULL, "entry '%.*s': %s", (int)l->bad.name_len,
					    l->bad.name, sqk_strerror(r));
		return sqk_api_fail(r, sqk_api_io_errnum(d->img, r), NULL, NULL);
	}
	e = &l->ents[d->at++];
	memset(ent, 0, sizeof(*ent));
	ent->name = e->name;
	ent->name_len = e->name_len;
	ent->ref = e->ref;
	ent->ino = e->number;
	ent->type = sqk_fmt_type_mode(e->type);
	sqk_api_out(given, size, &one, sizeof(one), 0, NULL);
	sqk_api_ok();
	return 1;
}

void sqk_dir_destroy(struct sqk_dir *d)
{
	if (!d)
		return;
	sqk_dir_list_close(&d->l);
	free(d);
}

int(sqk_dirent_open)(struct sqk_image *img, const struct sqk_dirent *given, struct sqk_inode **out,
		     size_t size)
{
	struct sqk_dir_entry e;
	struct sqk_dirent one, *ent = &one;
	struct sqk_inode *ino;
	int err;

	*out = NULL;
	err = sqk_api_in(&one, sizeof(one), given, size, SQK_API_V1(struct sqk_dirent, type),
			 "sqk_dirent");
	if (err)
		return err;
	ino = calloc(1, sizeof(*ino));
	if (!ino)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	memset(&e, 0, sizeof(e));
	e.type = sqk_fmt_type_of_mode(ent->type);
	e.number = ent->ino;
	e.ref = ent->ref;
	err = sqk_dirent_inode(img, &e, ino);
	if (err) {
		free(ino);
		return sqk_api_fail(err, sqk_api_io_errnum(img, err), NULL, "inode %u at %#llx: %s",
				    ent->ino, (unsigned long long)ent->ref, sqk_strerror(err));
	}
	*out = ino;
	return sqk_api_ok();
}

/* The walk's sink, calling the visitor with "/a/b" paths. */
struct visit_sink {
	struct sqk_sink s;
	sqk_visit_fn visit;
	void *ctx;
	const char *start; /* no leading or trailing "/"; "" for the root */
	size_t start_len;
	char *skip; /* a directory whose entries are not visited (visit said 1) */
	size_t skip_len;
};

/* Is path ("a/b") the start or below it, and not below a skipped directory? */
static int wanted(struct visit_sink *v, const char *path)
{
	size_t len = strlen(path);

	if (v->start_len && (len < v->start_len || memcmp(path, v->start, v->start_len) ||
			     (path[v->start_len] && path[v->start_len] != '/')))
		return 0;
	if (v->skip && len > v->skip_len && !memcmp(path, v->skip, v->skip_len) &&
	    (!v->skip_len || path[v->skip_len] == '/'))
		return 0;
	return 1;
}

static int call(struct visit_sink *v, const char *path, const struct sqk_inode *ino,
		const char *link_to, int is_dir)
{
	struct sqk_stat st;
	struct sqk_api_abs at, to;
	const char *p, *l = NULL;
	int r;

	if (!wanted(v, path))
		return 0;
	sqk_inode_stat(ino, &st);
	p = sqk_api_abspath(&at, path);
	to.big = NULL;
	if (p && link_to)
		l = sqk_api_abspath(&to, link_to);
	r = !p || (link_to && !l) ? SQK_ERR_NOMEM : v->visit(v->ctx, p, &st, l);
	sqk_api_abs_done(&at);
	sqk_api_abs_done(&to);
	if (r == 1 && is_dir) {
		free(v->skip);
		v->skip = strdup(path);
		if (!v->skip)
			return SQK_ERR_NOMEM;
		v->skip_len = strlen(path);
		return 0;
	}
	return r < 0 ? r : 0;
}

static int visit_dir(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	return call((struct visit_sink *)s, path, ino, NULL, 1);
}

static int visit_end(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	return 0;
}

static int visit_node(struct sqk_sink *s, const char *path, struct sqk_inode *ino,
		      const char *link_to)
{
	return call((struct visit_sink *)s, path, ino, link_to, 0);
}

int sqk_walk_tree(struct sqk_image *img, const char *path, sqk_visit_fn visit, void *ctx)
{
	struct visit_sink v = {.s = {visit_dir, visit_end, visit_node}, .visit = visit, .ctx = ctx};
	struct sqk_walk w = {.img = img, .sink = &v.s};
	struct sqk_resolve_trace t = {0, NULL, NULL, NULL};
	struct sqk_inode ino;
	char *start;
	size_t len;
	int err;

	/*
	 * The start as a path resolves (symlinks on the way followed, the last
	 * one after a "/"), walked under its path in the image; one that does
	 * not resolve is taken as it is, and names nothing.
	 */
	err = sqk_resolve_trace(img, path ? path : "", 0, &t, &ino);
	if (!err)
		sqk_inode_free(&ino);
	else if (err == SQK_ERR_LOOP)
		return sqk_api_fail(err, ELOOP, path, NULL);
	start = t.path ? t.path : strdup(path ? path : "");
	if (!start)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	/* The walk's selection: no leading or trailing "/". */
	len = strlen(start);
	while (len && start[len - 1] == '/')
		start[--len] = '\0';
	v.start = start + strspn(start, "/");
	v.start_len = strlen(v.start);
	if (v.start_len) {
		char *sel = (char *)v.start;

		w.select = &sel;
		w.nselect = 1;
		err = sqk_walk(&w);
	} else {
		err = sqk_walk(&w);
	}
	free(v.skip);
	free(start);
	if (err) {
		if (!w.fault.err)
			sqk_fault_set(&w.fault, err, 0, 0, "");
		return sqk_api_fault(&w.fault, NULL);
	}
	return sqk_api_ok();
}

/* Its own budget: a guard may go down any number of images. */
struct sqk_dir_guard {
	struct sqk_spill budget;
	struct sqk_store *seen;
};

int sqk_dir_guard_create(struct sqk_dir_guard **out)
{
	struct sqk_dir_guard *g = calloc(1, sizeof(*g));

	*out = g;
	if (!g)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	if (sqk_spill_init(&g->budget, NULL, sqk_spill_default(SQK_SPILL_READ_MOST), 0) ||
	    sqk_store_create(&g->budget, 0, 0, &g->seen)) {
		sqk_spill_release(&g->budget);
		free(g);
		*out = NULL;
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	}
	return sqk_api_ok();
}

void sqk_dir_guard_destroy(struct sqk_dir_guard *g)
{
	if (!g)
		return;
	sqk_store_destroy(g->seen);
	sqk_spill_release(&g->budget);
	free(g);
}

int sqk_dir_guard_enter(struct sqk_dir_guard *g, uint64_t ino, unsigned depth)
{
	struct sqk_fault f;
	int err;

	if (ino > UINT32_MAX)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "inode number %llu is past 32 bits",
				    (unsigned long long)ino);
	err = sqk_dir_enter(g->seen, (uint32_t)ino, depth, SQK_WALK_MAX_DEPTH);
	if (err && sqk_spill_failed(&g->budget, err, &f))
		return sqk_api_fault(&f, NULL);
	return err ? sqk_api_fail(err, 0, NULL, NULL) : sqk_api_ok();
}
