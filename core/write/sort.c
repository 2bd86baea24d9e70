// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "sort.h"
#include "tree.h"
#include "util/array.h"
#include "util/error.h"
#include "util/path.h"

#define PRIO_MIN (-32768)
#define PRIO_MAX 32767
#define UNSET	 INT32_MIN

void sqk_sort_free(struct sqk_sort *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->ents[i].path);
	free(s->ents);
	free(s->file);
	free(s);
}

/* 1 with *path and *prio for an entry, 0 for a line without one, SQK_ERR_* for a bad line. */
static int parse_line(const char *s, char **path, int32_t *prio, char *why, size_t why_len)
{
	char *name, *q;
	const char *digits;
	long v = 0;
	int neg = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '#' || !*s)
		return 0;
	name = q = malloc(strlen(s) + 1);
	if (!name)
		return SQK_ERR_NOMEM;
	while (*s && !isspace((unsigned char)*s)) {
		if (*s == '\\' && !*++s)
			break;
		*q++ = *s++;
	}
	*q = '\0';
	if (!*name) {
		free(name);
		return 0;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (digits = s; *s >= '0' && *s <= '9'; s++)
		if (v <= PRIO_MAX + 1L)
			v = v * 10 + (*s - '0');
	if (s == digits) {
		if (!*s)
			snprintf(why, why_len, "no priority after '%s'", name);
		else
			snprintf(why, why_len, "the priority of '%s' is not a number", name);
		free(name);
		return SQK_ERR_ARG;
	}
	v = neg ? -v : v;
	if (v < PRIO_MIN || v > PRIO_MAX) {
		snprintf(why, why_len, "the priority of '%s' is out of range (-32768..32767)",
			 name);
		free(name);
		return SQK_ERR_ARG;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s) {
		size_t len = strlen(s);

		while (isspace((unsigned char)s[len - 1]))
			len--;
		snprintf(why, why_len, "unexpected '%.*s' after the priority", (int)len, s);
		free(name);
		return SQK_ERR_ARG;
	}
	/* A slash and a star at the end name the directory, as mksquashfs reads it. */
	if (q - name > 1 && q[-2] == '/' && q[-1] == '*')
		q[-2] = '\0';
	*path = name;
	*prio = (int32_t)v;
	return 1;
}

int sqk_sort_load(const char *file, struct sqk_sort **out, unsigned *line, char *why,
		  size_t why_len)
{
	struct sqk_sort *s = calloc(1, sizeof(*s));
	FILE *fp = NULL;
	char *buf = NULL;
	size_t cap = 0, ecap = 0;
	int err = 0;

	*line = 0;
	if (!s || !(s->file = strdup(file))) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	fp = fopen(file, "re");
	if (!fp) {
		err = SQK_ERR_IO;
		goto out;
	}
	while (getline(&buf, &cap, fp) >= 0) {
		struct sqk_sort_entry e = {.line = ++*line};
		int r = parse_line(buf, &e.path, &e.prio, why, why_len);

		if (r < 0) {
			err = r;
			goto out;
		}
		if (!r)
			continue;
		if (SQK_ARRAY_GROW(s->ents, ecap, s->n + 1)) {
			free(e.path);
			err = SQK_ERR_NOMEM;
			goto out;
		}
		s->ents[s->n++] = e;
	}
	if (ferror(fp)) {
		*line = 0;
		err = SQK_ERR_IO;
	}
out:
	free(buf);
	if (fp) {
		int saved = errno;

		fclose(fp);
		errno = saved;
	}
	if (err) {
		sqk_sort_free(s);
		s = NULL;
	}
	*out = s;
	return err;
}

/* The node at an image path, or NULL. */
static struct sqk_node *image_lookup(struct sqk_tree *t, const char *path)
{
	struct sqk_node *n = sqk_tree_root(t);

	while (*path) {
		const char *end = strchrnul(path, '/');
		size_t len = (size_t)(end - path);

		if (len && !(len == 1 && path[0] == '.')) {
			if (n->type != SQK_DIR || (len == 2 && path[0] == '.' && path[1] == '.'))
				return NULL;
			n = sqk_tree_lookup(t, n, path, len);
			if (!n)
				return NULL;
		}
		path = *end ? end + 1 : end;
	}
	return n;
}

/* How many distinct nodes a host path names, below the sources; *node is one of them. */
static unsigned host_lookup(struct sqk_tree *t, const char *path, const char *const *dirs,
			    size_t ndirs, struct sqk_node **node)
{
	char *canon = sqk_path_abs_nofollow(path);
	unsigned found = 0;
	size_t i;

	*node = NULL;
	for (i = 0; canon && i < ndirs; i++) {
		size_t len = strlen(dirs[i]);
		struct sqk_node *n;
		const char *rest;

		if (!strcmp(dirs[i], "/"))
			rest = canon + 1;
		else if (!strncmp(canon, dirs[i], len) && (canon[len] == '/' || !canon[len]))
			rest = canon + len;
		else
			continue;
		n = image_lookup(t, rest);
		if (n && n != *node) {
			found++;
			*node = n;
		}
	}
	free(canon);
	return found;
}

struct ranked {
	struct sqk_node *node;
	int32_t prio;
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return x->node->number < y->node->number ? -1 : x->node->number > y->node->number;
}

static int set_explicit(const struct sqk_sort *s, struct sqk_tree *t, const char *const *dirs,
			size_t ndirs, sqk_sort_warn_fn warn, void *warn_ctx, int32_t *expl,
			char *where, size_t where_len, char *why, size_t why_len)
{
	size_t i;

	/* Later lines win over earlier ones for the same entry, as in mksquashfs. */
	for (i = 0; i < s->n; i++) {
		const struct sqk_sort_entry *e = &s->ents[i];
		const char *p = e->path;
		struct sqk_node *node = NULL;
		int host = p[0] == '/' || !strncmp(p, "./", 2) || !strncmp(p, "../", 3) ||
			   !strcmp(p, ".") || !strcmp(p, "..");
		unsigned found = 0;

		if (!host)
			node = image_lookup(t, p);
		if (!node)
			found = host_lookup(t, p, dirs, ndirs, &node);
		if (found > 1) {
			snprintf(where, where_len, "%s:%u", s->file, e->line);
			snprintf(why, why_len, "'%s' is below more than one source directory", p);
			return SQK_ERR_ARG;
		}
		if (!node) {
			if (warn) {
				char at[4096 + 32], what[4096 + 64];

				snprintf(at, sizeof(at), "%s:%u", s->file, e->line);
				snprintf(what, sizeof(what),
					 "'%s' is not in the image; line ignored", p);
				warn(warn_ctx, at, what);
			}
			continue;
		}
		expl[node->number - 1] = e->prio;
	}
	return 0;
}

int sqk_sort_files(const struct sqk_sort *s, struct sqk_tree *t, struct sqk_node *const *order,
		   uint32_t count, const char *const *dirs, size_t ndirs, sqk_sort_warn_fn warn,
		   void *warn_ctx, struct sqk_node ***files, uint32_t *nfiles, char *where,
		   size_t where_len, char *why, size_t why_len)
{
	int32_t *expl = malloc((size_t)count * sizeof(*expl));
	int32_t *prio = malloc((size_t)count * sizeof(*prio));
	struct ranked *r = NULL;
	uint32_t i, k, n = 0;
	int err;

	*files = NULL;
	*nfiles = 0;
	if (!expl || !prio) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < count; i++)
		expl[i] = prio[i] = UNSET;
	err = set_explicit(s, t, dirs, ndirs, warn, warn_ctx, expl, where, where_len, why, why_len);
	if (err)
		goto out;
	/*
	 * A directory's inode number is above its children's, so going down
	 * from the root (the last) meets every directory after its parent. A
	 * file linked from several places takes its highest priority.
	 */
	for (i = count; i-- > 0;) {
		struct sqk_node *d = order[i];
		int32_t dp;

		if (d->type != SQK_DIR)
			continue;
		dp = expl[i] != UNSET ? expl[i]
		     : d->dir.parent  ? prio[d->dir.parent->number - 1]
				      : 0;
		prio[i] = dp;
		for (k = 0; k < d->dir.n; k++) {
			struct sqk_node *c = d->dir.ents[k].node;
			int32_t cp;

			if (c->type != SQK_FILE)
				continue;
			cp = expl[c->number - 1] != UNSET ? expl[c->number - 1] : dp;
			if (prio[c->number - 1] == UNSET || cp > prio[c->number - 1])
				prio[c->number - 1] = cp;
		}
	}
	r = malloc((size_t)count * sizeof(*r));
	if (!r) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < count; i++)
		if (order[i]->type == SQK_FILE && !(order[i]->flags & SQK_NODE_DATA_DONE))
			r[n++] = (struct ranked){order[i], prio[i] != UNSET ? prio[i] : 0};
	qsort(r, n, sizeof(*r), ranked_cmp);
	*files = malloc((n ? n : 1) * sizeof(**files));
	if (!*files) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		(*files)[i] = r[i].node;
	*nfiles = n;
out:
	free(r);
	free(expl);
	free(prio);
	return err;
}
