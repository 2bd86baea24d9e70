// SPDX-License-Identifier: BSD-2-Clause
/* The tree's nodes, strings and paths; entries through tree_index.c (tree.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_name.h"
#include "format/format.h"
#include "reuse.h"
#include "tree_int.h"
#include "util/array.h"
#include "util/error.h"
#include "util/spill.h"

/* Shares of the budget: nodes, their strings, and entries waiting in memory. */
#define NODES_SHARE   20
#define HEAP_SHARE    8
#define ENTRIES_SHARE 25

uint64_t sqk_tree_name_hash(sqk_nid dir, const char *name, size_t len)
{
	uint64_t h = dir * 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
	return h ^ (h >> 32);
}

int sqk_tree_fail(struct sqk_tree *t, int err)
{
	if (!t->err)
		t->err = err;
	return t->err;
}

int sqk_tree_err(const struct sqk_tree *t)
{
	return t->err;
}

int sqk_tree_get(struct sqk_tree *t, sqk_nid id, struct sqk_node *n)
{
	int err = sqk_store_get(t->nodes, id - 1, n, sizeof(*n));

	return err ? sqk_tree_fail(t, err) : 0;
}

int sqk_tree_put(struct sqk_tree *t, sqk_nid id, const struct sqk_node *n)
{
	int err = t->err ? t->err : sqk_store_put(t->nodes, id - 1, n, sizeof(*n));

	return err ? sqk_tree_fail(t, err) : 0;
}

int sqk_tree_new(struct sqk_tree *t, unsigned type, sqk_nid *id, struct sqk_node *n)
{
	memset(n, 0, sizeof(*n));
	n->type = (uint8_t)type;
	n->mode = type == SQK_DIR ? 0755 : 0644;
	n->prio = SQK_PRIO_NONE;
	*id = t->nnodes + 1;
	if (sqk_tree_put(t, *id, n))
		return t->err;
	t->nnodes++;
	return 0;
}

int sqk_tree_clone(struct sqk_tree *t, sqk_nid id, sqk_nid *copy)
{
	struct sqk_node n, c;
	int err = sqk_tree_get(t, id, &n);

	if (!err)
		err = sqk_tree_new(t, n.type, copy, &c);
	if (err)
		return err;
	n.nlink = 0;
	return sqk_tree_put(t, *copy, &n);
}

int sqk_tree_str(struct sqk_tree *t, const char *s, size_t len, uint64_t *ref)
{
	int err = t->err ? t->err : sqk_store_append(t->heap, s, len, ref);

	return err ? sqk_tree_fail(t, err) : 0;
}

int sqk_tree_str_get(struct sqk_tree *t, uint64_t ref, size_t len, char *buf)
{
	int err = len ? sqk_store_read(t->heap, ref, buf, len) : 0;

	buf[err ? 0 : len] = '\0';
	return err ? sqk_tree_fail(t, err) : 0;
}

struct sqk_tree *sqk_tree_create(struct sqk_spill *sp)
{
	struct sqk_tree *t = calloc(1, sizeof(*t));
	struct sqk_node root;
	sqk_nid id;

	if (!t)
		return NULL;
	t->sp = sp;
	sqk_hash_init(&t->by_name);
	sqk_hash_init(&t->by_dir);
	/* In pages a few nodes and bytes long under a tiny budget: every path taken. */
	if (sqk_store_create(
		    sp, sp->tiny ? 4 * sizeof(root) : 98304,
		    sqk_spill_share(sp, NODES_SHARE, sp->tiny ? 8 * sizeof(root) : 1 << 20),
		    &t->nodes) ||
	    sqk_store_create(sp, sp->tiny ? 256 : 65536,
			     sqk_spill_share(sp, HEAP_SHARE, sp->tiny ? 512 : 1 << 20), &t->heap)) {
		sqk_tree_destroy(t);
		return NULL;
	}
	t->mem_limit = sqk_spill_share(sp, ENTRIES_SHARE, sp->tiny ? 2048 : 1 << 20);
	if (sqk_tree_new(t, SQK_DIR, &id, &root)) {
		sqk_tree_destroy(t);
		return NULL;
	}
	root.flags |= SQK_NODE_IMPLICIT;
	root.dir.key = SQK_REUSE_ROOT_KEY;
	if (sqk_tree_put(t, id, &root)) {
		sqk_tree_destroy(t);
		return NULL;
	}
	return t;
}

void sqk_tree_destroy(struct sqk_tree *t)
{
	if (!t)
		return;
	sqk_tree_index_release(t);
	sqk_store_destroy(t->nodes);
	sqk_store_destroy(t->heap);
	free(t->last);
	free(t->last_dir);
	free(t->last_end);
	free(t);
}

uint64_t sqk_tree_nodes(const struct sqk_tree *t)
{
	return t->nnodes;
}

uint64_t sqk_tree_memory(const struct sqk_tree *t)
{
	return sqk_store_memory(t->nodes) + sqk_store_memory(t->heap) +
	       t->ments_cap * sizeof(*t->ments) + t->names_cap +
	       (t->by_name.mask + t->by_dir.mask) * 16;
}

int sqk_tree_lookup(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, sqk_nid *out)
{
	struct sqk_node d;
	int err;

	*out = 0;
	err = sqk_tree_get(t, dir, &d);
	if (err)
		return err;
	return sqk_tree_index_find(t, dir, d.dir.epoch, name, len, out, NULL);
}

int sqk_tree_add(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, sqk_nid node)
{
	struct sqk_node d, n;
	sqk_nid old;
	int err;

	if (sqk_name_check(name, len, NULL))
		return SQK_ERR_BADNAME;
	err = sqk_tree_get(t, dir, &d);
	if (!err)
		err = sqk_tree_index_find(t, dir, d.dir.epoch, name, len, &old, NULL);
	if (err)
		return err;
	if (old)
		return SQK_ERR_EXIST;
	err = sqk_tree_get(t, node, &n);
	if (err)
		return err;
	if (n.type == SQK_DIR) {
		/* Its path: the parent's, a NUL, its name; the root's is empty. */
		size_t plen = d.dir.pathlen + (d.dir.pathlen ? 1 : 0) + len;
		char *p = malloc(plen + 1);

		if (!p)
			return SQK_ERR_NOMEM;
		err = sqk_tree_str_get(t, d.dir.path, d.dir.pathlen, p);
		if (!err) {
			if (d.dir.pathlen)
				p[d.dir.pathlen] = '\0';
			memcpy(p + plen - len, name, len);
			err = sqk_tree_str(t, p, plen, &n.dir.path);
		}
		free(p);
		if (err)
			return err;
		if (plen > UINT32_MAX)
			return SQK_ERR_OVERFLOW;
		n.dir.pathlen = (uint32_t)plen;
		n.dir.parent = dir;
		n.dir.key = sqk_reuse_key(d.dir.key, name, len);
		n.dir.epoch = t->runs_made;
	}
	n.nlink++;
	err = sqk_tree_put(t, node, &n);
	if (!err)
		err = sqk_tree_index_add(t, dir, name, len, node, 0);
	return err;
}

/* Does s hold a name after its slashes, not only "." ones? */
static int has_name(const char *s)
{
	while (*s) {
		const char *e = strchrnul(s, '/');

		if (e > s && !(e - s == 1 && s[0] == '.'))
			return 1;
		s = *e ? e + 1 : e;
	}
	return 0;
}

/* The directory component ending at end resolved to dir: kept for the next walk. */
static int remember(struct sqk_tree *t, size_t end, sqk_nid dir)
{
	if (SQK_ARRAY_GROW(t->last_dir, t->last_dir_cap, t->nlast + 1) ||
	    SQK_ARRAY_GROW(t->last_end, t->last_end_cap, t->nlast + 1))
		return SQK_ERR_NOMEM;
	t->last_dir[t->nlast] = dir;
	t->last_end[t->nlast] = end;
	t->nlast++;
	return 0;
}

int sqk_tree_walk_parent(struct sqk_tree *t, const char *path, sqk_nid *parent, const char **name,
			 size_t *len)
{
	sqk_nid dir = SQK_NID_ROOT;
	const char *p = path;
	size_t k;
	int err = 0;

	*name = "";
	*len = 0;
	/*
	 * Archives come a directory at a time: the directories the last walk
	 * went through, as far as this path shares their bytes, are not looked
	 * up again (the same bytes always lead to the same directory).
	 */
	for (k = t->nlast; k > 0; k--) {
		size_t e = t->last_end[k - 1];

		if (e <= t->last_len && !strncmp(path, t->last, e) && path[e] == '/' &&
		    has_name(path + e + 1)) {
			dir = t->last_dir[k - 1];
			p = path + e;
			break;
		}
	}
	t->nlast = k;
	for (;;) {
		const char *start, *end;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		start = p;
		end = strchrnul(p, '/');
		n = (size_t)(end - start);
		p = end;
		if (n == 1 && start[0] == '.')
			continue;
		if (n == 2 && start[0] == '.' && start[1] == '.') {
			err = SQK_ERR_BADNAME;
			break;
		}
		if (*len) {
			/* The previous component is a directory on the way down. */
			struct sqk_node nd, dn;
			sqk_nid next;

			err = sqk_tree_lookup(t, dir, *name, *len, &next);
			if (!err && !next) {
				err = sqk_tree_get(t, dir, &dn);
				if (!err)
					err = sqk_tree_new(t, SQK_DIR, &next, &nd);
				if (!err) {
					nd.flags |= SQK_NODE_IMPLICIT;
					nd.mtime = dn.mtime;
					err = sqk_tree_put(t, next, &nd);
				}
				if (!err)
					err = sqk_tree_add(t, dir, *name, *len, next);
			} else if (!err) {
				err = sqk_tree_get(t, next, &nd);
				if (!err && nd.type != SQK_DIR)
					err = SQK_ERR_NOTDIR;
			}
			if (!err)
				err = remember(t, (size_t)(*name + *len - path), next);
			if (err)
				break;
			dir = next;
		}
		*name = start;
		*len = n;
	}
	if (!err && t->nlast && SQK_ARRAY_GROW(t->last, t->last_cap, t->last_end[t->nlast - 1]))
		err = SQK_ERR_NOMEM;
	if (err) {
		t->nlast = 0;
		return err;
	}
	if (t->nlast) {
		t->last_len = t->last_end[t->nlast - 1];
		memcpy(t->last, path, t->last_len);
	}
	*parent = dir;
	return 0;
}

void sqk_tree_dir_path(struct sqk_tree *t, sqk_nid dir, char *buf, size_t cap)
{
	struct sqk_node d;
	char *p;
	size_t i;

	if (!cap)
		return;
	buf[0] = '\0';
	if (sqk_store_get(t->nodes, dir - 1, &d, sizeof(d)) || d.type != SQK_DIR || !d.dir.pathlen)
		return;
	p = malloc((size_t)d.dir.pathlen + 1);
	if (!p || sqk_store_read(t->heap, d.dir.path, p, d.dir.pathlen)) {
		free(p);
		return;
	}
	for (i = 0; i < d.dir.pathlen && i + 1 < cap; i++)
		buf[i] = p[i] ? p[i] : '/';
	buf[i] = '\0';
	free(p);
}

void sqk_tree_entry_path(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, char *buf,
			 size_t cap)
{
	size_t n;

	sqk_tree_dir_path(t, dir, buf, cap);
	n = strlen(buf);
	if (n + 1 < cap)
		snprintf(buf + n, cap - n, "%s%.*s", n ? "/" : "", (int)len, name);
}
