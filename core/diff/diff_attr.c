// SPDX-License-Identifier: BSD-2-Clause
/*
 * An entry found on both sides: its changes, in a fixed order (type, mode,
 * owner, mtime, size or contents, target, device, xattrs, hard links). A
 * type change says it all: nothing else of the two is compared.
 *
 * Hard links compare as groups: the first entry of a group that both
 * sides have is remembered with its path, side by side; a later entry
 * must be linked to the same earlier path on both sides. So a group split
 * in two, or joined, names the entry that left it and the one it was with.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"
#include "format/format.h"
#include "util/array.h"
#include "util/error.h"

static uint64_t link_key(uint64_t dev, uint64_t ino)
{
	return ino * 0x9e3779b97f4a7c15ull ^ dev;
}

/* A record of the links' store: who, the next record with the same key (offset + 1), the path. */
struct link_rec {
	uint64_t dev, ino, next;
	uint32_t len, pad;
};

/* The first path of n's inode on this side: 1 and *path, 0 when it has none, or an error. */
static int link_find(struct diff_links *l, const struct sqk_dnode *n, const char **path)
{
	struct link_rec r;
	uint64_t at;
	int err = sqk_store_hash_get(&l->by_id, link_key(n->dev, n->ino), &at);

	for (; err > 0 && at; at = r.next) {
		err = sqk_store_read(l->recs, at - 1, &r, sizeof(r));
		if (err)
			return err;
		if (r.dev != n->dev || r.ino != n->ino) {
			err = 1;
			continue;
		}
		if (SQK_ARRAY_GROW(l->path, l->cap, (size_t)r.len + 1))
			return SQK_ERR_NOMEM;
		err = sqk_store_read(l->recs, at - 1 + sizeof(r), l->path, r.len);
		if (err)
			return err;
		l->path[r.len] = '\0';
		*path = l->path;
		return 1;
	}
	return err < 0 ? err : 0;
}

static int link_add(struct diff_links *l, struct sqk_spill *b, const struct sqk_dnode *n,
		    const char *path)
{
	uint64_t key = link_key(n->dev, n->ino), first = 0;
	struct link_rec r = {n->dev, n->ino, 0, (uint32_t)strlen(path), 0};
	int err = l->recs ? 0 : sqk_store_create(b, 0, 0, &l->recs);

	if (!err)
		err = sqk_store_hash_get(&l->by_id, key, &first);
	if (err > 0)
		r.next = first;
	if (err >= 0)
		err = sqk_store_write(l->recs, l->end, &r, sizeof(r));
	if (!err)
		err = sqk_store_write(l->recs, l->end + sizeof(r), path, r.len);
	if (!err)
		err = sqk_store_hash_set(&l->by_id, key, l->end + 1);
	if (!err)
		l->end += sizeof(r) + r.len;
	return err;
}

void sqk_diff_links_release(struct diff_links *l)
{
	sqk_store_hash_release(&l->by_id);
	sqk_store_destroy(l->recs);
	free(l->path);
	memset(l, 0, sizeof(*l));
}

static int links(struct diff *d, const struct sqk_dnode *a, const struct sqk_dnode *b)
{
	const struct sqk_dnode *n[2] = {a, b};
	const char *with[2] = {NULL, NULL};
	struct sqk_diff_change c;
	int s;

	/* Only an inode with more links can be met again. */
	for (s = 0; s < 2; s++) {
		int r;

		if (n[s]->nlink < 2)
			continue;
		r = link_find(&d->links[s], n[s], &with[s]);
		if (!r)
			r = link_add(&d->links[s], &d->budget, n[s], diff_path(d));
		if (r < 0)
			return sqk_diff_store_fail(d, r);
	}
	if (!with[0] && !with[1])
		return 0;
	if (with[0] && with[1] && strcmp(with[0], with[1]) == 0)
		return 0;
	memset(&c, 0, sizeof(c));
	c.what = SQK_DIFF_LINK;
	c.path = diff_path(d);
	c.type = a->type;
	c.sa = with[0];
	c.la = with[0] ? strlen(with[0]) : 0;
	c.sb = with[1];
	c.lb = with[1] ? strlen(with[1]) : 0;
	return sqk_diff_emit(d, &c);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct sqk_xattr *)x)->name, ((const struct sqk_xattr *)y)->name);
}

static int xattrs(struct diff *d, const struct sqk_dnode *a, const struct sqk_dnode *b)
{
	struct sqk_xattr *v[2] = {NULL, NULL};
	uint32_t n[2] = {0, 0}, i = 0, k = 0;
	int err = 0, s;

	for (s = 0; s < 2 && !err; s++) {
		err = d->t[s]->ops->xattrs(d->t[s], s ? b : a, &v[s], &n[s]);
		if (err)
			err = sqk_diff_fail(d, s, err);
		else if (n[s] > 1)
			qsort(v[s], n[s], sizeof(*v[s]), by_name);
	}
	while (!err && (i < n[0] || k < n[1])) {
		int cmp = i == n[0] ? 1 : k == n[1] ? -1 : strcmp(v[0][i].name, v[1][k].name);
		const struct sqk_xattr *xa = cmp <= 0 ? &v[0][i] : NULL,
				       *xb = cmp >= 0 ? &v[1][k] : NULL;

		i += cmp <= 0;
		k += cmp >= 0;
		if (xa && xb && xa->value_len == xb->value_len &&
		    memcmp(xa->value, xb->value, xa->value_len) == 0)
			continue;
		{
			struct sqk_diff_change c;

			memset(&c, 0, sizeof(c));
			c.what = SQK_DIFF_XATTR;
			c.path = diff_path(d);
			c.type = a->type;
			c.name = xa ? xa->name : xb->name;
			if (xa) {
				c.sa = (const char *)xa->value;
				c.la = xa->value_len;
			}
			if (xb) {
				c.sb = (const char *)xb->value;
				c.lb = xb->value_len;
			}
			err = sqk_diff_emit(d, &c);
		}
	}
	sqk_xattr_free(v[0], n[0]);
	sqk_xattr_free(v[1], n[1]);
	return err;
}

/* A change of two numbers (and two more: gids, minors). */
static int numbers(struct diff *d, enum sqk_diff_what what, unsigned type, uint64_t a, uint64_t b,
		   uint64_t a2, uint64_t b2)
{
	struct sqk_diff_change c;

	if (a == b && a2 == b2)
		return 0;
	memset(&c, 0, sizeof(c));
	c.what = what;
	c.path = diff_path(d);
	c.type = type;
	c.a = a;
	c.b = b;
	c.a2 = a2;
	c.b2 = b2;
	return sqk_diff_emit(d, &c);
}

int sqk_diff_nodes(struct diff *d, struct sqk_dnode *a, struct sqk_dnode *b)
{
	const struct sqk_diff_conf *o = d->o;
	unsigned t = a->type;
	int err;

	if (a->type != b->type)
		return numbers(d, SQK_DIFF_TYPE, t, a->type, b->type, 0, 0);
	err = o->no_perms ? 0 : numbers(d, SQK_DIFF_MODE, t, a->perm, b->perm, 0, 0);
	if (!err && !o->no_owner)
		err = numbers(d, SQK_DIFF_OWNER, t, a->uid, b->uid, a->gid, b->gid);
	if (!err && o->times)
		err = numbers(d, SQK_DIFF_MTIME, t, (uint64_t)a->mtime, (uint64_t)b->mtime, 0, 0);
	if (!err && t == SQK_FILE) {
		if (a->size != b->size)
			err = numbers(d, SQK_DIFF_SIZE, t, a->size, b->size, 0, 0);
		else if (!o->no_contents && a->size)
			err = sqk_diff_contents(d, a, b);
	}
	if (!err && t == SQK_SYMLINK &&
	    (a->target_len != b->target_len || memcmp(a->target, b->target, a->target_len))) {
		struct sqk_diff_change c;

		memset(&c, 0, sizeof(c));
		c.what = SQK_DIFF_TARGET;
		c.path = diff_path(d);
		c.type = t;
		c.sa = a->target;
		c.la = a->target_len;
		c.sb = b->target;
		c.lb = b->target_len;
		err = sqk_diff_emit(d, &c);
	}
	if (!err && (t == SQK_BLKDEV || t == SQK_CHRDEV))
		err = numbers(d, SQK_DIFF_DEVICE, t, a->major, b->major, a->minor, b->minor);
	if (!err && !o->no_xattrs)
		err = xattrs(d, a, b);
	if (!err && t != SQK_DIR)
		err = links(d, a, b);
	return err;
}
