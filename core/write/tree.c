// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "format/fmt_name.h"
#include "format/format.h"
#include "tree.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hash.h"

#define ARENA_CHUNK (256u * 1024u)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
};

/*
 * Every (directory, name) pair, found by one hash of both: lookups for
 * archives and listings, and the duplicate check of every add. The pairs
 * live in the arena; entry arrays move as they grow, the pairs do not.
 */
struct name_ref {
	struct sqk_node *dir;
	struct sqk_node *node;
	const char *name;
	uint32_t len;
};

struct sqk_tree {
	struct chunk *chunks;
	struct sqk_node *root;
	struct sqk_hash names; /* name_hash -> struct name_ref * */
};

static uint64_t name_hash(const struct sqk_node *dir, const char *name, size_t len)
{
	uint64_t h = (uint64_t)(uintptr_t)dir * 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
	return h;
}

void *sqk_tree_alloc(struct sqk_tree *t, size_t len)
{
	struct chunk *c = t->chunks;
	void *p;

	len = (len + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < len) {
		size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = t->chunks;
		t->chunks = c;
	}
	p = c->data + c->used;
	c->used += len;
	return p;
}

const char *sqk_tree_strdup(struct sqk_tree *t, const char *s, size_t len)
{
	char *p = sqk_tree_alloc(t, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

struct sqk_node *sqk_tree_node(struct sqk_tree *t, unsigned type)
{
	struct sqk_node *n = sqk_tree_alloc(t, sizeof(*n));

	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->type = (uint8_t)type;
	n->mode = type == SQK_DIR ? 0755 : 0644;
	return n;
}

struct sqk_tree *sqk_tree_create(void)
{
	struct sqk_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	sqk_hash_init(&t->names);
	t->root = sqk_tree_node(t, SQK_DIR);
	if (!t->root) {
		sqk_tree_destroy(t);
		return NULL;
	}
	t->root->flags |= SQK_NODE_IMPLICIT;
	t->root->dir.name = "";
	return t;
}

void sqk_tree_destroy(struct sqk_tree *t)
{
	struct chunk *c, *next;

	if (!t)
		return;
	for (c = t->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	sqk_hash_release(&t->names);
	free(t);
}

struct sqk_node *sqk_tree_root(struct sqk_tree *t)
{
	return t->root;
}

static struct name_ref *find_name(struct sqk_tree *t, struct sqk_node *dir, const char *name,
				  size_t len, uint64_t h)
{
	struct sqk_hash_iter it;
	uint64_t v;

	for (v = sqk_hash_first(&t->names, h, &it); v; v = sqk_hash_next(&it)) {
		struct name_ref *r = (struct name_ref *)(uintptr_t)v;

		if (r->dir == dir && r->len == len && memcmp(r->name, name, len) == 0)
			return r;
	}
	return NULL;
}

struct sqk_node *sqk_tree_lookup(struct sqk_tree *t, struct sqk_node *dir, const char *name,
				 size_t len)
{
	struct name_ref *r = find_name(t, dir, name, len, name_hash(dir, name, len));

	return r ? r->node : NULL;
}

int sqk_tree_add(struct sqk_tree *t, struct sqk_node *dir, const char *name, size_t len,
		 struct sqk_node *node)
{
	uint64_t h;
	struct name_ref *r;
	struct sqk_tree_entry *e;

	if (sqk_name_check(name, len, NULL))
		return SQK_ERR_BADNAME;
	h = name_hash(dir, name, len);
	if (find_name(t, dir, name, len, h))
		return SQK_ERR_EXIST;
	r = sqk_tree_alloc(t, sizeof(*r));
	if (!r)
		return SQK_ERR_NOMEM;
	if (dir->dir.n == dir->dir.cap) {
		uint32_t cap = dir->dir.cap ? dir->dir.cap * 2 : 8;
		struct sqk_tree_entry *ents = sqk_tree_alloc(t, cap * sizeof(*ents));

		/* The old array stays in the arena: doubling wastes at most half. */
		if (!ents)
			return SQK_ERR_NOMEM;
		if (dir->dir.n)
			memcpy(ents, dir->dir.ents, dir->dir.n * sizeof(*ents));
		dir->dir.ents = ents;
		dir->dir.cap = cap;
	}
	e = &dir->dir.ents[dir->dir.n++];
	e->name = sqk_tree_strdup(t, name, len);
	if (!e->name) {
		dir->dir.n--;
		return SQK_ERR_NOMEM;
	}
	e->len = (uint32_t)len;
	e->node = node;
	*r = (struct name_ref){dir, node, e->name, (uint32_t)len};
	if (sqk_hash_add(&t->names, h, (uintptr_t)r)) {
		dir->dir.n--;
		return SQK_ERR_NOMEM;
	}
	if (node->type == SQK_DIR) {
		node->dir.parent = dir;
		node->dir.name = e->name;
		node->dir.namelen = e->len;
	}
	node->nlink++;
	return 0;
}

const char *sqk_tree_entry_name(struct sqk_tree *t, struct sqk_node *dir, const char *name,
				size_t len)
{
	struct name_ref *r = find_name(t, dir, name, len, name_hash(dir, name, len));

	return r ? r->name : NULL;
}

int sqk_tree_remove(struct sqk_tree *t, struct sqk_node *dir, const char *name, size_t len)
{
	uint64_t h = name_hash(dir, name, len);
	struct name_ref *r = find_name(t, dir, name, len, h);
	uint32_t i;

	if (!r)
		return SQK_ERR_NOENT;
	/* From the end: a caller emptying a directory takes its entries last first. */
	for (i = dir->dir.n; i-- > 0;)
		if (dir->dir.ents[i].name == r->name)
			break;
	/* The order is settled by sqk_tree_sort: the last entry takes the freed place. */
	if (i < dir->dir.n)
		dir->dir.ents[i] = dir->dir.ents[--dir->dir.n];
	if (r->node->nlink)
		r->node->nlink--;
	sqk_hash_remove(&t->names, h, (uintptr_t)r);
	return 0;
}

int sqk_tree_walk_parent(struct sqk_tree *t, const char *path, struct sqk_node **parent,
			 const char **name, size_t *len)
{
	struct sqk_node *dir = t->root;
	const char *p = path;

	*name = "";
	*len = 0;
	for (;;) {
		const char *start, *end;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		start = p;
		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		n = (size_t)(end - start);
		p = end;
		if (n == 1 && start[0] == '.')
			continue;
		if (n == 2 && start[0] == '.' && start[1] == '.')
			return SQK_ERR_BADNAME;
		if (*len) {
			/* The previous component is a directory on the way down. */
			struct sqk_node *next = sqk_tree_lookup(t, dir, *name, *len);
			int err;

			if (!next) {
				next = sqk_tree_node(t, SQK_DIR);
				if (!next)
					return SQK_ERR_NOMEM;
				next->flags |= SQK_NODE_IMPLICIT;
				next->mtime = dir->mtime;
				err = sqk_tree_add(t, dir, *name, *len, next);
				if (err)
					return err;
			} else if (next->type != SQK_DIR) {
				return SQK_ERR_NOTDIR;
			}
			dir = next;
		}
		*name = start;
		*len = n;
	}
	*parent = dir;
	return 0;
}

static size_t dir_path_rec(const struct sqk_node *dir, char *buf, size_t cap)
{
	size_t n;

	if (!dir->dir.parent)
		return 0;
	n = dir_path_rec(dir->dir.parent, buf, cap);
	if (n && n < cap)
		buf[n++] = '/';
	if (n < cap) {
		size_t k = dir->dir.namelen < cap - n ? dir->dir.namelen : cap - n;

		memcpy(buf + n, dir->dir.name, k);
		n += k;
	}
	return n;
}

void sqk_tree_dir_path(const struct sqk_node *dir, char *buf, size_t cap)
{
	size_t n;

	if (!cap)
		return;
	n = dir_path_rec(dir, buf, cap - 1);
	buf[n] = '\0';
}

static int dirent_cmp(const void *x, const void *y)
{
	const struct sqk_tree_entry *a = x, *b = y;

	return sqk_name_cmp(a->name, a->len, b->name, b->len);
}

static void sort_rec(struct sqk_node *dir)
{
	uint32_t i;

	if (dir->dir.n > 1)
		qsort(dir->dir.ents, dir->dir.n, sizeof(*dir->dir.ents), dirent_cmp);
	for (i = 0; i < dir->dir.n; i++)
		if (dir->dir.ents[i].node->type == SQK_DIR)
			sort_rec(dir->dir.ents[i].node);
}

void sqk_tree_sort(struct sqk_tree *t)
{
	sort_rec(t->root);
}

/* An explicit stack: trees can be deeper than a comfortable recursion. */
struct frame {
	struct sqk_node *dir;
	uint32_t next;
};

int sqk_tree_number(struct sqk_tree *t, struct sqk_node ***order_out, uint32_t *count_out)
{
	struct frame *stack = NULL;
	size_t depth = 0, cap = 0;
	struct sqk_node **order = NULL;
	size_t n = 0, ocap = 0;

	if (SQK_ARRAY_GROW(stack, cap, 64))
		return SQK_ERR_NOMEM;
	stack[depth++] = (struct frame){t->root, 0};
	t->root->dir.nsubdirs = 0;
	while (depth) {
		struct frame *f = &stack[depth - 1];
		struct sqk_node *node;

		if (f->next == f->dir->dir.n) {
			node = f->dir;
			node->nlink = 2 + node->dir.nsubdirs;
			depth--;
		} else {
			node = f->dir->dir.ents[f->next++].node;
			if (node->type == SQK_DIR) {
				f->dir->dir.nsubdirs++;
				node->dir.nsubdirs = 0;
				if (SQK_ARRAY_GROW(stack, cap, depth + 1))
					goto nomem;
				stack[depth++] = (struct frame){node, 0};
				continue;
			}
			if (node->flags & SQK_NODE_NUMBERED)
				continue;
		}
		if (SQK_ARRAY_GROW(order, ocap, n + 1))
			goto nomem;
		if (n >= UINT32_MAX - 2)
			goto overflow;
		order[n++] = node;
		node->number = (uint32_t)n;
		node->flags |= SQK_NODE_NUMBERED;
	}
	free(stack);
	*order_out = order;
	*count_out = (uint32_t)n;
	return 0;
overflow:
	free(stack);
	free(order);
	return SQK_ERR_OVERFLOW;
nomem:
	free(stack);
	free(order);
	return SQK_ERR_NOMEM;
}
