// SPDX-License-Identifier: BSD-2-Clause
/*
 * corrupt: damage an image in one deterministic way, for the corruption
 * tests.
 *
 *   corrupt IN OUT SEED CASE FLIPS
 *
 * Cases 0..FLIPS-1 flip one bit, cases from FLIPS on cut the image short,
 * as tests/tools/lib/damage.c chooses (damage-run runs the same cases in
 * one process). Prints what was done ("flip 1234 bit 5" or "truncate
 * 1234") on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/damage.h"

int main(int argc, char **argv)
{
	unsigned long long seed, index, flips;
	char what[64];
	FILE *out;
	uint8_t *buf;
	size_t size, len;

	if (argc != 6) {
		fputs("usage: corrupt IN OUT SEED CASE FLIPS\n", stderr);
		return 2;
	}
	seed = strtoull(argv[3], NULL, 10);
	index = strtoull(argv[4], NULL, 10);
	flips = strtoull(argv[5], NULL, 10);
	buf = damage_load(argv[1], &size);
	if (!buf) {
		fprintf(stderr, "corrupt: %s: cannot read an image\n", argv[1]);
		return 1;
	}
	len = damage_apply(buf, size, seed, index, flips, what, sizeof(what));
	printf("%s\n", what);
	out = fopen(argv[2], "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out) != 0) {
		fprintf(stderr, "corrupt: %s: write failed\n", argv[2]);
		return 1;
	}
	free(buf);
	return 0;
}
