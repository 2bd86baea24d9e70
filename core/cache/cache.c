// SPDX-License-Identifier: BSD-2-Clause
/*
 * The shared block cache. The structure follows the kernel's squashfs
 * cache (fs/squashfs/cache.c): fixed entries, round-robin eviction among
 * unused entries, fills outside the lock. What differs is that every
 * waiter sleeps on its own futex word, so each wake is a counted event,
 * and that the way a thread waits for a free entry is a policy (see
 * cache_wait.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cache_internal.h"
#include "util/error.h"
#include "util/hash.h"

/* The set of blocks ever filled, so a second fill counts as a refill. */
static int seen_insert(struct sqk_cache *c, uint64_t block)
{
	if (sqk_hash_get(&c->seen, block))
		return 1;
	return sqk_hash_add(&c->seen, block, 1) ? -1 : 0;
}

/*
 * The index by block position, for SQK_LOOKUP_HASH: entry index + 1. It
 * is reserved at creation for twice the entries, so adding never
 * allocates and the table stays at most a quarter full: every miss
 * removes one entry and adds one, and short runs keep removal cheap.
 */
static void hash_remove(struct sqk_cache *c, unsigned idx)
{
	sqk_hash_remove(&c->index, c->entry[idx].block, idx + 1);
}

static void hash_insert(struct sqk_cache *c, unsigned idx)
{
	sqk_hash_add(&c->index, c->entry[idx].block, idx + 1);
}

static struct sqk_cache_entry *lookup(struct sqk_cache *c, uint64_t block, uint32_t info)
{
	unsigned i, n;

	if (c->lookup == SQK_LOOKUP_HASH) {
		struct sqk_hash_iter it;
		uint64_t v;

		for (v = sqk_hash_first(&c->index, block, &it); v; v = sqk_hash_next(&it))
			if (c->entry[v - 1].info == info)
				return &c->entry[v - 1];
		return NULL;
	}
	for (i = c->curr_blk, n = 0; n < c->entries; n++) {
		if (c->entry[i].block == block && c->entry[i].info == info) {
			c->curr_blk = i;
			return &c->entry[i];
		}
		i = (i + 1) % c->entries;
	}
	return NULL;
}

/* Round-robin among unused entries, as the kernel chooses its victim. */
static struct sqk_cache_entry *claim(struct sqk_cache *c, uint64_t block, uint32_t info)
{
	unsigned i = c->next_blk, n;
	struct sqk_cache_entry *e;

	for (n = 0; n < c->entries; n++) {
		if (c->entry[i].refcount == 0)
			break;
		i = (i + 1) % c->entries;
	}
	c->next_blk = (i + 1) % c->entries;
	e = &c->entry[i];
	if (c->lookup == SQK_LOOKUP_HASH && e->block != SQK_CACHE_NO_BLOCK)
		hash_remove(c, i);
	c->unused--;
	e->block = block;
	e->info = info;
	e->refcount = 1;
	e->pending = 1;
	e->error = 0;
	e->length = 0;
	e->next = 0;
	if (c->lookup == SQK_LOOKUP_HASH)
		hash_insert(c, i);
	switch (seen_insert(c, block)) {
	case 1:
		c->stats.refills++;
		break;
	case 0:
		c->stats.distinct++;
		break;
	}
	sqk_cache_track_unclaimed(c);
	return e;
}

void sqk_cache_lock(struct sqk_cache *c)
{
	if (pthread_mutex_trylock(&c->lock) != 0) {
		pthread_mutex_lock(&c->lock);
		c->stats.lock_contended++;
	}
	c->stats.lock_acquisitions++;
}

void sqk_cache_unlock(struct sqk_cache *c)
{
	pthread_mutex_unlock(&c->lock);
}

/*
 * Wait, lock held, until the pending fill of e completes. w lives in the
 * caller's frame; the filler unlinks the whole list under the lock before
 * pending drops, so w is never left behind on e.
 */
static void wait_fill(struct sqk_cache *c, struct sqk_cache_entry *e, struct sqk_waiter *w)
{
	sqk_waiter_init(w, e->block, e->info);
	w->next = e->fill_waiters;
	e->fill_waiters = w;
	while (e->pending) {
		sqk_cache_unlock(c);
		sqk_waiter_sleep(w, c->stall_ms);
		sqk_cache_lock(c);
		if (e->pending && !__atomic_load_n(&w->word, __ATOMIC_ACQUIRE))
			c->stats.stalls++;
		__atomic_store_n(&w->word, 0, __ATOMIC_RELAXED);
	}
}

/* Fill done: wake everyone who shares it. Lock held; wakes after unlock. */
static void take_fill_waiters(struct sqk_cache *c, struct sqk_cache_entry *e, struct wake_batch *b)
{
	struct sqk_waiter *w = e->fill_waiters, *next;

	e->fill_waiters = NULL;
	if (w)
		c->stats.wake_calls++;
	for (; w; w = next) {
		next = w->next;
		c->stats.wakeups_fill++;
		sqk_wake_batch_add(b, w);
	}
}

int sqk_cache_reserve(struct sqk_cache *c, uint64_t block, uint32_t info,
		      struct sqk_cache_entry **out)
{
	sqk_cache_lock(c);
	if (lookup(c, block, info) || c->unused == 0) {
		sqk_cache_unlock(c);
		return -1;
	}
	*out = claim(c, block, info);
	c->policy->published(c, block, info);
	sqk_cache_unlock(c);
	return 0;
}

/* The fill of e ended with err: it is no longer pending, and whoever waited for it wakes. */
static void fill_done(struct sqk_cache *c, struct sqk_cache_entry *e, int err)
{
	struct wake_batch wake = {.n = 0};

	sqk_cache_lock(c);
	e->pending = 0;
	e->error = err;
	c->stats.fills++;
	if (err)
		c->stats.errors++;
	take_fill_waiters(c, e, &wake);
	sqk_cache_unlock(c);
	sqk_wake_batch_flush(&wake);
}

void sqk_cache_publish(struct sqk_cache_entry *e, int err)
{
	fill_done(e->cache, e, err);
	sqk_cache_put(e);
}

int sqk_cache_contains(struct sqk_cache *c, uint64_t block, uint32_t info)
{
	int found;

	sqk_cache_lock(c);
	found = lookup(c, block, info) != NULL;
	sqk_cache_unlock(c);
	return found;
}

int sqk_cache_get(struct sqk_cache *c, uint64_t block, uint32_t info, sqk_fill_fn fill, void *arg,
		  struct sqk_cache_entry **out)
{
	struct sqk_cache_entry *e;
	struct sqk_waiter fw;
	int woken_for_capacity = 0;
	int err;

	*out = NULL;
	sqk_cache_lock(c);
	c->stats.lookups++;
	for (;;) {
		e = lookup(c, block, info);
		if (e)
			break;
		if (c->unused == 0) {
			woken_for_capacity = c->policy->wait(c, block, info);
			continue;
		}
		e = claim(c, block, info);
		c->policy->published(c, block, info);
		sqk_cache_unlock(c);

		err = fill(arg, e);
		fill_done(c, e, err);
		if (err) {
			sqk_cache_put(e);
			return err;
		}
		*out = e;
		return 0;
	}

	/* The block is cached, or being filled: share it. */
	if (e->refcount == 0) {
		c->unused--;
		sqk_cache_track_unclaimed(c);
	}
	e->refcount++;
	if (woken_for_capacity)
		c->policy->shared(c);
	if (e->pending) {
		c->stats.shares++;
		wait_fill(c, e, &fw);
	} else {
		c->stats.hits++;
	}
	err = e->error;
	sqk_cache_unlock(c);
	if (err) {
		sqk_cache_put(e);
		return err;
	}
	*out = e;
	return 0;
}

void sqk_cache_put(struct sqk_cache_entry *e)
{
	struct sqk_cache *c;

	if (!e)
		return;
	c = e->cache;
	sqk_cache_lock(c);
	if (--e->refcount == 0) {
		/* A failed fill must not be found again. */
		if (e->error) {
			unsigned idx = (unsigned)(e - c->entry);

			if (c->lookup == SQK_LOOKUP_HASH)
				hash_remove(c, idx);
			e->block = SQK_CACHE_NO_BLOCK;
		}
		c->unused++;
		c->stats.releases++;
		sqk_cache_track_unclaimed(c);
		c->policy->released(c); /* unlocks */
		return;
	}
	sqk_cache_unlock(c);
}

struct sqk_cache *sqk_cache_of(const struct sqk_cache_entry *e)
{
	return e->cache;
}

struct sqk_cache *sqk_cache_create(const char *name, unsigned entries, size_t block_size,
				   enum sqk_wait_policy policy, enum sqk_lookup lookup_mode)
{
	struct sqk_cache *c;
	unsigned i;

	if (entries == 0 || block_size == 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = name;
	c->entries = entries;
	c->unused = entries;
	c->block_size = block_size;
	c->policy = sqk_cache_policy_of(policy);
	c->policy_id = policy;
	c->lookup = lookup_mode;
	c->stall_ms = 1000;
	pthread_mutex_init(&c->lock, NULL);
	c->entry = calloc(entries, sizeof(*c->entry));
	if (!c->entry || sqk_hash_reserve(&c->index, 2 * (size_t)entries))
		goto fail;
	for (i = 0; i < entries; i++) {
		c->entry[i].block = SQK_CACHE_NO_BLOCK;
		c->entry[i].cache = c;
		c->entry[i].data = malloc(block_size);
		if (!c->entry[i].data)
			goto fail;
	}
	return c;
fail:
	sqk_cache_destroy(c);
	return NULL;
}

void sqk_cache_destroy(struct sqk_cache *c)
{
	unsigned i;

	if (!c)
		return;
	for (i = 0; c->entry && i < c->entries; i++)
		free(c->entry[i].data);
	free(c->entry);
	sqk_hash_release(&c->index);
	sqk_hash_release(&c->seen);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

unsigned sqk_cache_entries(const struct sqk_cache *c)
{
	return c->entries;
}

void sqk_cache_set_stall_timeout(struct sqk_cache *c, unsigned ms)
{
	c->stall_ms = ms ? ms : 1;
}

void sqk_cache_stats(struct sqk_cache *c, struct sqk_cache_stats *out)
{
	unsigned i;

	sqk_cache_lock(c);
	/*
	 * Reading the counters leaves no trace in them: the lock taken here is
	 * not counted, so that a reader asking for one counter at a time (the
	 * public API's) sees what one read would.
	 */
	c->stats.lock_acquisitions--;
	sqk_cache_track_unclaimed(c);
	*out = c->stats;
	out->held = 0;
	for (i = 0; i < c->entries; i++)
		if (c->entry[i].block != SQK_CACHE_NO_BLOCK && !c->entry[i].pending)
			out->held += c->entry[i].length;
	sqk_cache_unlock(c);
}
