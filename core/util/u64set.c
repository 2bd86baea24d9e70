// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>

#include "error.h"
#include "u64set.h"

static size_t u64_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

int sqk_u64set_add(struct sqk_u64set *s, uint64_t key)
{
	size_t i;

	if ((s->count + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024, j;
		uint64_t *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return SQK_ERR_NOMEM;
		for (j = 0; j < s->cap; j++) {
			if (!s->slot[j])
				continue;
			for (i = u64_hash(s->slot[j] - 1, cap); slot[i]; i = (i + 1) & (cap - 1))
				;
			slot[i] = s->slot[j];
		}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	for (i = u64_hash(key, s->cap); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == key + 1)
			return 1;
	s->slot[i] = key + 1;
	s->count++;
	return 0;
}

int sqk_u64set_has(const struct sqk_u64set *s, uint64_t key)
{
	size_t i;

	if (!s->count)
		return 0;
	for (i = u64_hash(key, s->cap); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == key + 1)
			return 1;
	return 0;
}

void sqk_u64set_free(struct sqk_u64set *s)
{
	free(s->slot);
	s->slot = NULL;
	s->cap = s->count = 0;
}
