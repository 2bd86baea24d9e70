// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * corrupt: damage an image in one deterministic way, for the corruption
 * tests.
 *
 *   corrupt IN OUT SEED CASE FLIPS
 *
 * Cases 0..FLIPS-1 flip one bit, cases from FLIPS on cut the image short;
 * where comes from a generator seeded by SEED and CASE, inside the bytes
 * the superblock says are used (bytes_used), so every case hits something
 * a reader looks at. Odd flips land in the tables (from the inode table
 * on), even ones anywhere: data blocks are most of an image, and a flip in
 * a compressed block mostly makes it fail to decompress, while the tables
 * hold the structure worth damaging. Prints what was done ("flip 1234 bit
 * 5" or "truncate 1234") on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	unsigned long long seed, index, flips;
	uint64_t used, state, pos, tables;
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
	if (!in || fseek(in, 0, SEEK_END) != 0 || (size = ftell(in)) < 96 ||
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
	used = get_le64(buf + 40);
	if (used < 96 || used > (uint64_t)size)
		used = (uint64_t)size;
	tables = get_le64(buf + 64);
	if (tables >= used)
		tables = 0;

	/* One stream per case: the cases do not depend on each other. */
	state = seed * 0x2545f4914f6cdd1dull ^ index;
	splitmix(&state);
	pos = splitmix(&state) % used;
	if (index < flips && index % 2)
		pos = tables + splitmix(&state) % (used - tables);
	len = (size_t)size;
	if (index < flips) {
		unsigned bit = (unsigned)(splitmix(&state) % 8);

		buf[pos] ^= (uint8_t)(1u << bit);
		printf("flip %llu bit %u\n", (unsigned long long)pos, bit);
	} else {
		len = (size_t)pos;
		printf("truncate %llu\n", (unsigned long long)pos);
	}
	out = fopen(argv[2], "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out) != 0) {
		fprintf(stderr, "corrupt: %s: write failed\n", argv[2]);
		return 1;
	}
	free(buf);
	return 0;
}
