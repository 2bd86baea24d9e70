// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --regex: each --exclude pattern is a list of POSIX extended regular
 * expressions separated by '/', one per path component, as mksquashfs's
 * -regex takes them. A component matches a name when its expression
 * matches anywhere in it (^ and $ anchor). A pattern with a leading '/'
 * is matched from the root, so it names whole paths; one without is
 * matched against the last components, so it applies at any depth.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "src.h"

struct sqk_exclude_re {
	int anchored;
	size_t n;
	regex_t *comp;
};

static void re_free(struct sqk_exclude_re *r)
{
	for (size_t i = 0; i < r->n; i++)
		regfree(&r->comp[i]);
	free(r->comp);
}

/* One pattern: components compiled in order; empty ones (from "//") are skipped. */
static int re_compile(struct sqk_exclude_re *r, const char *pat, char *msg, size_t cap)
{
	const char *p = pat;
	char *buf;
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->anchored = pat[0] == '/';
	buf = malloc(strlen(pat) + 1);
	r->comp = calloc(strlen(pat) / 2 + 1, sizeof(*r->comp));
	if (!buf || !r->comp) {
		free(buf);
		return SQK_ERR_NOMEM;
	}
	while (*p) {
		size_t len = strcspn(p, "/");
		int rc;

		if (len) {
			memcpy(buf, p, len);
			buf[len] = '\0';
			rc = regcomp(&r->comp[r->n], buf, REG_EXTENDED | REG_NOSUB);
			if (rc) {
				regerror(rc, &r->comp[r->n], msg, cap);
				err = SQK_ERR_ARG;
				break;
			}
			r->n++;
		}
		p += len + (p[len] == '/');
	}
	free(buf);
	if (!err && !r->n) {
		snprintf(msg, cap, "no path component");
		err = SQK_ERR_ARG;
	}
	return err;
}

int sqk_src_exclude_regex_prepare(struct sqk_src_ctx *c)
{
	struct sqk_exclude_re *v;

	if (!c->exclude_regex || !c->nexcludes)
		return 0;
	v = calloc(c->nexcludes, sizeof(*v));
	if (!v)
		return SQK_ERR_NOMEM;
	c->regex = v;
	for (size_t i = 0; i < c->nexcludes; i++) {
		char msg[200];
		int err = re_compile(&v[i], c->excludes[i], msg, sizeof(msg));

		if (err) {
			re_free(&v[i]);
			c->nregex = i;
			if (err == SQK_ERR_ARG)
				sqk_src_fail(c, c->excludes[i], "invalid regular expression: %s",
					     msg);
			return err;
		}
	}
	c->nregex = c->nexcludes;
	return 0;
}

void sqk_src_exclude_regex_release(struct sqk_src_ctx *c)
{
	for (size_t i = 0; i < c->nregex; i++)
		re_free(&c->regex[i]);
	free(c->regex);
	c->regex = NULL;
	c->nregex = 0;
}

/* Does the component run of path starting at name (len names) match r? */
static int pattern_match(const struct sqk_exclude_re *r, const char *path, size_t names)
{
	char buf[4096];
	const char *p = path;
	size_t skip, i = 0;

	if (r->anchored ? names != r->n : names < r->n)
		return 0;
	for (skip = names - r->n; skip; skip--)
		p = strchr(p, '/') + 1;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len >= sizeof(buf))
			return 0;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (regexec(&r->comp[i++], buf, 0, NULL, 0) != 0)
			return 0;
		p += len + (p[len] == '/');
	}
	return 1;
}

int sqk_src_excluded_regex(const struct sqk_src_ctx *c, const char *path)
{
	size_t names = 1;

	for (const char *p = path; *p; p++)
		names += *p == '/';
	for (size_t i = 0; i < c->nregex; i++)
		if (pattern_match(&c->regex[i], path, names))
			return 1;
	return 0;
}
