// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cmd.h"
#include "error.h"
#include "imageopt.h"
#include "show.h"

int sqk_parse_cache_opt(const char *s, struct sqk_image_opts *o)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v;

		if (!eq || sqk_parse_uint(eq + 1, 65536, &v) != 0 || v == 0) {
			ret = -1;
			break;
		}
		*eq = '\0';
		if (strcmp(tok, "meta") == 0)
			o->meta_entries = (unsigned)v;
		else if (strcmp(tok, "frag") == 0)
			o->frag_entries = (unsigned)v;
		else if (strcmp(tok, "data") == 0)
			o->data_entries = (unsigned)v;
		else if (strcmp(tok, "comp") == 0)
			o->comp_entries = (unsigned)v;
		else {
			ret = -1;
			break;
		}
	}
	free(copy);
	return ret;
}

struct sqk_image *sqk_open_image(const char *path, const struct sqk_image_opts *o)
{
	struct sqk_image *img;
	struct sqk_file *f;
	int err = 0;

	errno = 0;
	f = sqk_file_open(path, SQK_FILE_READ, &err);
	if (!f) {
		sqk_error_code(path, err);
		return NULL;
	}
	err = sqk_image_open(f, o, &img);
	if (err) {
		sqk_error_code(path, err);
		return NULL;
	}
	return img;
}

void sqk_print_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			fputs("\\\\", out);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

void sqk_print_json_string(FILE *out, const char *s, size_t len)
{
	/* One JSON string writer for every command: valid UTF-8 passes through. */
	sqk_json_bytes(out, s, len);
}

static const char *const cache_keys[] = {"metadata", "fragment", "data", "compressed"};

void sqk_print_stats(FILE *out, struct sqk_image *img, int json)
{
	int i;

	struct rusage ru;

	/* Every thread's context switches, the finished workers' included. */
	memset(&ru, 0, sizeof(ru));
	getrusage(RUSAGE_SELF, &ru);
	if (json)
		fprintf(out, "{\"decompressions\":%llu,\"vcsw\":%ld,\"ivcsw\":%ld,\"caches\":{",
			(unsigned long long)sqk_image_decompressions(img), ru.ru_nvcsw,
			ru.ru_nivcsw);
	else
		fprintf(out,
			"decompressions: %llu\ncontext switches: %ld voluntary, %ld involuntary\n",
			(unsigned long long)sqk_image_decompressions(img), ru.ru_nvcsw,
			ru.ru_nivcsw);
	for (i = 0; i < SQK_CACHE_COUNT; i++) {
		struct sqk_cache *c = sqk_image_cache(img, i);
		struct sqk_cache_stats s;
		uint64_t wakeups;
		double per_block, per_release;

		if (!c)
			continue;
		sqk_cache_stats(c, &s);
		wakeups = s.wakeups_capacity + s.wakeups_publish + s.wakeups_handoff;
		per_block = s.distinct ? (double)s.fills / (double)s.distinct : 0.0;
		per_release = s.release_wakes ? (double)wakeups / (double)s.release_wakes : 0.0;
#define FIELDS(X)                                                                                  \
	X(entries, sqk_cache_entries(c))                                                           \
	X(lookups, s.lookups) X(hits, s.hits) X(shares, s.shares) X(fills, s.fills)                \
	X(refills, s.refills) X(errors, s.errors) X(distinct_blocks, s.distinct)                   \
	X(releases, s.releases) X(release_wakes, s.release_wakes) X(wake_calls, s.wake_calls)      \
	X(wakeups, wakeups)                                                                        \
	X(wakeups_capacity, s.wakeups_capacity) X(wakeups_publish, s.wakeups_publish)              \
	X(wakeups_handoff, s.wakeups_handoff) X(wakeups_fill, s.wakeups_fill)                      \
	X(spurious_wakeups, s.spurious) X(handoffs, s.handoffs) X(stalls, s.stalls)                \
	X(waits, s.waits) X(max_waiters, s.max_waiters)                                            \
	X(lock_acquisitions, s.lock_acquisitions) X(lock_contended, s.lock_contended)
		if (json) {
			fprintf(out, "%s\"%s\":{", i ? "," : "", cache_keys[i]);
#define JX(k, v) fprintf(out, "\"" #k "\":%llu,", (unsigned long long)(v));
			FIELDS(JX)
			fprintf(out,
				"\"unclaimed_free_ms\":%.3f,\"decompressions_per_block\":%.3f,"
				"\"wakeups_per_release\":%.3f}",
				(double)s.unclaimed_ns / 1e6, per_block, per_release);
		} else {
			fprintf(out, "%s cache:\n", cache_keys[i]);
#define TX(k, v) fprintf(out, "  %-20s %llu\n", #k, (unsigned long long)(v));
			FIELDS(TX)
			fprintf(out, "  %-20s %.3f\n  %-20s %.3f\n  %-20s %.3f\n",
				"unclaimed_free_ms", (double)s.unclaimed_ns / 1e6,
				"decomp_per_block", per_block, "wakeups_per_release", per_release);
		}
	}
	if (json)
		fprintf(out, "}}\n");
}
