// SPDX-License-Identifier: BSD-2-Clause
/*
 * The counters of a cache and the rates made of them by the names
 * `--stats --json` gives them, for callers that ask for one by name (the
 * public API).
 */
#include <stddef.h>
#include <string.h>

#include "cache.h"

// clang-format off
#define COUNTERS(X) SQK_CACHE_FIELDS_1(X) SQK_CACHE_FIELDS_2(X)
#define FIELD(name, field) {#name, offsetof(struct sqk_cache_stats, field)},
#define NAME(name, field) #name,
// clang-format on

static const struct {
	const char *name;
	size_t at;
} fields[] = {COUNTERS(FIELD)};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/*
 * "entries", the fields' names, and "wakeups" (capacity, publish and
 * handoff together) between their two runs: the order `--stats` prints.
 */
static const char *const names[] = {"entries", SQK_CACHE_FIELDS_1(NAME) "wakeups",
				    SQK_CACHE_FIELDS_2(NAME) NULL};

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

/* The rates --stats prints; sqk_cache_rate() takes hit_ratio too. */
static const char *const rate_names[] = {"unclaimed_free_ms", "decompressions_per_block",
					 "wakeups_per_release", NULL};

const char *const *sqk_cache_rate_names(void)
{
	return rate_names;
}

int sqk_cache_rate(struct sqk_cache *c, const char *name, double *value)
{
	struct sqk_cache_stats s;
	struct sqk_cache_rates r;

	sqk_cache_stats(c, &s);
	sqk_cache_rates(&s, &r);
	if (!strcmp(name, "unclaimed_free_ms"))
		*value = r.unclaimed_ms;
	else if (!strcmp(name, "decompressions_per_block"))
		*value = r.per_block;
	else if (!strcmp(name, "wakeups_per_release"))
		*value = r.per_release;
	else if (!strcmp(name, "hit_ratio"))
		*value = r.hit_ratio;
	else
		return -1;
	return 0;
}
