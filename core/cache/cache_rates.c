// SPDX-License-Identifier: BSD-2-Clause
/*
 * The rates made of a cache's counters. Every front end that shows them
 * (--stats, bench) takes them from here, so that a rate means the same
 * thing wherever it is printed.
 */
#include "cache.h"

void sqk_cache_stats_add(struct sqk_cache_stats *sum, const struct sqk_cache_stats *s)
{
	sum->lookups += s->lookups;
	sum->hits += s->hits;
	sum->shares += s->shares;
	sum->fills += s->fills;
	sum->refills += s->refills;
	sum->errors += s->errors;
	sum->distinct += s->distinct;
	sum->releases += s->releases;
	sum->wake_calls += s->wake_calls;
	sum->release_wakes += s->release_wakes;
	sum->wakeups_capacity += s->wakeups_capacity;
	sum->wakeups_publish += s->wakeups_publish;
	sum->wakeups_handoff += s->wakeups_handoff;
	sum->wakeups_fill += s->wakeups_fill;
	sum->spurious += s->spurious;
	sum->handoffs += s->handoffs;
	sum->stalls += s->stalls;
	sum->unclaimed_ns += s->unclaimed_ns;
	sum->waits += s->waits;
	/* The most waiters at once of any of them: the sum would mean nothing. */
	if (s->max_waiters > sum->max_waiters)
		sum->max_waiters = s->max_waiters;
	sum->lock_acquisitions += s->lock_acquisitions;
	sum->lock_contended += s->lock_contended;
	sum->held += s->held;
}

void sqk_cache_rates(const struct sqk_cache_stats *s, struct sqk_cache_rates *r)
{
	/* A wakeup that a fill's own waiters get is no release's doing. */
	r->wakeups = s->wakeups_capacity + s->wakeups_publish + s->wakeups_handoff;
	r->unclaimed_ms = (double)s->unclaimed_ns / 1e6;
	r->per_block = s->distinct ? (double)s->fills / (double)s->distinct : 0.0;
	r->per_release = s->release_wakes ? (double)r->wakeups / (double)s->release_wakes : 0.0;
	r->hit_ratio = s->lookups ? (double)(s->hits + s->shares) / (double)s->lookups : 0.0;
}
