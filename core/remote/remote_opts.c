// SPDX-License-Identifier: BSD-2-Clause
/* The settings of a remote file, and its counters by name. */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "remote.h"
#include "util/error.h"

void sqk_remote_opts_default(struct sqk_remote_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cache_max = 1ull << 30;
	o->timeout_s = 30;
	o->retries = 4;
	o->connections = 8;
	o->policy = SQK_WAIT_KEYED;
}

int sqk_remote_opts_header(struct sqk_remote_opts *o, const char *line)
{
	size_t have = strlen(o->headers), n = strlen(line);
	const char *colon = strchr(line, ':');

	/* "Name: value", one line: a newline would smuggle in a header of its own. */
	if (!colon || colon == line || strpbrk(line, "\r\n"))
		return SQK_ERR_ARG;
	if (have + n + 2 > sizeof(o->headers))
		return SQK_ERR_OVERFLOW;
	memcpy(o->headers + have, line, n);
	o->headers[have + n] = '\n';
	o->headers[have + n + 1] = '\0';
	return 0;
}

static const char *const names[] = {
	"requests",  "bytes_fetched",  "retries",	  "blocks_fetched",
	"disk_hits", "fetches_shared", "distinct_blocks", NULL};

const char *const *sqk_remote_stat_names(void)
{
	return names;
}

int sqk_remote_stat(const struct sqk_remote_stats *s, const char *name, uint64_t *v)
{
	const uint64_t of[] = {s->requests,  s->bytes_fetched, s->retries, s->blocks,
			       s->disk_hits, s->shared,	       s->distinct};
	size_t i;

	for (i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0) {
			*v = of[i];
			return 0;
		}
	return -1;
}
