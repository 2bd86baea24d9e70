// SPDX-License-Identifier: BSD-2-Clause
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hash.h"

#define HASH_MIN_SLOTS 16

void sqk_hash_init(struct sqk_hash *h)
{
	memset(h, 0, sizeof(*h));
}

void sqk_hash_release(struct sqk_hash *h)
{
	free(h->slot);
	sqk_hash_init(h);
}

static size_t slots(const struct sqk_hash *h)
{
	return h->slot ? h->mask + 1 : 0;
}

/* Probe from the key's home to the first empty slot. */
static void place(struct sqk_hash *h, uint64_t key, uint64_t val)
{
	size_t i = sqk_hash_home(h, key);

	while (h->slot[i].val)
		i = (i + 1) & h->mask;
	h->slot[i].key = key;
	h->slot[i].val = val;
}

int sqk_hash_reserve(struct sqk_hash *h, size_t n)
{
	struct sqk_hash_slot *old = h->slot;
	size_t nold = slots(h), want = HASH_MIN_SLOTS, i;

	if (n > SIZE_MAX / 4 / sizeof(*old))
		return SQK_ERR_NOMEM;
	while (want < 2 * n)
		want *= 2;
	if (want <= nold)
		return 0;
	h->slot = calloc(want, sizeof(*h->slot));
	if (!h->slot) {
		h->slot = old;
		return SQK_ERR_NOMEM;
	}
	h->mask = want - 1;
	for (i = 0; i < nold; i++)
		if (old[i].val)
			place(h, old[i].key, old[i].val);
	free(old);
	return 0;
}

int sqk_hash_add(struct sqk_hash *h, uint64_t key, uint64_t val)
{
	if (!val)
		return SQK_ERR_ARG;
	if ((h->count + 1) * 2 > slots(h)) {
		/* Double: n adds rehash O(n) entries in all. */
		int err = sqk_hash_reserve(h, h->count ? 2 * h->count : 1);

		if (err)
			return err;
	}
	place(h, key, val);
	h->count++;
	return 0;
}

int sqk_hash_remove(struct sqk_hash *h, uint64_t key, uint64_t val)
{
	struct sqk_hash_slot *s = h->slot;
	size_t i, j, k;

	if (!s || !val)
		return SQK_ERR_NOENT;
	for (i = sqk_hash_home(h, key); s[i].key != key || s[i].val != val; i = (i + 1) & h->mask)
		if (!s[i].val)
			return SQK_ERR_NOENT;
	/*
	 * No tombstones: pull back every later entry of the run that may move
	 * into the hole, an entry whose home is not cyclically in (i, j].
	 */
	for (j = (i + 1) & h->mask; s[j].val; j = (j + 1) & h->mask) {
		k = sqk_hash_home(h, s[j].key);
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			s[i] = s[j];
			i = j;
		}
	}
	s[i].val = 0;
	h->count--;
	return 0;
}
