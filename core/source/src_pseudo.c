// SPDX-License-Identifier: BSD-2-Clause
/*
 * Pseudo definitions in mksquashfs's syntax (4.5), one a line:
 *   NAME d MODE UID GID                  NAME D TIME MODE UID GID
 *   NAME m MODE UID GID                  NAME M TIME MODE UID GID
 *   NAME b|c MODE UID GID MAJOR MINOR    NAME B|C TIME MODE UID GID MAJOR MINOR
 *   NAME f MODE UID GID COMMAND          NAME F TIME MODE UID GID COMMAND
 *   NAME s MODE UID GID TARGET           NAME S TIME MODE UID GID TARGET
 *   NAME i MODE UID GID s|f              NAME I TIME MODE UID GID s|f
 *   NAME l HOSTPATH                      NAME L PSEUDONAME
 *   NAME R TIME MODE UID GID LENGTH OFFSET   (in a file: data after the marker)
 * NAME, HOSTPATH, PSEUDONAME and TIME may hold spaces when quoted ("...")
 * or escaped with a backslash; COMMAND and TARGET are the rest of the line.
 * MODE is octal, UID and GID numbers or names, TIME seconds since 1970 or
 * a date string that date -d takes. In a file, a line ending in one
 * backslash goes on on the next line; blank lines and lines starting
 * with '#' are skipped. What mksquashfs rejects is an error here too, and
 * so is what it would skip with a warning (a path defined twice).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "pseudo_int.h"
#include "util/error.h"
#include "util/parse.h"

#define DATA_MARKER "# START OF DATA - DO NOT MODIFY"

int sqk_pseudo_fail(struct sqk_pseudo *p, const struct sqk_pseudo_src *src, unsigned line,
		    const char *fmt, ...)
{
	va_list ap;

	if (line)
		snprintf(p->err_where, sizeof(p->err_where), "%s:%u", src->name, line);
	else
		snprintf(p->err_where, sizeof(p->err_where), "%s", src->name);
	va_start(ap, fmt);
	vsnprintf(p->err_msg, sizeof(p->err_msg), fmt, ap);
	va_end(ap);
	return SQK_ERR_ARG;
}

void sqk_pseudo_where(const struct sqk_pseudo_def *d, char *buf, size_t len)
{
	if (d->line)
		snprintf(buf, len, "%s:%u", d->src->name, d->line);
	else
		snprintf(buf, len, "%s", d->src->name);
}

const char *sqk_pseudo_err_where(const struct sqk_pseudo *p)
{
	return p->err_where;
}

const char *sqk_pseudo_err_msg(const struct sqk_pseudo *p)
{
	return p->err_msg;
}

static uint32_t path_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

struct sqk_pseudo_def *sqk_pseudo_lookup(struct sqk_pseudo *p, const char *path)
{
	uint32_t h = path_hash(path);
	struct sqk_pseudo_def *d;

	for (d = p->tab[h & (p->tab_n - 1)]; d; d = d->hnext)
		if (d->hash == h && strcmp(d->path, path) == 0)
			return d;
	return NULL;
}

static int tab_insert(struct sqk_pseudo *p, struct sqk_pseudo_def *d)
{
	if ((p->tab_used + 1) * 2 > p->tab_n) {
		size_t n = p->tab_n * 2, i;
		struct sqk_pseudo_def **t = calloc(n, sizeof(*t));

		if (!t)
			return SQK_ERR_NOMEM;
		for (i = 0; i < p->tab_n; i++) {
			struct sqk_pseudo_def *e = p->tab[i], *next;

			for (; e; e = next) {
				next = e->hnext;
				e->hnext = t[e->hash & (n - 1)];
				t[e->hash & (n - 1)] = e;
			}
		}
		free(p->tab);
		p->tab = t;
		p->tab_n = n;
	}
	d->hash = path_hash(d->path);
	d->hnext = p->tab[d->hash & (p->tab_n - 1)];
	p->tab[d->hash & (p->tab_n - 1)] = d;
	p->tab_used++;
	return 0;
}

void sqk_pseudo_free_def(struct sqk_pseudo_def *d)
{
	if (d) {
		free(d->path);
		free(d->arg);
		free(d);
	}
}

int sqk_pseudo_create(unsigned flags, struct sqk_pseudo **out)
{
	struct sqk_pseudo *p = calloc(1, sizeof(*p));
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	uint64_t t;

	if (!p)
		return SQK_ERR_NOMEM;
	p->flags = flags;
	/* Definitions without a time: SOURCE_DATE_EPOCH, else 0, as listings. */
	if (epoch && sqk_parse_uint(epoch, 0xffffffffu, &t) == 0)
		p->mtime = (uint32_t)t;
	p->tab_n = 256;
	p->tab = calloc(p->tab_n, sizeof(*p->tab));
	p->root = calloc(1, sizeof(*p->root));
	if (p->root)
		p->root->path = strdup("");
	if (!p->tab || !p->root || !p->root->path || tab_insert(p, p->root)) {
		sqk_pseudo_destroy(p);
		return SQK_ERR_NOMEM;
	}
	*out = p;
	return 0;
}

void sqk_pseudo_destroy(struct sqk_pseudo *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; p->tab && i < p->tab_n; i++) {
		struct sqk_pseudo_def *d = p->tab[i], *next;

		for (; d; d = next) {
			next = d->hnext;
			sqk_pseudo_free_def(d);
		}
	}
	if (!p->tab)
		sqk_pseudo_free_def(p->root);
	free(p->tab);
	while (p->srcs) {
		struct sqk_pseudo_src *s = p->srcs;

		p->srcs = s->next;
		if (s->data_fd >= 0)
			close(s->data_fd);
		free(s);
	}
	free(p);
}

static struct sqk_pseudo_src *new_src(struct sqk_pseudo *p, const char *fmt, const char *arg)
{
	int n = snprintf(NULL, 0, fmt, arg);
	struct sqk_pseudo_src *s = n < 0 ? NULL : malloc(sizeof(*s) + (size_t)n + 1);

	if (!s)
		return NULL;
	snprintf(s->name, (size_t)n + 1, fmt, arg);
	s->data_fd = -1;
	s->data_start = s->data_size = 0;
	s->next = p->srcs;
	p->srcs = s;
	return s;
}

/* Add a definition to the tree of definitions; each path once. */
static int insert_def(struct sqk_pseudo_line *l, struct sqk_pseudo_def *d)
{
	struct sqk_pseudo *p = l->p;
	struct sqk_pseudo_def *parent = p->root, *old;
	char where[4300];
	size_t i;
	int err;

	d->src = l->src;
	d->line = l->no;
	if (!*d->path) {
		if (d->kind != SQK_PK_DIR)
			return sqk_pseudo_fail(p, l->src, l->no,
					       "the root can only be a d or D definition");
		if (p->root->kind != SQK_PK_NONE) {
			sqk_pseudo_where(p->root, where, sizeof(where));
			return sqk_pseudo_fail(p, l->src, l->no, "/ is defined twice (first at %s)",
					       where);
		}
		old = p->root;
		goto fill;
	}
	/* Each parent: an existing definition that can hold entries, or a new placeholder. */
	for (i = 0;; i++) {
		char *slash = strchr(d->path + i, '/');

		if (!slash)
			break;
		i = (size_t)(slash - d->path);
		*slash = '\0';
		old = sqk_pseudo_lookup(p, d->path);
		if (old && old->kind != SQK_PK_NONE && old->kind != SQK_PK_DIR &&
		    old->kind != SQK_PK_MODIFY) {
			sqk_pseudo_where(old, where, sizeof(where));
			err = sqk_pseudo_fail(p, l->src, l->no,
					      "/%s is not a directory (defined at %s)", d->path,
					      where);
			*slash = '/';
			return err;
		}
		if (!old) {
			old = calloc(1, sizeof(*old));
			if (old)
				old->path = strdup(d->path);
			if (!old || !old->path || tab_insert(p, old)) {
				sqk_pseudo_free_def(old);
				*slash = '/';
				return SQK_ERR_NOMEM;
			}
			old->namepos = parent->path[0] ? strlen(parent->path) + 1 : 0;
			old->src = l->src;
			old->line = l->no;
			old->parent = parent;
			if (parent->last_child)
				parent->last_child->sibling = old;
			else
				parent->child = old;
			parent->last_child = old;
		}
		*slash = '/';
		parent = old;
	}
	old = sqk_pseudo_lookup(p, d->path);
	if (old) {
		sqk_pseudo_where(old, where, sizeof(where));
		if (old->kind != SQK_PK_NONE)
			return sqk_pseudo_fail(p, l->src, l->no,
					       "/%s is defined twice (first at %s)", d->path,
					       where);
		if (d->kind != SQK_PK_DIR && d->kind != SQK_PK_MODIFY)
			return sqk_pseudo_fail(
				p, l->src, l->no,
				"/%s must be a directory: there are entries below it (at %s)",
				d->path, where);
		goto fill;
	}
	err = tab_insert(p, d);
	if (err)
		return err;
	d->namepos = parent->path[0] ? strlen(parent->path) + 1 : 0;
	d->parent = parent;
	if (parent->last_child)
		parent->last_child->sibling = d;
	else
		parent->child = d;
	parent->last_child = d;
	goto listed;
fill:
	/* A placeholder (or the root) becomes the definition; it keeps its place and children. */
	free(old->path);
	old->path = d->path;
	d->path = NULL;
	old->kind = d->kind;
	old->type = d->type;
	old->timed = d->timed;
	old->mode = d->mode;
	old->uid = d->uid;
	old->gid = d->gid;
	old->mtime = d->mtime;
	old->src = d->src;
	old->line = d->line;
	sqk_pseudo_free_def(d);
	d = old;
listed:
	if (p->last)
		p->last->next_def = d;
	else
		p->first = d;
	p->last = d;
	return 0;
}

int sqk_pseudo_insert(struct sqk_pseudo_line *l, struct sqk_pseudo_def *d)
{
	int err = insert_def(l, d);

	if (err)
		sqk_pseudo_free_def(d);
	return err;
}

int sqk_pseudo_add_def(struct sqk_pseudo *p, const char *def)
{
	struct sqk_pseudo_line l = {.p = p};
	char *s = strdup(def);
	int err;

	if (!s)
		return SQK_ERR_NOMEM;
	l.src = new_src(p, "--pseudo '%s'", def);
	err = l.src ? sqk_pseudo_parse_def(&l, s) : SQK_ERR_NOMEM;
	free(s);
	return err;
}

/*
 * After the marker: where R data is. Standard input is spooled, since R may
 * read any part of it (and a file there may not have been read from its start).
 */
static int data_section(struct sqk_pseudo_line *l, struct sqk_pseudo_src *src, FILE *fp,
			uint64_t start)
{
	struct stat st;
	FILE *tmp;
	char buf[65536];
	size_t n;

	if (fp != stdin && fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode)) {
		src->data_fd = fcntl(fileno(fp), F_DUPFD_CLOEXEC, 3);
		if (src->data_fd < 0)
			return SQK_ERR_IO;
		src->data_start = start;
		src->data_size = (uint64_t)st.st_size > start ? (uint64_t)st.st_size - start : 0;
		return 0;
	}
	tmp = tmpfile();
	if (!tmp)
		return SQK_ERR_IO;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		if (fwrite(buf, 1, n, tmp) != n)
			break;
		src->data_size += n;
	}
	if (ferror(fp) || ferror(tmp) || fflush(tmp) != 0) {
		fclose(tmp);
		return SQK_ERR_IO;
	}
	src->data_fd = fcntl(fileno(tmp), F_DUPFD_CLOEXEC, 3);
	fclose(tmp);
	return src->data_fd < 0 ? SQK_ERR_IO : 0;
}

/* Every R definition of src must find its bytes in the data section. */
static int check_data(struct sqk_pseudo_line *l, struct sqk_pseudo_def *from, int marker)
{
	struct sqk_pseudo_def *d;

	for (d = from; d; d = d->next_def) {
		if (d->kind != SQK_PK_DATA || d->src != l->src)
			continue;
		if (!marker)
			return sqk_pseudo_fail(l->p, d->src, d->line,
					       "R data without the line '" DATA_MARKER
					       "' after the definitions");
		if (d->offset > l->src->data_size || d->length > l->src->data_size - d->offset)
			return sqk_pseudo_fail(
				l->p, d->src, d->line,
				"the data (%llu bytes at %llu) runs past the end of the file",
				(unsigned long long)d->length, (unsigned long long)d->offset);
	}
	return 0;
}

static int read_file(struct sqk_pseudo_line *l, FILE *fp, struct sqk_pseudo_src *src)
{
	struct sqk_pseudo_def *before = l->p->last;
	char *line = NULL, *acc = NULL, *def;
	size_t cap = 0, acc_cap = 0, acc_len = 0;
	uint64_t bytes = 0;
	unsigned start = 0, no = 0;
	ssize_t n;
	int err = 0, marker = 0, more, cont = 0;

	do {
		n = getline(&line, &cap, fp);
		more = n >= 0;
		if (more) {
			bytes += (uint64_t)n;
			no++;
			if (!cont)
				start = no;
			if (n && line[n - 1] == '\n')
				n--;
			if (acc_len + (size_t)n + 1 > acc_cap) {
				char *a = realloc(acc, acc_len + (size_t)n + 1);

				if (!a) {
					err = SQK_ERR_NOMEM;
					break;
				}
				acc = a;
				acc_cap = acc_len + (size_t)n + 1;
			}
			memcpy(acc + acc_len, line, (size_t)n);
			acc_len += (size_t)n;
			acc[acc_len] = '\0';
			/* One backslash at the end goes on on the next line; two do not. */
			cont = n && line[n - 1] == '\\' && !(n >= 2 && line[n - 2] == '\\');
			if (cont) {
				acc[--acc_len] = '\0';
				continue;
			}
		} else if (!cont) {
			break;
		}
		cont = 0;
		acc_len = 0;
		l->no = start;
		def = sqk_pseudo_skip_ws(acc);
		if (!*def)
			continue;
		if (*def == '#') {
			if (strcmp(def, DATA_MARKER) != 0)
				continue;
			/* The marker, then a line "#", then the data. */
			if (getline(&line, &cap, fp) != 2 || strcmp(line, "#\n") != 0) {
				err = sqk_pseudo_fail(l->p, src, start + 1,
						      "expected a line '#' after '" DATA_MARKER
						      "'");
				break;
			}
			marker = 1;
			if (data_section(l, src, fp, bytes + 2)) {
				sqk_pseudo_fail(l->p, src, 0, "cannot keep its data: %s",
						strerror(errno));
				err = SQK_ERR_IO;
			}
			break;
		}
		err = sqk_pseudo_parse_def(l, def);
	} while (!err && more);
	if (!err && ferror(fp)) {
		err = SQK_ERR_IO;
		sqk_pseudo_fail(l->p, src, 0, "%s", strerror(errno));
	}
	if (!err)
		err = check_data(l, before ? before->next_def : l->p->first, marker);
	free(line);
	free(acc);
	return err;
}

int sqk_pseudo_add_file(struct sqk_pseudo *p, const char *path)
{
	struct sqk_pseudo_line l = {.p = p};
	struct sqk_pseudo_src *src;
	FILE *fp;
	int err;

	src = new_src(p, "%s", strcmp(path, "-") == 0 ? "(standard input)" : path);
	if (!src)
		return SQK_ERR_NOMEM;
	l.src = src;
	fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	if (!fp) {
		sqk_pseudo_fail(p, src, 0, "%s", strerror(errno));
		return SQK_ERR_IO;
	}
	err = read_file(&l, fp, src);
	if (fp != stdin)
		fclose(fp);
	return err;
}
