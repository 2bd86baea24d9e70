// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sink that asks of each entry before it goes on to the extract sink
 * (entry_sink.h): the caller's choice, what is below a directory left out,
 * the hard links whose first name went, and the entries that could not be
 * made and are passed over.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "entry_sink.h"
#include "extract.h"

/* The name made in place of a hard link's first, left out. */
struct sqk_stand_in {
	uint32_t ino;
	char *path;
};

static struct sqk_entry_sink *of(struct sqk_sink *s)
{
	return (struct sqk_entry_sink *)((char *)s - offsetof(struct sqk_entry_sink, sink));
}

/* path is e->skip or below it. */
static int below_skip(const struct sqk_entry_sink *e, const char *path)
{
	size_t n;

	if (!e->skip)
		return 0;
	n = strlen(e->skip);
	return strncmp(path, e->skip, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int is_gone(const struct sqk_entry_sink *e, uint32_t ino)
{
	return ino / 8 < e->ngone && (e->gone[ino / 8] & (1u << (ino % 8)));
}

/* A name of a hard-linked inode left out: later names stand in for it. */
static int mark_gone(struct sqk_entry_sink *e, const struct sqk_inode *ino)
{
	uint32_t n = ino->number;

	if (S_ISDIR(ino->mode) || ino->nlink < 2)
		return 0;
	if (n / 8 >= e->ngone) {
		size_t size = n / 8 + 1 > 2 * e->ngone ? n / 8 + 1 : 2 * e->ngone;
		uint8_t *g = realloc(e->gone, size);

		if (!g)
			return SQK_ERR_NOMEM;
		memset(g + e->ngone, 0, size - e->ngone);
		e->gone = g;
		e->ngone = size;
	}
	e->gone[n / 8] |= 1u << (n % 8);
	return 0;
}

static struct sqk_stand_in *stand_in(struct sqk_entry_sink *e, uint32_t ino)
{
	size_t i;

	for (i = 0; i < e->nsubst; i++)
		if (e->subst[i].ino == ino)
			return &e->subst[i];
	return NULL;
}

static int add_stand_in(struct sqk_entry_sink *e, uint32_t ino, const char *path)
{
	struct sqk_stand_in *s = realloc(e->subst, (e->nsubst + 1) * sizeof(*s));

	if (!s)
		return SQK_ERR_NOMEM;
	e->subst = s;
	s[e->nsubst].ino = ino;
	if (!(s[e->nsubst].path = strdup(path)))
		return SQK_ERR_NOMEM;
	e->nsubst++;
	return 0;
}

/*
 * What the inner sink could not make: passed over (told, and a directory
 * left out whole) when that is allowed and it can be, else the end.
 */
static int not_made(struct sqk_entry_sink *e, const char *path, const struct sqk_inode *ino,
		    int err)
{
	struct sqk_fault f;

	if (!e->x || (err != SQK_ERR_EXIST && err != SQK_ERR_IO && err != SQK_ERR_NOSPACE) ||
	    sqk_extract_pass_over(e->x, &f) != 0) {
		e->sink.fault = e->inner->fault;
		return err;
	}
	e->fn(e->ctx, SQK_ES_PASSED, path, ino, NULL, &f);
	if (S_ISDIR(ino->mode)) {
		e->chosen = 0;
		if (!(e->skip = strdup(path)))
			return SQK_ERR_NOMEM;
	}
	return 0;
}

static int dir_begin(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct sqk_entry_sink *e = of(s);
	int err;

	if (below_skip(e, path))
		return 0;
	err = e->fn(e->ctx, SQK_ES_BEGIN, path, ino, NULL, NULL);
	if (err > 0) {
		e->chosen = 1;
		return (e->skip = strdup(path)) ? 0 : SQK_ERR_NOMEM;
	}
	if (err)
		return err;
	err = e->inner ? e->inner->dir_begin(e->inner, path, ino) : 0;
	if (err)
		return not_made(e, path, ino, err);
	return e->fn(e->ctx, SQK_ES_MADE, path, ino, NULL, NULL);
}

static int dir_end(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct sqk_entry_sink *e = of(s);

	if (below_skip(e, path)) {
		if (strcmp(path, e->skip) == 0) {
			free(e->skip);
			e->skip = NULL;
		}
		return 0;
	}
	if (e->inner && e->inner->dir_end(e->inner, path, ino) != 0) {
		e->sink.fault = e->inner->fault;
		return e->sink.fault.err;
	}
	return e->fn(e->ctx, SQK_ES_END, path, ino, NULL, NULL);
}

static int node(struct sqk_sink *s, const char *path, struct sqk_inode *ino, const char *link_to)
{
	struct sqk_entry_sink *e = of(s);
	struct sqk_stand_in *in = NULL;
	int err, first = 0;

	if (below_skip(e, path))
		return e->chosen ? mark_gone(e, ino) : 0;
	/* A hard link whose first name was left out: the first made stands in. */
	if (link_to && is_gone(e, ino->number)) {
		in = stand_in(e, ino->number);
		link_to = in ? in->path : NULL;
		first = !in;
	}
	err = e->fn(e->ctx, SQK_ES_BEGIN, path, ino, link_to, NULL);
	if (err > 0)
		return link_to ? 0 : mark_gone(e, ino);
	if (!err && first)
		err = add_stand_in(e, ino->number, path);
	if (err)
		return err;
	err = e->inner ? e->inner->node(e->inner, path, ino, link_to) : 0;
	if (err)
		return not_made(e, path, ino, err);
	return e->fn(e->ctx, SQK_ES_MADE, path, ino, link_to, NULL);
}

void sqk_entry_sink_init(struct sqk_entry_sink *e, struct sqk_sink *inner, struct sqk_extract *x,
			 sqk_entry_cb fn, void *ctx)
{
	memset(e, 0, sizeof(*e));
	e->sink.dir_begin = dir_begin;
	e->sink.dir_end = dir_end;
	e->sink.node = node;
	e->inner = inner;
	e->x = x;
	e->fn = fn;
	e->ctx = ctx;
}

void sqk_entry_sink_release(struct sqk_entry_sink *e)
{
	size_t i;

	for (i = 0; i < e->nsubst; i++)
		free(e->subst[i].path);
	free(e->subst);
	free(e->gone);
	free(e->skip);
	e->subst = NULL;
	e->gone = NULL;
	e->skip = NULL;
	e->nsubst = e->ngone = 0;
}
