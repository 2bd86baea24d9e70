/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FUZZ_SEEDS_H
#define SQK_FUZZ_SEEDS_H

/*
 * Seed inputs of the targets that make their own (SQK_FUZZ_SEEDS=DIR):
 * n files DIR/seed-NN of base + NN * step bytes of a seeded generator.
 */
#include <stdint.h>
#include <stdio.h>

static void fuzz_seeds(const char *dir, unsigned n, unsigned base, unsigned step)
{
	uint64_t state = 1;
	unsigned s, i;

	for (s = 0; s < n; s++) {
		char path[4096];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/seed-%02u", dir, s);
		fp = fopen(path, "w");
		for (i = 0; fp && i < base + s * step; i++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			fputc((int)(state >> 56), fp);
		}
		if (fp)
			fclose(fp);
	}
}

#endif
