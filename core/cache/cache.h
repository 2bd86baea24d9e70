/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_CACHE_H
#define SQK_CACHE_H

/*
 * The shared block cache, modelled on the kernel's squashfs cache: a fixed
 * number of entries, each holding one decompressed block and a reference
 * count; lookup by block position; the fill runs outside the lock while
 * the entry is pending, and threads wanting the same block share that
 * fill. When every entry is in use a thread waits, and how it waits is the
 * wait policy (herd, exclusive or keyed), chosen at run time.
 */
#include <stddef.h>
#include <stdint.h>

enum sqk_wait_policy {
	SQK_WAIT_HERD,	    /* the kernel today: every release wakes every waiter */
	SQK_WAIT_EXCLUSIVE, /* naive wake-one */
	SQK_WAIT_KEYED,	    /* wake-one for capacity, wake-all for the published block */
};

enum sqk_lookup {
	SQK_LOOKUP_SCAN, /* linear scan, as the kernel */
	SQK_LOOKUP_HASH,
};

struct sqk_cache_entry {
	uint64_t block; /* position in the image; SQK_CACHE_NO_BLOCK when empty */
	uint32_t info;	/* the caller's second key part (e.g. the size word) */
	uint8_t *data;
	size_t length; /* decompressed bytes in data */
	uint64_t next; /* set by the fill: position of the following block */
	int error;     /* the fill's error, shared by everyone who waited for it */
	/* private to cache.c */
	int refcount;
	int pending;
	struct sqk_waiter *fill_waiters;
	struct sqk_cache *cache;
};

#define SQK_CACHE_NO_BLOCK UINT64_MAX

/*
 * Fill e->data (capacity: the cache's block size) for e->block/e->info;
 * set e->length (and e->next where it means something). Returns 0 or a
 * negative sqk_err. Runs in the calling thread without the cache lock.
 */
typedef int (*sqk_fill_fn)(void *arg, struct sqk_cache_entry *e);

struct sqk_cache_stats {
	uint64_t lookups, hits, shares; /* shares: hits on a pending fill */
	uint64_t fills, refills, errors, distinct;
	uint64_t releases, wake_calls;
	uint64_t release_wakes; /* releases that found sleepers and woke some */
	uint64_t wakeups_capacity, wakeups_publish, wakeups_handoff, wakeups_fill;
	uint64_t spurious, handoffs, stalls;
	uint64_t unclaimed_ns; /* a free entry sat unclaimed while threads slept */
	uint64_t waits, max_waiters;
	uint64_t lock_acquisitions, lock_contended;
	uint64_t held; /* bytes of the blocks the entries hold now (memory in use) */
};

struct sqk_cache;

struct sqk_cache *sqk_cache_create(const char *name, unsigned entries, size_t block_size,
				   enum sqk_wait_policy policy, enum sqk_lookup lookup);
void sqk_cache_destroy(struct sqk_cache *c);

/*
 * Get the block at (block, info), filling it with fill(arg, e) if it is not
 * cached. On success *out holds a reference to release with
 * sqk_cache_put(); on failure *out is NULL and the fill's error returns.
 */
int sqk_cache_get(struct sqk_cache *c, uint64_t block, uint32_t info, sqk_fill_fn fill, void *arg,
		  struct sqk_cache_entry **out);
void sqk_cache_put(struct sqk_cache_entry *e);
/*
 * Whether the block is cached or being filled now (a moment later it may
 * not be): a fill that could fetch several blocks at once stops before one
 * that is there. Counts no lookup.
 */
int sqk_cache_contains(struct sqk_cache *c, uint64_t block, uint32_t info);
/*
 * A fill that fetches several blocks at once (a run of a remote file)
 * claims the blocks after its own before it fetches them, so that threads
 * wanting one wait for that fetch rather than make their own: 0 and *out,
 * an entry pending for the caller, or -1 when the block is cached or being
 * filled, or no entry is free (it never waits). sqk_cache_publish() ends
 * it: e->data and e->length filled (err 0) or err for everyone who waited,
 * and the caller's reference dropped.
 */
int sqk_cache_reserve(struct sqk_cache *c, uint64_t block, uint32_t info,
		      struct sqk_cache_entry **out);
void sqk_cache_publish(struct sqk_cache_entry *e, int err);
/* The cache e belongs to. */
struct sqk_cache *sqk_cache_of(const struct sqk_cache_entry *e);

unsigned sqk_cache_entries(const struct sqk_cache *c);
void sqk_cache_stats(struct sqk_cache *c, struct sqk_cache_stats *out);

/* What the counters come to, the same for every front end that shows them. */
struct sqk_cache_rates {
	uint64_t wakeups;    /* for capacity, publication and hand-off together */
	double unclaimed_ms; /* unclaimed_ns in milliseconds */
	double per_block;    /* fills (decompressions) per distinct block */
	double per_release;  /* wakeups per release that woke anyone */
	double hit_ratio;    /* lookups served without a fill of their own */
};

void sqk_cache_rates(const struct sqk_cache_stats *s, struct sqk_cache_rates *r);
/* Add s into sum: the counters of several caches taken as one. */
void sqk_cache_stats_add(struct sqk_cache_stats *sum, const struct sqk_cache_stats *s);
/* How long a waiter sleeps before it counts a stall and looks again. */
void sqk_cache_set_stall_timeout(struct sqk_cache *c, unsigned ms);

/*
 * One counter of c by its `--stats --json` name ("hits", "wakeups", ...):
 * 0 and *value, or -1 for an unknown name. The names, NULL-terminated.
 */
int sqk_cache_counter(struct sqk_cache *c, const char *name, uint64_t *value);
const char *const *sqk_cache_counter_names(void);
/*
 * A rate of c by its `--stats --json` name ("unclaimed_free_ms",
 * "decompressions_per_block", "wakeups_per_release", or "hit_ratio"):
 * 0 and *value, or -1. The names --stats prints, NULL-terminated.
 */
int sqk_cache_rate(struct sqk_cache *c, const char *name, double *value);
const char *const *sqk_cache_rate_names(void);

const char *sqk_policy_name(enum sqk_wait_policy p);
/* 0 and *out, or -1 for an unknown name. */
int sqk_policy_parse(const char *name, enum sqk_wait_policy *out);

/*
 * The counters of struct sqk_cache_stats as X(name, field), by the names
 * `--stats --json` gives them, in two runs: the front end prints the three
 * kinds of wakeup together ("wakeups") between them.
 */
// clang-format off
#define SQK_CACHE_FIELDS_1(X)                                                                      \
	X(lookups, lookups) X(hits, hits) X(shares, shares) X(fills, fills)                        \
	X(refills, refills) X(errors, errors) X(distinct_blocks, distinct)                         \
	X(releases, releases) X(release_wakes, release_wakes) X(wake_calls, wake_calls)
#define SQK_CACHE_FIELDS_2(X)                                                                      \
	X(wakeups_capacity, wakeups_capacity) X(wakeups_publish, wakeups_publish)                  \
	X(wakeups_handoff, wakeups_handoff) X(wakeups_fill, wakeups_fill)                          \
	X(spurious_wakeups, spurious) X(handoffs, handoffs) X(stalls, stalls)                      \
	X(waits, waits) X(max_waiters, max_waiters)                                                \
	X(lock_acquisitions, lock_acquisitions) X(lock_contended, lock_contended)                  \
	X(held_bytes, held)
// clang-format on

#endif
