// SPDX-License-Identifier: BSD-2-Clause
/* The seeded damage of the corruption tests (see damage.h). */
#include <stdio.h>
#include <stdlib.h>

#include "damage.h"
#include "format/fmt_super.h"

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint8_t *damage_load(const char *path, size_t *size)
{
	FILE *in = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!in)
		return NULL;
	if (fseek(in, 0, SEEK_END) == 0 && (len = ftell(in)) >= SQK_SUPER_SIZE &&
	    fseek(in, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len)) != NULL &&
	    fread(buf, 1, (size_t)len, in) == (size_t)len) {
		*size = (size_t)len;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(in);
	return buf;
}

size_t damage_apply(uint8_t *buf, size_t size, uint64_t seed, uint64_t index, uint64_t flips,
		    char *what, size_t what_len)
{
	uint64_t used, state, pos, tables;
	struct sqk_super sb;
	unsigned bit;

	sqk_fmt_super_decode(&sb, buf);
	used = sb.bytes_used;
	if (used < SQK_SUPER_SIZE || used > (uint64_t)size)
		used = (uint64_t)size;
	tables = sb.inode_table;
	if (tables >= used)
		tables = 0;

	/* One stream per case: the cases do not depend on each other. */
	state = seed * 0x2545f4914f6cdd1dull ^ index;
	splitmix(&state);
	pos = splitmix(&state) % used;
	if (index < flips && index % 2)
		pos = tables + splitmix(&state) % (used - tables);
	if (index >= flips) {
		snprintf(what, what_len, "truncate %llu", (unsigned long long)pos);
		return (size_t)pos;
	}
	bit = (unsigned)(splitmix(&state) % 8);
	buf[pos] ^= (uint8_t)(1u << bit);
	snprintf(what, what_len, "flip %llu bit %u", (unsigned long long)pos, bit);
	return size;
}
