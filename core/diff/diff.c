// SPDX-License-Identifier: BSD-2-Clause
/*
 * The walk of two trees at once. Each level lists both directories (a side
 * that has no directory there lists nothing) and merges the two lists by
 * name: an entry on one side only is added or removed, with everything
 * below it; one on both is compared, and the walk goes down into it where
 * either side has a directory. Selected paths limit the comparison: each
 * is resolved on each side (diff_path.c) and compared from there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"
#include "format/fmt_name.h"
#include "format/format.h"
#include "read/image.h"
#include "util/array.h"
#include "util/error.h"
#include "util/file.h"
#include "walk/walk.h"

/* A temporary file of b failed: side -1, its directory as the path, its errno. */
static int temp_fail(struct diff *d, const struct sqk_spill *b, int err)
{
	struct sqk_fault f;

	if (d->failed)
		return err;
	sqk_spill_failed(b, err, &f);
	d->failed = 1;
	d->e->side = -1;
	d->e->errnum = f.errnum;
	snprintf(d->e->path, sizeof(d->e->path), "%s", b->path);
	return err;
}

/* The errno of a tree's failed call: an image's file's, a directory's the thread's. */
static int tree_errnum(const struct sqk_dtree *t)
{
	return t->img ? __atomic_load_n(&sqk_image_file(t->img)->errnum, __ATOMIC_RELAXED) : errno;
}

int sqk_diff_fail(struct diff *d, int side, int err)
{
	struct sqk_diff_error *e = d->e;

	if (err >= 0 || d->failed)
		return err;
	/* An image side's store (the directories it entered) that failed: a temporary file's. */
	if ((side == 0 || side == 1) && d->t[side]->img &&
	    sqk_spill_failed(sqk_image_budget(d->t[side]->img), err, NULL))
		return temp_fail(d, sqk_image_budget(d->t[side]->img), err);
	d->failed = 1;
	e->side = side;
	e->errnum = 0;
	/* An image's read may have failed in another thread: its file keeps the errno. */
	if (err == SQK_ERR_IO)
		e->errnum = side == 0 || side == 1 ? tree_errnum(d->t[side]) : errno;
	snprintf(e->path, sizeof(e->path), "%s", d->path ? diff_path(d) : "");
	return err;
}

int sqk_diff_store_fail(struct diff *d, int err)
{
	if (!sqk_spill_failed(&d->budget, err, NULL))
		return sqk_diff_fail(d, -1, err);
	return temp_fail(d, &d->budget, err);
}

/* The path of name in the directory at path[0..plen); *len its length. */
static int append(struct diff *d, size_t plen, const char *name, size_t nlen, size_t *len)
{
	if (SQK_ARRAY_GROW(d->path, d->path_cap, plen + 1 + nlen + 1))
		return sqk_diff_fail(d, -1, SQK_ERR_NOMEM);
	d->path[plen] = '/';
	memcpy(d->path + plen + 1, name, nlen);
	d->path[plen + 1 + nlen] = '\0';
	*len = plen + 1 + nlen;
	return 0;
}

/* Only on one side: with what is below it, added (side 1) or removed (side 0). */
static int only(struct diff *d, int side, const struct sqk_dnode *n)
{
	struct sqk_diff_change c;

	memset(&c, 0, sizeof(c));
	c.what = side ? SQK_DIFF_ADDED : SQK_DIFF_REMOVED;
	c.path = diff_path(d);
	c.type = n->type;
	c.size = n->size;
	return sqk_diff_emit(d, &c);
}

static int walk_dir(struct diff *d, struct sqk_dnode *dir[2], size_t plen, unsigned depth);

/*
 * The entry at d->path (len bytes) with its node on each side (NULL where
 * it is not): compared when inside the selection, then walked into.
 */
static int nodes(struct diff *d, struct sqk_dnode *n[2], size_t len, unsigned depth, int inside)
{
	struct sqk_dnode *dir[2];
	int err = 0, s;

	if (inside)
		err = n[0] && n[1] ? sqk_diff_nodes(d, n[0], n[1])
				   : only(d, n[0] ? 0 : 1, n[0] ? n[0] : n[1]);
	for (s = 0; s < 2; s++)
		dir[s] = n[s] && n[s]->type == SQK_DIR ? n[s] : NULL;
	if (!err && (dir[0] || dir[1])) {
		if (depth + 1 >= SQK_WALK_MAX_DEPTH)
			return sqk_diff_fail(d, dir[0] ? 0 : 1, SQK_ERR_DEPTH);
		err = walk_dir(d, dir, len, depth + 1);
	}
	if (!err)
		err = sqk_diff_drain(d, 1);
	return err;
}

/* The entry named e[0] and e[1] (either may be NULL), its path in d->path. */
static int entry(struct diff *d, const struct sqk_dir_entry *e[2], size_t len, unsigned depth)
{
	const struct sqk_diff_conf *o = d->o;
	struct sqk_dnode node[2], *n[2] = {NULL, NULL};
	int err = 0, s;

	if (o->excluded && o->excluded(o->exclude_ctx, d->path + 1))
		return 0;
	for (s = 0; s < 2 && !err; s++) {
		if (!e[s])
			continue;
		err = d->t[s]->ops->stat(d->t[s], e[s], &node[s]);
		if (err)
			err = sqk_diff_fail(d, s, err);
		else
			n[s] = &node[s];
	}
	if (!err)
		err = nodes(d, n, len, depth, 1);
	for (s = 0; s < 2; s++)
		if (n[s])
			d->t[s]->ops->release(n[s]);
	return err;
}

static int walk_dir(struct diff *d, struct sqk_dnode *dir[2], size_t plen, unsigned depth)
{
	const struct sqk_dir_entry *head[2] = {NULL, NULL};
	size_t len = 0;
	int err = 0, entered[2] = {0, 0}, s, r;

	for (s = 0; s < 2 && !err; s++) {
		if (!dir[s])
			continue;
		err = d->t[s]->ops->enter(d->t[s], dir[s]);
		if (err)
			err = sqk_diff_fail(d, s, err);
		else
			entered[s] = 1;
	}
	/* The two listings merged by name, an entry of each at a time. */
	for (s = 0; s < 2 && !err; s++) {
		r = entered[s] ? d->t[s]->ops->next(d->t[s], &head[s]) : 0;
		if (r < 0)
			err = sqk_diff_fail(d, s, r);
		if (r <= 0)
			head[s] = NULL;
	}
	while (!err && (head[0] || head[1])) {
		const struct sqk_dir_entry *e[2] = {head[0], head[1]};
		int c = !e[0]	? 1
			: !e[1] ? -1
				: sqk_name_cmp(e[0]->name, e[0]->name_len, e[1]->name,
					       e[1]->name_len);

		if (c > 0)
			e[0] = NULL;
		if (c < 0)
			e[1] = NULL;
		err = append(d, plen, e[c > 0]->name, e[c > 0]->name_len, &len);
		if (!err)
			err = entry(d, e, len, depth);
		for (s = 0; s < 2 && !err; s++) {
			if (!e[s])
				continue;
			r = d->t[s]->ops->next(d->t[s], &head[s]);
			if (r < 0)
				err = sqk_diff_fail(d, s, r);
			if (r <= 0)
				head[s] = NULL;
		}
	}
	for (s = 0; s < 2; s++)
		if (entered[s])
			d->t[s]->ops->leave(d->t[s]);
	d->path[plen] = '\0';
	return err;
}

/* The whole trees, from their roots. */
static int walk_all(struct diff *d)
{
	struct sqk_dnode root[2], *n[2] = {NULL, NULL};
	int err = 0, s;

	d->path[0] = '\0';
	for (s = 0; s < 2 && !err; s++) {
		err = d->t[s]->ops->root(d->t[s], &root[s]);
		if (err)
			err = sqk_diff_fail(d, s, err);
		else
			n[s] = &root[s];
	}
	if (!err)
		err = nodes(d, n, 0, 0, 1);
	for (s = 0; s < 2; s++)
		if (n[s])
			d->t[s]->ops->release(n[s]);
	return err;
}

/*
 * A selected path ("a/b", maybe with a trailing "/"), resolved on each side
 * as a mounted tree resolves it, and compared from there under the path as
 * given. *missing is set when neither side has it.
 */
static int walk_path(struct diff *d, const char *sel, int *missing)
{
	const char *path = sel;
	struct diff_side_path way[2];
	struct sqk_dnode *n[2] = {NULL, NULL};
	size_t len;
	int err = 0, s;

	/* Shown as given, without its "." components and trailing "/"; the root as "". */
	len = 0;
	while (*path) {
		size_t c = strcspn(path, "/");

		if (!(c == 1 && path[0] == '.')) {
			d->path[len++] = '/';
			memcpy(d->path + len, path, c);
			len += c;
		}
		path += c + strspn(path + c, "/");
	}
	d->path[len] = '\0';
	path = sel;
	for (s = 0; s < 2; s++) {
		int e = sqk_diff_path_open(&way[s], d->t[s], path, &n[s]);

		if (e && !err) {
			err = sqk_diff_fail(d, s, e);
			/* Too many symlinks: the kernel's ELOOP, not a loop of the tree. */
			if (e == SQK_ERR_LOOP)
				d->e->errnum = ELOOP;
		}
	}
	*missing = !err && !n[0] && !n[1];
	if (!err && !*missing)
		err = nodes(d, n, len, 0, 1);
	for (s = 0; s < 2; s++)
		sqk_diff_path_close(&way[s]);
	return err;
}

static int walk(struct diff *d)
{
	unsigned i, missing = 0, first = 0;
	int err = 0;

	if (!d->o->nselect)
		err = walk_all(d);
	for (i = 0; !err && i < d->o->nselect; i++) {
		int gone = 0;

		err = walk_path(d, d->o->select[i], &gone);
		if (gone && !missing++)
			first = i;
	}
	if (!err)
		err = sqk_diff_drain(d, 2);
	/* A path on neither side is told once the others are compared. */
	if (!err && missing) {
		snprintf(d->path, d->path_cap, "/%s", d->o->select[first]);
		err = sqk_diff_fail(d, 2, SQK_ERR_NOENT);
	}
	return err;
}

int sqk_diff(struct sqk_dtree *a, struct sqk_dtree *b, const struct sqk_diff_conf *o,
	     struct sqk_diff_sink *sink, struct sqk_diff_stats *st, struct sqk_diff_error *e)
{
	struct diff d;
	unsigned i;
	int err = 0;

	memset(&d, 0, sizeof(d));
	memset(st, 0, sizeof(*st));
	memset(e, 0, sizeof(*e));
	e->side = -1;
	d.t[0] = a;
	d.t[1] = b;
	d.o = o;
	d.sink = sink;
	d.st = st;
	d.e = e;
	err = sqk_spill_init(&d.budget, o->tmpdir,
			     o->memory ? o->memory : sqk_spill_default(SQK_SPILL_READ_MOST), 0);
	if (err)
		return err;
	sqk_store_hash_init(&d.links[0].by_id, &d.budget);
	sqk_store_hash_init(&d.links[1].by_id, &d.budget);
	d.path_cap = 4096;
	for (i = 0; i < o->nselect; i++)
		if (strlen(o->select[i]) + 2 > d.path_cap)
			d.path_cap = strlen(o->select[i]) + 2;
	d.path = malloc(d.path_cap);
	if (d.path)
		d.path[0] = '\0';
	if (!d.path)
		err = sqk_diff_fail(&d, -1, SQK_ERR_NOMEM);
	if (!err && !o->no_contents && (err = sqk_diff_data_start(&d)) != 0)
		err = sqk_diff_fail(&d, -1, err);
	if (!err && o->super && a->img && b->img)
		err = sqk_diff_super(&d);
	if (!err)
		err = walk(&d);
	/* Stopped early (1) or failed: the workers skip what is left. */
	sqk_diff_data_stop(&d, err != 0);
	sqk_diff_queue_release(&d);
	st->files = d.files;
	st->blocks_stored = d.blocks_stored;
	st->bytes_read = d.bytes_read;
	sqk_diff_links_release(&d.links[0]);
	sqk_diff_links_release(&d.links[1]);
	free(d.path);
	sqk_spill_release(&d.budget);
	return err < 0 ? err : 0;
}
