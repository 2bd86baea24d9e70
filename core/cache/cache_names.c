// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counters of a cache by the names `--stats --json` gives them, for
 * callers that ask for one by name (the public API).
 */
#include <stddef.h>
#include <string.h>

#include "cache.h"

#define FIELD(name, field) {#name, offsetof(struct sqk_cache_stats, field)}
static const struct {
	const char *name;
	size_t at;
} fields[] = {
	FIELD(lookups, lookups),
	FIELD(hits, hits),
	FIELD(shares, shares),
	FIELD(fills, fills),
	FIELD(refills, refills),
	FIELD(errors, errors),
	FIELD(distinct_blocks, distinct),
	FIELD(releases, releases),
	FIELD(release_wakes, release_wakes),
	FIELD(wake_calls, wake_calls),
	FIELD(wakeups_capacity, wakeups_capacity),
	FIELD(wakeups_publish, wakeups_publish),
	FIELD(wakeups_handoff, wakeups_handoff),
	FIELD(wakeups_fill, wakeups_fill),
	FIELD(spurious_wakeups, spurious),
	FIELD(handoffs, handoffs),
	FIELD(stalls, stalls),
	FIELD(waits, waits),
	FIELD(max_waiters, max_waiters),
	FIELD(lock_acquisitions, lock_acquisitions),
	FIELD(lock_contended, lock_contended),
	FIELD(held_bytes, held),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* The names above, "entries", and "wakeups": capacity, publish and handoff together. */
static const char *const names[NFIELDS + 3] = {
	"entries",	    "lookups",		 "hits",	     "shares",
	"fills",	    "refills",		 "errors",	     "distinct_blocks",
	"releases",	    "release_wakes",	 "wake_calls",	     "wakeups",
	"wakeups_capacity", "wakeups_publish",	 "wakeups_handoff",  "wakeups_fill",
	"spurious_wakeups", "handoffs",		 "stalls",	     "waits",
	"max_waiters",	    "lock_acquisitions", "lock_contended",   "held_bytes",
	NULL,
};

const char *const *sqk_cache_counter_names(void)
{
	return names;
}

int sqk_cache_counter(struct sqk_cache *c, const char *name, uint64_t *value)
{
	struct sqk_cache_stats s;
	size_t i;

	sqk_cache_stats(c, &s);
	if (!strcmp(name, "entries")) {
		*value = sqk_cache_entries(c);
		return 0;
	}
	if (!strcmp(name, "wakeups")) {
		*value = s.wakeups_capacity + s.wakeups_publish + s.wakeups_handoff;
		return 0;
	}
	for (i = 0; i < NFIELDS; i++)
		if (!strcmp(name, fields[i].name)) {
			*value = *(const uint64_t *)((const char *)&s + fields[i].at);
			return 0;
		}
	return -1;
}
