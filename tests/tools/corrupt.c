// SPDX-License-Identifier: GPL-2.0-or-later
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
	FILE *in, *out;
	uint8_t *buf;
	long size;
	size_t len;

	if (argc != 6) {
		fputs("usage: corrupt IN OUT SEED CASE FLIPS\n", stderr);
		return 2;
	}
	seed = strtoull(argv[3], NULL, 10);
	index = strtoull(argv[4], NULL, 10);
	flips = strtoull(argv[5], NULL, 10);
	in = fopen(argv[1], "rb");
	if (!in || fseek(in, 0, SEEK_END) != 0 || (size = ftell(in)) < DAMAGE_MIN_SIZE ||
	    fseek(in, 0, SEEK_SET) != 0) {
		fprintf(stderr, "corrupt: %s: cannot read an image\n", argv[1]);
		return 1;
	}
	buf = malloc((size_t)size);
	if (!buf || fread(buf, 1, (size_t)size, in) != (size_t)size) {
		fprintf(stderr, "corrupt: %s: read failed\n", argv[1]);
		return 1;
	}
	fclose(in);
	len = damage_apply(buf, (size_t)size, seed, index, flips, what, sizeof(what));
	printf("%s\n", what);
	out = fopen(argv[2], "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out) != 0) {
		fprintf(stderr, "corrupt: %s: write failed\n", argv[2]);
		return 1;
	}
	free(buf);
	return 0;
}
