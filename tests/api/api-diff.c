// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-diff A B [OPTION[=VALUE]...]: compare A with B through the public
 * API (each an image, or a host directory when it is one) and print each
 * change as "KIND PATH [details]"; exit 0 when they are the same, 1 when
 * they differ, 2 when the comparison failed.
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

static int change(void *ctx, const struct sqk_change *c)
{
	printf("%s %s", kinds[c->kind], c->path ? c->path : "-");
	switch (c->kind) {
	case SQK_CHANGE_MODE:
		printf(" %04llo %04llo", (unsigned long long)c->a, (unsigned long long)c->b);
		break;
	case SQK_CHANGE_TYPE:
		printf(" %06llo %06llo", (unsigned long long)c->a, (unsigned long long)c->b);
		break;
	case SQK_CHANGE_OWNER:
	case SQK_CHANGE_SIZE:
		printf(" %llu %llu", (unsigned long long)c->a, (unsigned long long)c->b);
		break;
	case SQK_CHANGE_CONTENTS:
		printf(" at %llu", (unsigned long long)c->offset);
		break;
	case SQK_CHANGE_TARGET:
		printf(" %s %s", c->sa, c->sb);
		break;
	case SQK_CHANGE_XATTR:
		printf(" %s", c->name);
		break;
	default:
		break;
	}
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	struct sqk_diff_opts *o = sqk_diff_opts_create();
	struct sqk_diff_side a, b;
	int r;

	if (argc < 3 || !o)
		return 2;
	if (diffargs_side(argv[1], &a) || diffargs_side(argv[2], &b)) {
		fprintf(stderr, "api-diff: %s\n", sqk_error_message());
		return 2;
	}
	if (sqk_diff_opts_set(o, "no-such-option", NULL) != SQK_ERR_ARG)
		return 2;
	if (diffargs_opts(o, argc, argv, 3))
		return 2;
	r = sqk_diff_compare(&a, &b, o, change, NULL);
	sqk_diff_opts_destroy(o);
	sqk_image_destroy(a.img);
	sqk_image_destroy(b.img);
	if (r < 0) {
		fprintf(stderr, "api-diff: %s\n", sqk_error_message());
		return 2;
	}
	return r;
}
