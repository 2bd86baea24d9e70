// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cmd.h"
#include "error.h"
#include "imageopt.h"
#include "offset.h"

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

int sqk_cache_option(const char *arg, struct sqk_image_opts *o)
{
	if (sqk_parse_cache_opt(arg, o) != 0) {
		sqk_usage_error("invalid cache sizes '%s'", arg);
		return -1;
	}
	return 0;
}

int sqk_policy_option(const char *arg, struct sqk_image_opts *o)
{
	if (sqk_policy_parse(arg, &o->policy) != 0) {
		sqk_usage_error("unknown cache policy '%s'", arg);
		return -1;
	}
	return 0;
}

/* The --offset setting: one per process, as each command opens one image. */
static uint64_t offset;
static int offset_auto, offset_quiet;

int sqk_offset_option(const char *arg)
{
	offset_auto = strcmp(arg, "auto") == 0;
	if (!offset_auto && sqk_parse_size(arg, &offset) != 0) {
		sqk_usage_error("invalid offset '%s'", arg);
		return -1;
	}
	return 0;
}

void sqk_offset_quiet(int quiet)
{
	offset_quiet = quiet;
}

/* Where --offset auto finds the one image in f: 0, or -1 after saying why. */
static int find_offset(const char *path, struct sqk_file *f, uint64_t *at_out)
{
	uint64_t at[2];
	unsigned n;
	int err = sqk_find_images(f, at, &n);

	if (err) {
		sqk_error_code(path, err);
		return -1;
	}
	if (n == 0) {
		sqk_error(path, "no SquashFS image found");
		return -1;
	}
	if (n > 1) {
		sqk_error(
			path,
			"%u SquashFS superblocks found (at %llu, %llu%s): choose one with --offset",
			n, (unsigned long long)at[0], (unsigned long long)at[1],
			n > 2 ? ", ..." : "");
		return -1;
	}
	if (!offset_quiet)
		sqk_error(path, "image found at offset %llu", (unsigned long long)at[0]);
	*at_out = at[0];
	return 0;
}

struct sqk_file *sqk_open_image_file(const char *path)
{
	struct sqk_file *f, *w;
	uint64_t at = offset;
	int err = 0;

	errno = 0;
	f = sqk_file_open(path, SQK_FILE_READ, &err);
	if (!f) {
		sqk_error_code(path, err);
		return NULL;
	}
	if (offset_auto) {
		if (find_offset(path, f, &at) != 0) {
			sqk_file_destroy(f);
			return NULL;
		}
		/* bench opens the image again for every run: search and say it once. */
		offset = at;
		offset_auto = 0;
	}
	if (at == 0)
		return f;
	if (at >= f->size(f)) {
		sqk_error(path, "offset %llu is past the end of the file", (unsigned long long)at);
		sqk_file_destroy(f);
		return NULL;
	}
	w = sqk_file_window(f, at);
	if (!w) {
		sqk_error_code(path, SQK_ERR_NOMEM);
		sqk_file_destroy(f);
	}
	return w;
}

struct sqk_image *sqk_open_image(const char *path, const struct sqk_image_opts *o)
{
	struct sqk_image *img;
	struct sqk_file *f = sqk_open_image_file(path);
	int err;

	if (!f)
		return NULL;
	err = sqk_image_open(f, o, &img);
	if (err) {
		sqk_error_code(path, err);
		return NULL;
	}
	return img;
}

const char *sqk_image_err_text(struct sqk_image *img, int err)
{
	int e = img ? sqk_image_file(img)->errnum : 0;

	if (err == SQK_ERR_IO)
		return strerror(e ? e : EIO);
	return sqk_strerror(err);
}

const char *sqk_fault_text(const struct sqk_fault *f, struct sqk_image *img)
{
	if (*f->what)
		return f->what;
	if (f->errnum)
		return strerror(f->errnum);
	if (f->err == SQK_ERR_NOSPACE)
		return strerror(ENOSPC);
	if (f->output && f->err == SQK_ERR_IO)
		return strerror(EIO);
	return sqk_image_err_text(img, f->err);
}

void sqk_report_fault(const char *image, struct sqk_image *img, const char *out, int out_is_dir,
		      const struct sqk_fault *f)
{
	fprintf(stderr, "squashkit %s: ", sqk_cmd_name);
	if (f->output && out) {
		size_t len = strlen(out);

		if (strcmp(out, "-") == 0) {
			fputs("stdout", stderr);
		} else if (out_is_dir && *f->path) {
			/* "dest/" and "/a" make "dest/a". */
			while (len > 1 && out[len - 1] == '/')
				len--;
			fwrite(out, 1, len, stderr);
			sqk_print_escaped(stderr, f->path);
		} else {
			fputs(out, stderr);
		}
	} else {
		fputs(image, stderr);
		if (*f->path) {
			fputs(": ", stderr);
			sqk_print_escaped(stderr, f->path);
		}
	}
	fprintf(stderr, ": %s\n", sqk_fault_text(f, img));
}

static const char *const cache_keys[] = {"metadata", "fragment", "data", "compressed"};

/* The counters of one cache, by name: integers, then three rates. */
// clang-format off
#define CACHE_COUNTERS(X)                                                                          \
	X(entries, sqk_cache_entries(c))                                                           \
	X(lookups, s.lookups) X(hits, s.hits) X(shares, s.shares) X(fills, s.fills)                \
	X(refills, s.refills) X(errors, s.errors) X(distinct_blocks, s.distinct)                   \
	X(releases, s.releases) X(release_wakes, s.release_wakes) X(wake_calls, s.wake_calls)      \
	X(wakeups, r.wakeups)                                                                      \
	X(wakeups_capacity, s.wakeups_capacity) X(wakeups_publish, s.wakeups_publish)              \
	X(wakeups_handoff, s.wakeups_handoff) X(wakeups_fill, s.wakeups_fill)                      \
	X(spurious_wakeups, s.spurious) X(handoffs, s.handoffs) X(stalls, s.stalls)                \
	X(waits, s.waits) X(max_waiters, s.max_waiters)                                            \
	X(lock_acquisitions, s.lock_acquisitions) X(lock_contended, s.lock_contended)
// clang-format on

/* What one cache's rates are made of. */
struct rates {
	uint64_t wakeups;
	double unclaimed_ms, per_block, per_release;
};

static void cache_rates(const struct sqk_cache_stats *s, struct rates *r)
{
	r->wakeups = s->wakeups_capacity + s->wakeups_publish + s->wakeups_handoff;
	r->unclaimed_ms = (double)s->unclaimed_ns / 1e6;
	r->per_block = s->distinct ? (double)s->fills / (double)s->distinct : 0.0;
	r->per_release = s->release_wakes ? (double)r->wakeups / (double)s->release_wakes : 0.0;
}

/* Every thread's context switches, the finished workers' included. */
static void usage_of_self(struct rusage *ru)
{
	memset(ru, 0, sizeof(*ru));
	getrusage(RUSAGE_SELF, ru);
}

void sqk_print_stats(FILE *out, struct sqk_image *img)
{
	struct rusage ru;
	int i;

	usage_of_self(&ru);
	fprintf(out, "decompressions: %llu\ncontext switches: %ld voluntary, %ld involuntary\n",
		(unsigned long long)sqk_image_decompressions(img), ru.ru_nvcsw, ru.ru_nivcsw);
	for (i = 0; i < SQK_CACHE_COUNT; i++) {
		struct sqk_cache *c = sqk_image_cache(img, i);
		struct sqk_cache_stats s;
		struct rates r;

		if (!c)
			continue;
		sqk_cache_stats(c, &s);
		cache_rates(&s, &r);
		fprintf(out, "%s cache:\n", cache_keys[i]);
#define TX(k, v) fprintf(out, "  %-20s %llu\n", #k, (unsigned long long)(v));
		CACHE_COUNTERS(TX)
		fprintf(out, "  %-20s %.3f\n  %-20s %.3f\n  %-20s %.3f\n", "unclaimed_free_ms",
			r.unclaimed_ms, "decomp_per_block", r.per_block, "wakeups_per_release",
			r.per_release);
	}
}

void sqk_print_stats_json(struct sqk_json *j, struct sqk_image *img)
{
	struct rusage ru;
	int i;

	usage_of_self(&ru);
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "decompressions", sqk_image_decompressions(img));
	sqk_json_key(j, "vcsw");
	sqk_json_int(j, ru.ru_nvcsw);
	sqk_json_key(j, "ivcsw");
	sqk_json_int(j, ru.ru_nivcsw);
	sqk_json_key(j, "caches");
	sqk_json_begin_object(j, 0);
	for (i = 0; i < SQK_CACHE_COUNT; i++) {
		struct sqk_cache *c = sqk_image_cache(img, i);
		struct sqk_cache_stats s;
		struct rates r;

		if (!c)
			continue;
		sqk_cache_stats(c, &s);
		cache_rates(&s, &r);
		sqk_json_key(j, cache_keys[i]);
		sqk_json_begin_object(j, 0);
#define JX(k, v) sqk_json_key_uint(j, #k, (v));
		CACHE_COUNTERS(JX)
		sqk_json_key_double(j, "unclaimed_free_ms", r.unclaimed_ms, 3);
		sqk_json_key_double(j, "decompressions_per_block", r.per_block, 3);
		sqk_json_key_double(j, "wakeups_per_release", r.per_release, 3);
		sqk_json_end_object(j);
	}
	sqk_json_end_object(j);
	sqk_json_end_object(j);
}

void sqk_print_stats_as(FILE *out, struct sqk_image *img, int json)
{
	struct sqk_json j;

	if (!json) {
		sqk_print_stats(out, img);
		return;
	}
	sqk_json_init_file(&j, out);
	sqk_print_stats_json(&j, img);
	sqk_json_finish(&j);
}
