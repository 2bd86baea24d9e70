/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TEST_DIFFARGS_H
#define SQK_TEST_DIFFARGS_H

/*
 * The operands of the comparison programs of tests/api: each side an
 * image, or a host directory when it is one; then OPTION[=VALUE]... for
 * sqk_diff_opts_set(), "path=P" for sqk_diff_opts_add_path().
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

static int diffargs_side(const char *arg, struct sqk_diff_side *s)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (!stat(arg, &st) && S_ISDIR(st.st_mode)) {
		s->dir = arg;
		return 0;
	}
	return sqk_image_open_path(arg, NULL, &s->img);
}

/* argv[from...] into o: 0, or the code after saying why on stderr. */
static int diffargs_opts(struct sqk_diff_opts *o, int argc, char **argv, int from)
{
	int i, r;

	for (i = from; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (eq)
			*eq++ = '\0';
		r = !strcmp(argv[i], "path") ? sqk_diff_opts_add_path(o, eq)
					     : sqk_diff_opts_set(o, argv[i], eq);
		if (r) {
			fprintf(stderr, "%s: %s\n", argv[0], sqk_error_message());
			return r;
		}
	}
	return 0;
}

#endif
