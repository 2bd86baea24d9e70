// SPDX-License-Identifier: GPL-2.0-or-later
/* The seeded damage of the corruption tests (see damage.h). */
#include <stdio.h>

#include "damage.h"
#include "le.h"

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

size_t damage_apply(uint8_t *buf, size_t size, uint64_t seed, uint64_t index, uint64_t flips,
		    char *what, size_t what_len)
{
	uint64_t used, state, pos, tables;
	unsigned bit;

	used = get_le64(buf + 40);
	if (used < DAMAGE_MIN_SIZE || used > (uint64_t)size)
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
	if (index >= flips) {
		snprintf(what, what_len, "truncate %llu", (unsigned long long)pos);
		return (size_t)pos;
	}
	bit = (unsigned)(splitmix(&state) % 8);
	buf[pos] ^= (uint8_t)(1u << bit);
	snprintf(what, what_len, "flip %llu bit %u", (unsigned long long)pos, bit);
	return size;
}
