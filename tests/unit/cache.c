// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache under stress, once per wait policy: many threads, random
 * blocks, random hold times, a small cache. Every block's contents must be
 * right, no block may be filled twice at the same time, and the run must
 * end (an alarm turns a deadlock into a failure).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/cache.h"
#include "tap.h"

#define NBLOCKS 12
#define BLOCK	256
#define THREADS 16
#define ROUNDS	3000

static int filling[NBLOCKS];
static int overlap, bad_contents, failed_gets;

static void pattern(uint64_t block, uint8_t *buf)
{
	for (int i = 0; i < BLOCK; i++)
		buf[i] = (uint8_t)(block * 31 + (uint64_t)i);
}

static int fill(void *arg, struct sqk_cache_entry *e)
{
	unsigned *seed = arg;

	if (__atomic_add_fetch(&filling[e->block], 1, __ATOMIC_SEQ_CST) != 1)
		__atomic_add_fetch(&overlap, 1, __ATOMIC_SEQ_CST);
	if (rand_r(seed) % 4 == 0)
		usleep(rand_r(seed) % 200);
	pattern(e->block, e->data);
	e->length = BLOCK;
	__atomic_sub_fetch(&filling[e->block], 1, __ATOMIC_SEQ_CST);
	return 0;
}

static int fail_fill(void *arg, struct sqk_cache_entry *e)
{
	return -3;
}

struct worker {
	struct sqk_cache *cache;
	unsigned seed;
};

static void *run(void *p)
{
	struct worker *w = p;
	uint8_t want[BLOCK];

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t b = (uint64_t)(rand_r(&w->seed) % NBLOCKS);
		struct sqk_cache_entry *e;

		if (sqk_cache_get(w->cache, b, 7, fill, &w->seed, &e) != 0) {
			__atomic_add_fetch(&failed_gets, 1, __ATOMIC_SEQ_CST);
			continue;
		}
		pattern(b, want);
		if (e->length != BLOCK || memcmp(e->data, want, BLOCK) != 0)
			__atomic_add_fetch(&bad_contents, 1, __ATOMIC_SEQ_CST);
		if (rand_r(&w->seed) % 8 == 0)
			usleep(rand_r(&w->seed) % 100);
		sqk_cache_put(e);
	}
	return NULL;
}

static void stress(enum sqk_wait_policy policy, enum sqk_lookup lookup)
{
	struct sqk_cache *c = sqk_cache_create("test", 3, BLOCK, policy, lookup);
	struct worker w[THREADS];
	pthread_t t[THREADS];
	struct sqk_cache_stats st;

	overlap = bad_contents = failed_gets = 0;
	sqk_cache_set_stall_timeout(c, 50);
	for (int i = 0; i < THREADS; i++) {
		w[i].cache = c;
		w[i].seed = (unsigned)(i * 7919 + policy);
		pthread_create(&t[i], NULL, run, &w[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	sqk_cache_stats(c, &st);
	is_int(bad_contents, 0, "%s/%s: every block's contents are right", sqk_policy_name(policy),
	       lookup == SQK_LOOKUP_HASH ? "hash" : "scan");
	is_int(overlap, 0, "%s: no block filled twice at the same time", sqk_policy_name(policy));
	is_int(failed_gets, 0, "%s: no get failed", sqk_policy_name(policy));
	is_int(st.lookups, THREADS * ROUNDS, "%s: every get counted as a lookup",
	       sqk_policy_name(policy));
	is_int(st.hits + st.shares + st.fills, st.lookups, "%s: hits + shares + fills = lookups",
	       sqk_policy_name(policy));
	is_int(st.distinct, NBLOCKS, "%s: every block seen", sqk_policy_name(policy));
	is_int(st.fills, st.distinct + st.refills, "%s: fills = distinct + refills",
	       sqk_policy_name(policy));
	ok(st.waits > 0, "%s: threads did wait for entries (%llu waits)", sqk_policy_name(policy),
	   (unsigned long long)st.waits);
	if (policy == SQK_WAIT_HERD)
		ok(st.wakeups_capacity >= st.wake_calls, "herd: a wake call can wake many");
	if (policy == SQK_WAIT_KEYED)
		ok(st.handoffs <= st.wakeups_handoff, "keyed: every hand-off is a counted wakeup");
	sqk_cache_destroy(c);
}

static void basics(void)
{
	struct sqk_cache *c = sqk_cache_create("basic", 2, BLOCK, SQK_WAIT_KEYED, SQK_LOOKUP_SCAN);
	struct sqk_cache_entry *a, *b, *a2;
	struct sqk_cache_stats st;
	unsigned seed = 1;

	is_int(sqk_cache_get(c, 1, 0, fill, &seed, &a), 0, "get fills block 1");
	is_int(sqk_cache_get(c, 1, 0, fill, &seed, &a2), 0, "get of block 1 again");
	ok(a == a2, "the second get shares the first entry");
	sqk_cache_put(a2);
	is_int(sqk_cache_get(c, 2, 0, fill, &seed, &b), 0, "get fills block 2");
	sqk_cache_put(a);
	sqk_cache_put(b);
	is_int(sqk_cache_get(c, 3, 0, fail_fill, &seed, &a), -3, "a failed fill returns its error");
	ok(a == NULL, "and no entry");
	is_int(sqk_cache_get(c, 3, 0, fill, &seed, &a), 0, "a failed block is not cached");
	sqk_cache_put(a);
	is_int(sqk_cache_get(c, 3, 1, fill, &seed, &a), 0, "same position, other info: own entry");
	sqk_cache_put(a);
	sqk_cache_stats(c, &st);
	is_int(st.fills, 5, "five fills");
	is_int(st.hits, 1, "one hit");
	is_int(st.errors, 1, "one error");
	is_int(st.releases, 5, "five releases to refcount zero");
	{
		uint64_t locks = st.lock_acquisitions, v;
		double r;

		sqk_cache_stats(c, &st);
		is_int(st.lock_acquisitions, locks, "reading the counters does not count in them");
		ok(sqk_cache_counter(c, "lock_acquisitions", &v) == 0 && v == locks &&
			   sqk_cache_counter(c, "fills", &v) == 0 && v == 5 &&
			   sqk_cache_counter(c, "nonsense", &v) == -1,
		   "counters by name, one read at a time, are what one read gives");
		ok(sqk_cache_rate(c, "decompressions_per_block", &r) == 0 &&
			   r == 5.0 / st.distinct && sqk_cache_rate(c, "hit_ratio", &r) == 0 &&
			   r == (double)(st.hits + st.shares) / (double)st.lookups &&
			   sqk_cache_rate(c, "nonsense", &r) == -1,
		   "rates by name: fills per distinct block, the hit ratio");
	}
	sqk_cache_destroy(c);
}

struct getter {
	struct sqk_cache *c;
	uint64_t block;
	int err;
	uint8_t first;
};

/* A fill of its own would fail with -5 (a get that came after a failed publish). */
static int fail5_fill(void *arg, struct sqk_cache_entry *e)
{
	return -5;
}

static void *get_one(void *p)
{
	struct getter *g = p;
	struct sqk_cache_entry *e;
	unsigned seed = 3;

	g->err =
		sqk_cache_get(g->c, g->block, 0, g->block == 5 ? fail_fill : fail5_fill, &seed, &e);
	if (!g->err) {
		g->first = e->data[0];
		sqk_cache_put(e);
	}
	return NULL;
}

/* A block claimed for a fetch of several: others wait for it, then share it or its error. */
static void reserved(void)
{
	struct sqk_cache *c =
		sqk_cache_create("reserve", 2, BLOCK, SQK_WAIT_KEYED, SQK_LOOKUP_HASH);
	struct sqk_cache_entry *e, *f, *g;
	struct getter w = {c, 5, -1, 0};
	struct sqk_cache_stats st;
	pthread_t t;
	unsigned seed = 1;

	is_int(sqk_cache_reserve(c, 5, 0, &e), 0, "reserve claims a block that is not there");
	ok(sqk_cache_contains(c, 5, 0), "which is then there (pending)");
	is_int(sqk_cache_reserve(c, 5, 0, &f), -1, "a block pending is not reserved twice");
	pthread_create(&t, NULL, get_one, &w);
	usleep(20000);
	pattern(5, e->data);
	e->length = BLOCK;
	sqk_cache_publish(e, 0);
	pthread_join(t, NULL);
	is_int(w.err, 0, "a get made while it was pending shares it (its own fill would fail)");
	is_int(w.first, (int)(5 * 31), "and sees the published bytes");
	is_int(sqk_cache_reserve(c, 5, 0, &f), -1, "a cached block is not reserved");
	is_int(sqk_cache_get(c, 6, 0, fill, &seed, &f), 0, "one entry held");
	is_int(sqk_cache_reserve(c, 7, 0, &g), 0, "the other reserved");
	is_int(sqk_cache_reserve(c, 8, 0, &e), -1, "no entry free: refused, never waits");
	w.block = 7;
	pthread_create(&t, NULL, get_one, &w);
	usleep(20000);
	sqk_cache_publish(g, -5);
	pthread_join(t, NULL);
	is_int(w.err, -5, "a reserved fetch that fails gives its error to who waited");
	ok(!sqk_cache_contains(c, 7, 0), "and the block is not cached");
	sqk_cache_put(f);
	sqk_cache_stats(c, &st);
	is_int(st.fills, 3, "each reserve and fill counts as one fill");
	sqk_cache_destroy(c);
}

int main(void)
{
	enum sqk_wait_policy p;

	alarm(120);
	basics();
	reserved();
	ok(sqk_policy_parse("herd", &p) == 0 && p == SQK_WAIT_HERD, "policy names parse");
	ok(sqk_policy_parse("nonsense", &p) != 0, "unknown policy is refused");
	stress(SQK_WAIT_HERD, SQK_LOOKUP_SCAN);
	stress(SQK_WAIT_EXCLUSIVE, SQK_LOOKUP_SCAN);
	stress(SQK_WAIT_KEYED, SQK_LOOKUP_SCAN);
	stress(SQK_WAIT_KEYED, SQK_LOOKUP_HASH);
	return tap_done();
}
