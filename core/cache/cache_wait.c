// SPDX-License-Identifier: BSD-2-Clause
/*
 * The three wait policies of the block cache.
 *
 * herd:      the kernel today. Waiters are non-exclusive: a release wakes
 *            all of them; a woken thread that finds no entry unused sleeps
 *            again without looking for its block.
 * exclusive: naive wake-one. A release wakes the oldest waiter. If that
 *            thread finds its block published meanwhile it shares it, and
 *            the freed entry stays unclaimed while others sleep.
 * keyed:     waiters are keyed by the block they want. A release wakes one
 *            waiter (capacity); publishing a block wakes every waiter for
 *            it (sharing); a capacity waiter that ends up sharing hands its
 *            wake on to the next waiter.
 *
 * Every sleeper has its own futex word, so each wake is counted exactly.
 * Sleeps are bounded: a waiter that sleeps stall_ms without a wake counts
 * a stall and looks again, so no policy can hang the program.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cache_internal.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sqk_cache_track_unclaimed(struct sqk_cache *c)
{
	int cond = c->unused > 0 && c->queued > 0;

	if (cond && !c->unclaimed_since) {
		c->unclaimed_since = now_ns();
	} else if (!cond && c->unclaimed_since) {
		c->stats.unclaimed_ns += now_ns() - c->unclaimed_since;
		c->unclaimed_since = 0;
	} else if (cond) {
		uint64_t t = now_ns();

		c->stats.unclaimed_ns += t - c->unclaimed_since;
		c->unclaimed_since = t;
	}
}

void sqk_waiter_init(struct sqk_waiter *w, uint64_t block, uint32_t info)
{
	w->next = w->prev = NULL;
	w->block = block;
	w->info = info;
	w->word = 0;
	w->reason = WAKE_NONE;
	w->queued = 0;
}

int sqk_waiter_sleep(struct sqk_waiter *w, unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (__atomic_load_n(&w->word, __ATOMIC_ACQUIRE) == 0) {
		long r = syscall(SYS_futex, &w->word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);

		if (r == -1 && errno == ETIMEDOUT)
			return __atomic_load_n(&w->word, __ATOMIC_ACQUIRE) ? 0 : -1;
	}
	return 0;
}

static void futex_wake(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void sqk_wake_batch_add(struct wake_batch *b, struct sqk_waiter *w)
{
	__atomic_store_n(&w->word, 1, __ATOMIC_RELEASE);
	if (b->n == WAKE_BATCH)
		futex_wake(&w->word); /* still under the lock: w cannot be gone */
	else
		b->word[b->n++] = &w->word;
}

void sqk_wake_batch_flush(struct wake_batch *b)
{
	unsigned i;

	for (i = 0; i < b->n; i++)
		futex_wake(b->word[i]);
	b->n = 0;
}

static void enqueue(struct sqk_cache *c, struct sqk_waiter *w)
{
	w->next = NULL;
	w->prev = c->tail;
	if (c->tail)
		c->tail->next = w;
	else
		c->head = w;
	c->tail = w;
	w->queued = 1;
	c->queued++;
	if (c->queued > c->stats.max_waiters)
		c->stats.max_waiters = c->queued;
	sqk_cache_track_unclaimed(c);
}

static void dequeue(struct sqk_cache *c, struct sqk_waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		c->head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		c->tail = w->prev;
	w->next = w->prev = NULL;
	w->queued = 0;
	c->queued--;
	sqk_cache_track_unclaimed(c);
}

/* Take w off the queue and mark it woken; it joins the wake batch. */
static void mark_woken(struct sqk_cache *c, struct sqk_waiter *w, int reason, struct wake_batch *b)
{
	dequeue(c, w);
	w->reason = reason;
	sqk_wake_batch_add(b, w);
	switch (reason) {
	case WAKE_CAPACITY:
		c->stats.wakeups_capacity++;
		break;
	case WAKE_PUBLISH:
		c->stats.wakeups_publish++;
		break;
	case WAKE_HANDOFF:
		c->stats.wakeups_handoff++;
		break;
	}
}

/*
 * Sleep once on the capacity queue. Lock held on entry and return.
 * Returns the wake reason, or WAKE_NONE after a stall.
 */
static int sleep_queued(struct sqk_cache *c, struct sqk_waiter *w)
{
	int r;

	c->stats.waits++;
	enqueue(c, w);
	sqk_cache_unlock(c);
	r = sqk_waiter_sleep(w, c->stall_ms);
	sqk_cache_lock(c);
	if (w->queued) {
		/* Timed out before anyone woke it. */
		dequeue(c, w);
		c->stats.stalls++;
		return WAKE_NONE;
	}
	(void)r;
	return w->reason;
}

/* herd: wait for "some entry unused"; woken, re-check only that. */
static int herd_wait(struct sqk_cache *c, uint64_t block, uint32_t info)
{
	struct sqk_waiter w;

	sqk_waiter_init(&w, block, info);
	for (;;) {
		int reason = sleep_queued(c, &w);

		if (reason == WAKE_NONE || c->unused > 0)
			return reason == WAKE_CAPACITY;
		/* Woken, but the entry was reclaimed: sleep again, no rescan. */
		c->stats.spurious++;
		sqk_waiter_init(&w, block, info);
	}
}

static void herd_released(struct sqk_cache *c)
{
	struct wake_batch b = {.n = 0};

	if (c->head) {
		c->stats.wake_calls++;
		c->stats.release_wakes++;
		while (c->head)
			mark_woken(c, c->head, WAKE_CAPACITY, &b);
	}
	sqk_cache_unlock(c);
	sqk_wake_batch_flush(&b);
}

static void nothing_published(struct sqk_cache *c, uint64_t block, uint32_t info)
{
}

static void nothing_shared(struct sqk_cache *c)
{
}

/* exclusive and keyed: sleep once, then the caller looks again. */
static int one_wait(struct sqk_cache *c, uint64_t block, uint32_t info)
{
	struct sqk_waiter w;
	int reason;

	sqk_waiter_init(&w, block, info);
	reason = sleep_queued(c, &w);
	/* Woken for capacity but none left: a wasted wakeup. */
	if (reason != WAKE_NONE && c->unused == 0)
		c->stats.spurious++;
	return reason == WAKE_CAPACITY || reason == WAKE_HANDOFF;
}

static void wake_one_released(struct sqk_cache *c)
{
	struct wake_batch b = {.n = 0};

	if (c->head) {
		c->stats.wake_calls++;
		c->stats.release_wakes++;
		mark_woken(c, c->head, WAKE_CAPACITY, &b);
	}
	sqk_cache_unlock(c);
	sqk_wake_batch_flush(&b);
}

static void keyed_published(struct sqk_cache *c, uint64_t block, uint32_t info)
{
	struct sqk_waiter *w = c->head, *next;
	struct wake_batch b = {.n = 0};

	for (; w; w = next) {
		next = w->next;
		if (w->block == block && w->info == info)
			mark_woken(c, w, WAKE_PUBLISH, &b);
	}
	if (b.n)
		c->stats.wake_calls++;
	/* Under the lock: the woken cannot return before they relock. */
	sqk_wake_batch_flush(&b);
}

static void keyed_shared(struct sqk_cache *c)
{
	struct wake_batch b = {.n = 0};

	if (c->unused > 0 && c->head) {
		c->stats.handoffs++;
		c->stats.wake_calls++;
		mark_woken(c, c->head, WAKE_HANDOFF, &b);
		sqk_wake_batch_flush(&b);
	}
}

static const struct cache_policy policies[] = {
	[SQK_WAIT_HERD] = {"herd", herd_wait, herd_released, nothing_published, nothing_shared},
	[SQK_WAIT_EXCLUSIVE] = {"exclusive", one_wait, wake_one_released, nothing_published,
				nothing_shared},
	[SQK_WAIT_KEYED] = {"keyed", one_wait, wake_one_released, keyed_published, keyed_shared},
};

const struct cache_policy *sqk_cache_policy_of(enum sqk_wait_policy p)
{
	if ((unsigned)p >= sizeof(policies) / sizeof(policies[0]))
		p = SQK_WAIT_KEYED;
	return &policies[p];
}

const char *sqk_policy_name(enum sqk_wait_policy p)
{
	return sqk_cache_policy_of(p)->name;
}

int sqk_policy_parse(const char *name, enum sqk_wait_policy *out)
{
	unsigned i;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		if (__builtin_strcmp(policies[i].name, name) == 0) {
			*out = (enum sqk_wait_policy)i;
			return 0;
		}
	}
	return -1;
}
