// SPDX-License-Identifier: BSD-2-Clause
/*
 * A map of 64-bit keys to values in a store: slots of a key and a value (0:
 * empty), probed linearly from where the table's hash puts the key, so that
 * a lookup touches one page of the store, or two.
 */
#include <string.h>

#include "error.h"
#include "hash.h"
#include "store.h"

struct slot {
	uint64_t key, val;
};

/* Slots read at a time while the table is copied into a larger one. */
#define BATCH 256

void sqk_store_hash_init(struct sqk_store_hash *h, struct sqk_spill *b)
{
	memset(h, 0, sizeof(*h));
	h->b = b;
}

void sqk_store_hash_release(struct sqk_store_hash *h)
{
	sqk_store_destroy(h->s);
	h->s = NULL;
	h->cap = h->count = 0;
}

static uint64_t home(uint64_t cap, uint64_t key)
{
	struct sqk_hash mask = {.mask = (size_t)(cap - 1)};

	return sqk_hash_home(&mask, key);
}

/* The slot of key, or of the empty slot where it would go: *i, and what it holds. */
static int probe(struct sqk_store *s, uint64_t cap, uint64_t key, uint64_t *i, struct slot *sl)
{
	int err;

	for (*i = home(cap, key);; *i = (*i + 1) & (cap - 1)) {
		err = sqk_store_get(s, *i, sl, sizeof(*sl));
		if (err || !sl->val || sl->key == key)
			return err;
	}
}

static int grow(struct sqk_store_hash *h)
{
	uint64_t cap = h->cap ? h->cap * 2 : 1024, i, j, k;
	struct slot batch[BATCH], sl;
	struct sqk_store *t;
	int err = sqk_store_create(h->b, 0, 0, &t);

	for (i = 0; !err && i < h->cap; i += BATCH) {
		err = sqk_store_read(h->s, i * sizeof(sl), batch, sizeof(batch));
		for (j = 0; !err && j < BATCH; j++) {
			if (!batch[j].val)
				continue;
			err = probe(t, cap, batch[j].key, &k, &sl);
			if (!err)
				err = sqk_store_put(t, k, &batch[j], sizeof(sl));
		}
	}
	if (err) {
		sqk_store_destroy(t);
		return err;
	}
	sqk_store_destroy(h->s);
	h->s = t;
	h->cap = cap;
	return 0;
}

int sqk_store_hash_get(struct sqk_store_hash *h, uint64_t key, uint64_t *val)
{
	struct slot sl;
	uint64_t i;
	int err;

	if (!h->cap)
		return 0;
	err = probe(h->s, h->cap, key, &i, &sl);
	if (err)
		return err;
	if (!sl.val)
		return 0;
	*val = sl.val;
	return 1;
}

int sqk_store_hash_set(struct sqk_store_hash *h, uint64_t key, uint64_t val)
{
	struct slot sl;
	uint64_t i;
	int err = 0;

	if ((h->count + 1) * 2 > h->cap)
		err = grow(h);
	if (!err)
		err = probe(h->s, h->cap, key, &i, &sl);
	if (err)
		return err;
	if (!sl.val)
		h->count++;
	sl.key = key;
	sl.val = val;
	return sqk_store_put(h->s, i, &sl, sizeof(sl));
}
