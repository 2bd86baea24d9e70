// SPDX-License-Identifier: BSD-2-Clause
/*
 * The one path-pattern engine: mksquashfs's -wildcards and -regex
 * excludes, and unsquashfs's extract and exclude names, in each style.
 */
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "pattern.h"

/* The longest name a component is matched against; a longer one matches nothing. */
#define NAME_BUF (4096 + 256 + 2)

static int add_component(struct sqk_pattern *p, const char *comp, char *msg, size_t cap)
{
	regex_t *re = p->re;
	int rc;

	p->comp[p->n] = strdup(comp);
	if (!p->comp[p->n])
		return SQK_ERR_NOMEM;
	if (p->style == SQK_PATTERN_REGEX) {
		rc = regcomp(&re[p->n], comp, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			regerror(rc, &re[p->n], msg, cap);
			free(p->comp[p->n]);
			return SQK_ERR_ARG;
		}
	}
	p->n++;
	return 0;
}

int sqk_pattern_compile(struct sqk_pattern *p, const char *pat, enum sqk_pattern_style style,
			char *msg, size_t cap)
{
	size_t most = strlen(pat) / 2 + 1;
	const char *s = pat;
	char *buf;
	int err = 0;

	memset(p, 0, sizeof(*p));
	p->style = style;
	p->anchored = pat[0] == '/';
	buf = malloc(strlen(pat) + 1);
	p->comp = calloc(most, sizeof(*p->comp));
	if (style == SQK_PATTERN_REGEX)
		p->re = calloc(most, sizeof(regex_t));
	if (!buf || !p->comp || (style == SQK_PATTERN_REGEX && !p->re)) {
		free(buf);
		sqk_pattern_free(p);
		return SQK_ERR_NOMEM;
	}
	while (*s && !err) {
		size_t len = strcspn(s, "/");

		if (len) {
			memcpy(buf, s, len);
			buf[len] = '\0';
			err = add_component(p, buf, msg, cap);
		}
		s += len + (s[len] == '/');
	}
	free(buf);
	if (err)
		sqk_pattern_free(p);
	return err;
}

void sqk_pattern_free(struct sqk_pattern *p)
{
	regex_t *re = p->re;

	for (size_t i = 0; i < p->n; i++) {
		if (re)
			regfree(&re[i]);
		free(p->comp[i]);
	}
	free(p->re);
	free(p->comp);
	memset(p, 0, sizeof(*p));
}

static int component_match(const struct sqk_pattern *p, size_t i, const char *name)
{
	switch (p->style) {
	case SQK_PATTERN_LITERAL:
		return strcmp(p->comp[i], name) == 0;
	case SQK_PATTERN_WILDCARDS:
		return fnmatch(p->comp[i], name, FNM_PATHNAME | FNM_PERIOD | FNM_EXTMATCH) == 0;
	case SQK_PATTERN_REGEX:
		return regexec(&((regex_t *)p->re)[i], name, 0, NULL, 0) == 0;
	}
	return 0;
}

enum sqk_pattern_match sqk_pattern_match(const struct sqk_pattern *p, const char *path)
{
	char name[NAME_BUF];
	size_t i = 0;

	while (*path) {
		size_t len = strcspn(path, "/");

		if (i == p->n)
			return SQK_PATTERN_BELOW;
		if (len >= sizeof(name))
			return SQK_PATTERN_NO;
		memcpy(name, path, len);
		name[len] = '\0';
		if (!component_match(p, i++, name))
			return SQK_PATTERN_NO;
		path += len + (path[len] == '/');
	}
	return i == p->n ? SQK_PATTERN_WHOLE : SQK_PATTERN_LEADS;
}

int sqk_pattern_match_end(const struct sqk_pattern *p, const char *path)
{
	size_t names = *path ? 1 : 0, skip;

	for (const char *s = path; *s; s++)
		names += *s == '/';
	if (p->anchored ? names != p->n : names < p->n)
		return 0;
	for (skip = names - p->n; skip; skip--)
		path = strchr(path, '/') + 1;
	return sqk_pattern_match(p, path) == SQK_PATTERN_WHOLE;
}

int sqk_pattern_file_read(const char *file, int (*add)(void *ctx, const char *pattern), void *ctx)
{
	FILE *fp = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0, e;

	if (!fp)
		return SQK_ERR_IO;
	while (!err && (n = getline(&line, &cap, fp)) >= 0) {
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n && line[0] != '#')
			err = add(ctx, line);
	}
	if (!err && ferror(fp))
		err = SQK_ERR_IO;
	e = errno;
	free(line);
	fclose(fp);
	errno = e;
	return err;
}
