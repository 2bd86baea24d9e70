/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_CACHE_INTERNAL_H
#define SQK_CACHE_INTERNAL_H

/* Shared between cache.c (the cache) and cache_wait.c (its wait policies). */
#include <pthread.h>
#include <stdint.h>

#include "cache.h"
#include "util/hash.h"

/* A sleeping thread. Lives on its stack; woken through its own futex word. */
struct sqk_waiter {
	struct sqk_waiter *next, *prev;
	uint64_t block;
	uint32_t info;
	uint32_t word; /* 0 asleep, 1 woken */
	int reason;    /* why it was woken, WAKE_* */
	int queued;
};

enum { WAKE_NONE, WAKE_CAPACITY, WAKE_PUBLISH, WAKE_HANDOFF };

/*
 * A wait policy: what a thread does when no entry is free, and what a
 * release, a publication and a share do about the sleepers.
 */
struct cache_policy {
	const char *name;
	/* Lock held on entry and return; returns 1 if woken for capacity. */
	int (*wait)(struct sqk_cache *c, uint64_t block, uint32_t info);
	/* An entry was just freed; lock held, returns unlocked. */
	void (*released)(struct sqk_cache *c);
	/* A block was just assigned to an entry; lock held. */
	void (*published)(struct sqk_cache *c, uint64_t block, uint32_t info);
	/* A thread woken for capacity found its block and shared it; lock held. */
	void (*shared)(struct sqk_cache *c);
};

struct sqk_cache {
	pthread_mutex_t lock;
	const char *name;
	struct sqk_cache_entry *entry;
	unsigned entries, unused, curr_blk, next_blk;
	size_t block_size;
	const struct cache_policy *policy;
	enum sqk_wait_policy policy_id;
	enum sqk_lookup lookup;
	unsigned stall_ms;
	/* lookup by block position (SQK_LOOKUP_HASH): entry index + 1 */
	struct sqk_hash index;
	/* blocks ever filled, for refills */
	struct sqk_hash seen;
	/* capacity waiters, FIFO */
	struct sqk_waiter *head, *tail;
	unsigned queued;
	uint64_t unclaimed_since;
	struct sqk_cache_stats stats;
};

const struct cache_policy *sqk_cache_policy_of(enum sqk_wait_policy p);
void sqk_cache_lock(struct sqk_cache *c);
void sqk_cache_unlock(struct sqk_cache *c);
/* Account unclaimed-free time; call under the lock after every change. */
void sqk_cache_track_unclaimed(struct sqk_cache *c);

void sqk_waiter_init(struct sqk_waiter *w, uint64_t block, uint32_t info);
/* Sleep until woken or ms pass; 0 if woken, -1 on timeout. */
int sqk_waiter_sleep(struct sqk_waiter *w, unsigned ms);

/*
 * Futex words to wake. Words are set under the lock; the futex wakes are
 * issued after unlock, as the kernel wakes after spin_unlock. Only word
 * addresses are kept: a woken waiter may return (and its frame go) before
 * the wake is issued, and a wake on a word nobody waits on is harmless.
 */
#define WAKE_BATCH 64
struct wake_batch {
	uint32_t *word[WAKE_BATCH];
	unsigned n;
};

/* Set w's word and add it to b (waking at once, under the lock, if b is full). */
void sqk_wake_batch_add(struct wake_batch *b, struct sqk_waiter *w);
void sqk_wake_batch_flush(struct wake_batch *b);

#endif
