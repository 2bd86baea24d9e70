// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-guard INO:DEPTH...: a struct sqk_dir_guard entering each directory
 * in turn through the public API; prints one line a step, "INO DEPTH ok"
 * or "INO DEPTH CODE-NAME". "new" starts a fresh guard.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

static const char *name(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case SQK_ERR_LOOP:
		return "loop";
	case SQK_ERR_DEPTH:
		return "depth";
	case SQK_ERR_ARG:
		return "arg";
	default:
		return "other";
	}
}

int main(int argc, char **argv)
{
	struct sqk_dir_guard *g = NULL;
	int i;

	if (sqk_dir_guard_create(&g) != 0)
		return 1;
	for (i = 1; i < argc; i++) {
		unsigned long long ino;
		unsigned depth;

		if (strcmp(argv[i], "new") == 0) {
			sqk_dir_guard_destroy(g);
			if (sqk_dir_guard_create(&g) != 0)
				return 1;
			continue;
		}
		if (sscanf(argv[i], "%llu:%u", &ino, &depth) != 2)
			return 2;
		printf("%llu %u %s\n", ino, depth, name(sqk_dir_guard_enter(g, ino, depth)));
	}
	sqk_dir_guard_destroy(g);
	sqk_dir_guard_destroy(NULL);
	return 0;
}
