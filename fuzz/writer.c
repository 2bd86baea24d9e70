// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the writer never writes what the reader refuses. The input
 * is the stream of choices tests/unit/writer_prop.h draws a case from: top
 * directories from pseudo definitions or listing lines, entries in them
 * with names, symlink targets, owners and device numbers around the
 * format's limits. The case is built in memory; it must be refused in one
 * line, or give an image that fsck calls clean and that the reader gives
 * back whole. Anything else aborts, with what was wrong.
 *
 * With SQK_FUZZ_SEEDS=DIR in the environment it writes seed inputs there
 * (choice streams of a seeded generator) and exits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tests/unit/writer_prop.h"
#include "seeds.h"

static struct wp_case c;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (getenv("SQK_FUZZ_SEEDS")) {
		fuzz_seeds(getenv("SQK_FUZZ_SEEDS"), 32, 64, 16);
		exit(0);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_rand r = {data, size, 0, 0};
	char why[512];

	wp_generate(&r, &c);
	if (wp_check(&c, why, sizeof(why)) == WP_BROKEN) {
		fprintf(stderr, "the writer's property is broken: %s\n", why);
		abort();
	}
	return 0;
}
