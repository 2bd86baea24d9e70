// SPDX-License-Identifier: BSD-2-Clause
/*
 * --regex and --wildcards: each --exclude pattern is a list of patterns
 * separated by '/', one per path component, as mksquashfs's -regex and
 * -wildcards take them (util/pattern.h says how each style matches). A
 * pattern with a leading '/' is matched from the root, so it names whole
 * paths; one without is matched against the last components, so it
 * applies at any depth.
 */
#include <stdio.h>
#include <stdlib.h>

#include "src.h"
#include "util/error.h"
#include "util/pattern.h"

int sqk_src_exclude_prepare(struct sqk_src_ctx *c)
{
	struct sqk_pattern *v;

	if (c->exclude_style == SQK_EXCLUDE_GLOB || !c->nexcludes)
		return 0;
	v = calloc(c->nexcludes, sizeof(*v));
	if (!v)
		return SQK_ERR_NOMEM;
	c->pats = v;
	for (size_t i = 0; i < c->nexcludes; i++) {
		char msg[200];
		int err = sqk_pattern_compile(&v[i], c->excludes[i],
					      c->exclude_style == SQK_EXCLUDE_WILDCARDS
						      ? SQK_PATTERN_WILDCARDS
						      : SQK_PATTERN_REGEX,
					      msg, sizeof(msg));

		if (!err && !v[i].n) {
			sqk_pattern_free(&v[i]);
			snprintf(msg, sizeof(msg), "no path component");
			err = SQK_ERR_ARG;
		}
		if (err) {
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
		sqk_pattern_free(&c->pats[i]);
	free(c->pats);
	c->pats = NULL;
	c->npats = 0;
}

int sqk_src_excluded_components(const struct sqk_src_ctx *c, const char *path)
{
	for (size_t i = 0; i < c->npats; i++)
		if (sqk_pattern_match_end(&c->pats[i], path))
			return 1;
	return 0;
}
