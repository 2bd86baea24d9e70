// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --regex and --wildcards: each --exclude pattern is a list of patterns
 * separated by '/', one per path component, as mksquashfs's -regex and
 * -wildcards take them. Under --regex a component is a POSIX extended
 * regular expression that matches a name when it matches anywhere in it
 * (^ and $ anchor). Under --wildcards it is a shell glob matched with
 * mksquashfs's fnmatch flags: FNM_PATHNAME and FNM_PERIOD (a wildcard
 * never matches a '/' or the leading '.' of a name) and FNM_EXTMATCH
 * (ksh's @(a|b), *(..), +(..), ?(..), !(..)). A pattern with a leading
 * '/' is matched from the root, so it names whole paths; one without is
 * matched against the last components, so it applies at any depth.
 */
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src.h"
#include "util/error.h"

struct sqk_exclude_pat {
	int anchored;
	size_t n;
	regex_t *re; /* --regex: n compiled components */
	char **glob; /* --wildcards: n components */
};

static void pat_free(struct sqk_exclude_pat *r)
{
	for (size_t i = 0; i < r->n; i++) {
		if (r->re)
			regfree(&r->re[i]);
		if (r->glob)
			free(r->glob[i]);
	}
	free(r->re);
	free(r->glob);
}

/* One component of a pattern as the style wants it; 0 or an error (msg says why). */
static int add_component(struct sqk_exclude_pat *r, const char *comp, char *msg, size_t cap)
{
	int rc;

	if (r->glob) {
		r->glob[r->n] = strdup(comp);
		if (!r->glob[r->n])
			return SQK_ERR_NOMEM;
		r->n++;
		return 0;
	}
	rc = regcomp(&r->re[r->n], comp, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &r->re[r->n], msg, cap);
		return SQK_ERR_ARG;
	}
	r->n++;
	return 0;
}

/* One pattern: components in order; empty ones (from "//") are skipped. */
static int pat_compile(struct sqk_exclude_pat *r, const char *pat, int glob, char *msg, size_t cap)
{
	size_t most = strlen(pat) / 2 + 1;
	const char *p = pat;
	char *buf;
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->anchored = pat[0] == '/';
	buf = malloc(strlen(pat) + 1);
	if (glob)
		r->glob = calloc(most, sizeof(*r->glob));
	else
		r->re = calloc(most, sizeof(*r->re));
	if (!buf || (!r->glob && !r->re)) {
		free(buf);
		return SQK_ERR_NOMEM;
	}
	while (*p && !err) {
		size_t len = strcspn(p, "/");

		if (len) {
			memcpy(buf, p, len);
			buf[len] = '\0';
			err = add_component(r, buf, msg, cap);
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

int sqk_src_exclude_prepare(struct sqk_src_ctx *c)
{
	struct sqk_exclude_pat *v;

	if (c->exclude_style == SQK_EXCLUDE_GLOB || !c->nexcludes)
		return 0;
	v = calloc(c->nexcludes, sizeof(*v));
	if (!v)
		return SQK_ERR_NOMEM;
	c->pats = v;
	for (size_t i = 0; i < c->nexcludes; i++) {
		char msg[200];
		int err = pat_compile(&v[i], c->excludes[i],
				      c->exclude_style == SQK_EXCLUDE_WILDCARDS, msg, sizeof(msg));

		if (err) {
			pat_free(&v[i]);
			c->npats = i;
			if (err == SQK_ERR_ARG)
				sqk_src_fail(c, c->excludes[i], "invalid regular expression: %s",
					     msg);
			return err;
		}
	}
	c->npats = c->nexcludes;
	return 0;
}

void sqk_src_exclude_release(struct sqk_src_ctx *c)
{
	for (size_t i = 0; i < c->npats; i++)
		pat_free(&c->pats[i]);
	free(c->pats);
	c->pats = NULL;
	c->npats = 0;
}

static int component_match(const struct sqk_exclude_pat *r, size_t i, const char *name)
{
	if (r->glob)
		return fnmatch(r->glob[i], name, FNM_PATHNAME | FNM_PERIOD | FNM_EXTMATCH) == 0;
	return regexec(&r->re[i], name, 0, NULL, 0) == 0;
}

/* Does the component run of path starting at name (len names) match r? */
static int pattern_match(const struct sqk_exclude_pat *r, const char *path, size_t names)
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
		if (!component_match(r, i++, buf))
			return 0;
		p += len + (p[len] == '/');
	}
	return 1;
}

int sqk_src_excluded_components(const struct sqk_src_ctx *c, const char *path)
{
	size_t names = 1;

	for (const char *p = path; *p; p++)
		names += *p == '/';
	for (size_t i = 0; i < c->npats; i++)
		if (pattern_match(&c->pats[i], path, names))
			return 1;
	return 0;
}
