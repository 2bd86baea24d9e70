// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-diff-more A B [OPTION[=VALUE]...]: compare A with B through the
 * comparison object of the public API (sqk_diff_open, sqk_diff_run) and
 * print what a front end shows: each change with its entry's type
 * ("KIND PATH TYPE [details]"), a superblock change with whether it is a
 * flag ("super NAME A B flag|number|text"), then every count ("count NAME
 * N") and, when the run failed, "failure SIDE PATH ERRNUM WORDS". Exit 0
 * when the trees are the same, 1 when they differ, 2 when the comparison
 * failed, 3 when a check of the API's own contract fails (said on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

#include "api-test.h"

static const char *const kinds[] = {
	"super", "added",    "removed", "type",	  "mode",  "owner", "mtime",
	"size",	 "contents", "target",	"device", "xattr", "link",
};

static const char *type_name(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "directory";
	case S_IFREG:
		return "file";
	case S_IFLNK:
		return "symlink";
	case S_IFBLK:
		return "block_device";
	case S_IFCHR:
		return "char_device";
	case S_IFIFO:
		return "fifo";
	case S_IFSOCK:
		return "socket";
	default:
		return "none";
	}
}

static int entry(void *ctx, const struct sqk_diff_entry *e)
{
	const struct sqk_change *c = e->change;

	if (c->kind == SQK_CHANGE_SUPER) {
		if (c->sa)
			printf("super %s %s %s text\n", c->name, c->sa, c->sb);
		else
			printf("super %s %llu %llu %s\n", c->name, (unsigned long long)c->a,
			       (unsigned long long)c->b, e->flag ? "flag" : "number");
		return 0;
	}
	printf("%s %s %s", kinds[c->kind], c->path, type_name(e->type));
	switch (c->kind) {
	case SQK_CHANGE_ADDED:
	case SQK_CHANGE_REMOVED:
		if (S_ISREG(e->type))
			printf(" %llu", (unsigned long long)c->size);
		break;
	case SQK_CHANGE_TYPE:
		printf(" %s %s", type_name((unsigned)c->a), type_name((unsigned)c->b));
		break;
	case SQK_CHANGE_CONTENTS:
		printf(" at %llu", (unsigned long long)c->offset);
		break;
	default:
		break;
	}
	putchar('\n');
	return 0;
}

/* What the API promises beside the comparison itself: 0, or 3 after saying what broke. */
static int contract(struct sqk_diff *d, int ran)
{
	const char *const *name;
	uint64_t v;
	int side = 7, errnum = 7;
	const char *path = "x";

	if (sqk_diff_run(d, entry, NULL) != SQK_ERR_ARG) {
		fprintf(stderr, "api-diff-more: a second run was not refused\n");
		return 3;
	}
	if (sqk_diff_count(d, "no-such-count", &v) != SQK_ERR_ARG) {
		fprintf(stderr, "api-diff-more: an unknown count was not refused\n");
		return 3;
	}
	for (name = sqk_diff_count_names(); *name; name++)
		if (sqk_diff_count(d, *name, &v) != 0) {
			fprintf(stderr, "api-diff-more: count %s: %s\n", *name,
				sqk_error_message());
			return 3;
		}
	/* The run's failure is kept past the second run's refusal. */
	if ((ran < 0) != (sqk_diff_failure(d, NULL, NULL, NULL) != 0) ||
	    (ran >= 0 &&
	     (sqk_diff_failure(d, &side, &path, &errnum) != 0 || side != -1 || *path || errnum))) {
		fprintf(stderr, "api-diff-more: sqk_diff_failure does not match the run\n");
		return 3;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sqk_diff_opts *o = sqk_diff_opts_create();
	struct sqk_diff_side a, b;
	struct sqk_diff *d;
	const char *const *name;
	const char *path;
	int r, side, errnum, code, broke;
	uint64_t v;

	if (argc < 3 || !o)
		return 2;
	sqk_diff_destroy(NULL);
	memset(&a, 0, sizeof(a));
	if (sqk_diff_open(&a, &a, NULL, &d) != SQK_ERR_ARG || d) {
		fprintf(stderr, "api-diff-more: a side of nothing was not refused\n");
		return 3;
	}
	if (diffargs_side(argv[1], &a) || diffargs_side(argv[2], &b)) {
		fprintf(stderr, "api-diff-more: %s\n", sqk_error_message());
		return 2;
	}
	if (diffargs_opts(o, argc, argv, 3))
		return 2;
	if (sqk_diff_open(&a, &b, o, &d)) {
		fprintf(stderr, "api-diff-more: %s\n", sqk_error_message());
		return 2;
	}
	/* The comparison took its copy of the options. */
	sqk_diff_opts_destroy(o);
	r = sqk_diff_run(d, entry, NULL);
	if (r < 0)
		fprintf(stderr, "api-diff-more: %s\n", sqk_error_message());
	for (name = sqk_diff_count_names(); *name; name++) {
		sqk_diff_count(d, *name, &v);
		printf("count %s %llu\n", *name, (unsigned long long)v);
	}
	code = sqk_diff_failure(d, &side, &path, &errnum);
	if (code)
		printf("failure %d %s %d %s\n", side, *path ? path : "-", errnum,
		       sqk_strerror(code));
	broke = contract(d, r);
	sqk_diff_destroy(d);
	sqk_image_destroy(a.img);
	sqk_image_destroy(b.img);
	if (broke)
		return broke;
	return r < 0 ? 2 : r;
}
