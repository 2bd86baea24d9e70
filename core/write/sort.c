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

/* The node at an image path into *out, or 0 there. */
static int image_lookup(struct sqk_tree *t, const char *path, sqk_nid *out)
{
	sqk_nid n = SQK_NID_ROOT;
	int err = 0;

	*out = 0;
	while (*path) {
		const char *end = strchrnul(path, '/');
		size_t len = (size_t)(end - path);

		if (len && !(len == 1 && path[0] == '.')) {
			struct sqk_node node;

			err = sqk_tree_get(t, n, &node);
			if (err)
				return err;
			if (node.type != SQK_DIR || (len == 2 && path[0] == '.' && path[1] == '.'))
				return 0;
			err = sqk_tree_lookup(t, n, path, len, &n);
			if (err || !n)
				return err;
		}
		path = *end ? end + 1 : end;
	}
	*out = n;
	return 0;
}

/* How many distinct nodes a host path names, below the sources; *node is one of them. */
static int host_lookup(struct sqk_tree *t, const char *path, const char *const *dirs, size_t ndirs,
		       sqk_nid *node, unsigned *found)
{
	char *canon = sqk_path_abs_nofollow(path);
	size_t i;
	int err = 0;

	*node = 0;
	*found = 0;
	for (i = 0; !err && canon && i < ndirs; i++) {
		size_t len = strlen(dirs[i]);
		const char *rest;
		sqk_nid n;

		if (!strcmp(dirs[i], "/"))
			rest = canon + 1;
		else if (!strncmp(canon, dirs[i], len) && (canon[len] == '/' || !canon[len]))
			rest = canon + len;
		else
			continue;
		err = image_lookup(t, rest, &n);
		if (!err && n && n != *node) {
			(*found)++;
			*node = n;
		}
	}
	free(canon);
	return err;
}

int sqk_sort_mark(const struct sqk_sort *s, struct sqk_tree *t, const char *const *dirs,
		  size_t ndirs, sqk_sort_warn_fn warn, void *warn_ctx, char *where,
		  size_t where_len, char *why, size_t why_len)
{
	size_t i;
	int err;

	/* Later lines win over earlier ones for the same entry, as in mksquashfs. */
	for (i = 0; i < s->n; i++) {
		const struct sqk_sort_entry *e = &s->ents[i];
		const char *p = e->path;
		struct sqk_node n;
		sqk_nid node = 0;
		int host = p[0] == '/' || !strncmp(p, "./", 2) || !strncmp(p, "../", 3) ||
			   !strcmp(p, ".") || !strcmp(p, "..");
		unsigned found = 0;

		err = host ? 0 : image_lookup(t, p, &node);
		if (!err && !node)
			err = host_lookup(t, p, dirs, ndirs, &node, &found);
		if (err)
			return err;
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
		err = sqk_tree_get(t, node, &n);
		if (err)
			return err;
		n.prio = e->prio;
		err = sqk_tree_put(t, node, &n);
		if (err)
			return err;
	}
	return 0;
}

void sqk_sort_key(int32_t prio, uint32_t number, uint8_t key[8])
{
	/* Highest priority first, then inode order: both as big-endian bytes rising. */
	uint32_t p = (uint32_t)(PRIO_MAX - prio);
	int i;

	for (i = 0; i < 4; i++) {
		key[i] = (uint8_t)(p >> (24 - 8 * i));
		key[4 + i] = (uint8_t)(number >> (24 - 8 * i));
	}
}
