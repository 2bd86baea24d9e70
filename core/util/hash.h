/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_HASH_H
#define SQK_HASH_H

/*
 * The one hash table: 64-bit keys to nonzero 64-bit values, open
 * addressing with linear probing, at most half full. A key may carry
 * several values, which serves both kinds of user:
 * - exact keys (a block position, an inode number, an id): the key is the
 *   thing itself and the value what it maps to;
 * - content (file data, a name in a directory, an xattr set): the key is
 *   the caller's hash of it and the value points at the candidate, which
 *   the caller compares itself while walking the key's values.
 * Values are often an index + 1 or a pointer cast to uintptr_t; 0 marks an
 * empty slot. Lookups are inline: the block cache looks up under its lock.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_hash_slot {
	uint64_t key;
	uint64_t val; /* 0: empty */
};

struct sqk_hash {
	struct sqk_hash_slot *slot;
	size_t mask; /* slots - 1, when slot is not NULL */
	size_t count;
};

/* A key's values, in probe order: for (v = first(); v; v = next()). */
struct sqk_hash_iter {
	const struct sqk_hash *h;
	uint64_t key;
	size_t i;
};

/* An empty table allocates nothing; zeroed memory is one too. */
void sqk_hash_init(struct sqk_hash *h);
void sqk_hash_release(struct sqk_hash *h);
/* Room for n entries, so that adding up to n never allocates (or fails). */
int sqk_hash_reserve(struct sqk_hash *h, size_t n);
/* Add val (nonzero) under key, beside any values it has; 0 or SQK_ERR_NOMEM. */
int sqk_hash_add(struct sqk_hash *h, uint64_t key, uint64_t val);
/* Remove the entry (key, val); SQK_ERR_NOENT when there is none. */
int sqk_hash_remove(struct sqk_hash *h, uint64_t key, uint64_t val);

/*
 * Spread the key over the slots: a full 64-bit finalizer (two multiplies).
 * Linear probing needs it; one multiply maps an arithmetic run of keys,
 * such as block positions, to runs of neighbouring slots.
 */
static inline size_t sqk_hash_home(const struct sqk_hash *h, uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	key ^= key >> 33;
	return (size_t)key & h->mask;
}

static inline uint64_t sqk_hash_next(struct sqk_hash_iter *it)
{
	const struct sqk_hash_slot *s = it->h->slot;
	size_t mask = it->h->mask, i;

	for (i = it->i; s[i].val; i = (i + 1) & mask) {
		if (s[i].key == it->key) {
			it->i = (i + 1) & mask;
			return s[i].val;
		}
	}
	it->i = i;
	return 0;
}

/* The key's first value, or 0; sqk_hash_next gives the others. */
static inline uint64_t sqk_hash_first(const struct sqk_hash *h, uint64_t key,
				      struct sqk_hash_iter *it)
{
	it->h = h;
	it->key = key;
	if (!h->slot)
		return 0;
	it->i = sqk_hash_home(h, key);
	return sqk_hash_next(it);
}

/* The key's first value, or 0: for keys that carry one value. */
static inline uint64_t sqk_hash_get(const struct sqk_hash *h, uint64_t key)
{
	struct sqk_hash_iter it;

	return sqk_hash_first(h, key, &it);
}

#endif
