// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <squashkit/squashkit.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cmd.h"
#include "imageopt.h"
#include "show.h"
#include "util/error.h"
#include "verityopt.h"

void cli_extract_cache_sizes(struct sqk_image_opts *o, unsigned threads)
{
	o->meta_entries = 16;
	o->frag_entries = threads + 3;
	o->frag_bytes = 4u << 20;
	o->data_entries = threads + 1;
}

int cli_parse_cache_opt(const char *s, struct sqk_image_opts *o)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v;

		if (!eq || sqk_parse_uint(eq + 1, 65536, &v) != 0) {
			ret = -1;
			break;
		}
		*eq = '\0';
		/* Every cache needs an entry; the compressed-block cache may be left out. */
		if (v == 0 && strcmp(tok, "comp") != 0) {
			ret = -1;
			break;
		}
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

int cli_cache_option(const char *arg, struct sqk_image_opts *o)
{
	if (cli_parse_cache_opt(arg, o) != 0) {
		cli_usage_error("invalid cache sizes '%s'", arg);
		return -1;
	}
	return 0;
}

int cli_policy_option(const char *arg, struct sqk_image_opts *o)
{
	if (sqk_policy_parse(arg, &o->policy) != 0) {
		cli_usage_error("unknown cache policy '%s'", arg);
		return -1;
	}
	return 0;
}

int cli_memory_option(const char *arg, struct sqk_image_opts *o)
{
	if (sqk_parse_size(arg, &o->memory) != 0 || o->memory == 0) {
		cli_usage_error("invalid memory size '%s'", arg);
		return -1;
	}
	return 0;
}

int cli_tmpdir_option(const char *arg, struct sqk_image_opts *o)
{
	struct stat st;
	int e = stat(arg, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

	if (e) {
		cli_usage_error("--tmpdir %s: %s", arg, strerror(e));
		return -1;
	}
	o->tmpdir = arg;
	return 0;
}

/* The --offset setting of the commands that open one image. */
static struct sqk_offset offset;
static int offset_quiet;

int cli_offset_parse(const char *arg, struct sqk_offset *o)
{
	o->given = 1;
	o->is_auto = strcmp(arg, "auto") == 0;
	o->at = 0;
	if (!o->is_auto && sqk_parse_size(arg, &o->at) != 0) {
		cli_usage_error("invalid offset '%s'", arg);
		return -1;
	}
	return 0;
}

int cli_offset_option(const char *arg)
{
	return cli_offset_parse(arg, &offset);
}

void cli_offset_quiet(int quiet)
{
	offset_quiet = quiet;
}

uint64_t cli_offset_value(void)
{
	return offset.at;
}

/* The option that sets o, as messages name it. */
static const char *option_name(const struct sqk_offset *o)
{
	if (o->option)
		return o->option;
	/* The compat front end (cli_die_of_sigpipe) spells the option as unsquashfs. */
	return cli_die_of_sigpipe ? "-offset" : "--offset";
}

/*
 * Where --offset auto finds the one image in path: o is then at it, no longer
 * auto (bench opens the image again for every run: search and say it once).
 * 0, or -1 after saying why.
 */
static int find_offset(const char *path, struct sqk_offset *o)
{
	uint64_t at[2];
	int n = sqk_image_find_path(path, UINT64_MAX, at, 2);

	if (n < 0) {
		cli_error(path, "%s", cli_api_why(n));
		return -1;
	}
	if (n == 0) {
		cli_error(path, "no SquashFS image found");
		return -1;
	}
	if (n > 1) {
		cli_error(path,
			  "%d SquashFS superblocks found (at %llu, %llu%s): choose one with %s", n,
			  (unsigned long long)at[0], (unsigned long long)at[1],
			  n > 2 ? ", ..." : "", option_name(o));
		return -1;
	}
	if (!offset_quiet)
		cli_error(path, "image found at offset %llu", (unsigned long long)at[0]);
	o->at = at[0];
	o->is_auto = 0;
	return 0;
}

struct sqk_file *cli_open_image_file_at(const char *path, struct sqk_offset *o)
{
	struct sqk_file *f, *w;
	int err = 0;

	if (o->is_auto && find_offset(path, o) != 0)
		return NULL;
	errno = 0;
	f = sqk_file_open(path, SQK_FILE_READ, &err);
	if (!f) {
		cli_error_code(path, err);
		return NULL;
	}
	if (o->at == 0)
		return f;
	if (o->at >= f->size(f)) {
		cli_error(path, "offset %llu is past the end of the file",
			  (unsigned long long)o->at);
		sqk_file_destroy(f);
		return NULL;
	}
	w = sqk_file_window(f, o->at);
	if (!w) {
		cli_error_code(path, SQK_ERR_NOMEM);
		sqk_file_destroy(f);
	}
	return w;
}

/* How far into a file the hints below look: an AppImage's runtime is a few hundred KiB. */
#define HINT_SEARCH (64u << 20)

/* Images that start further into path (none when an offset was given): how many, where. */
static unsigned images_further_in(const char *path, const struct sqk_offset *o, uint64_t at[2])
{
	int n = o->given ? 0 : sqk_image_find_path(path, HINT_SEARCH, at, 2);

	return n > 0 ? (unsigned)n : 0;
}

/*
 * "[what; ]a SquashFS image starts at byte N (use --offset auto)", naming
 * o's option, or nothing when n is 0.
 */
static int say_further_in(const char *path, const char *what, unsigned n, const uint64_t at[2],
			  const struct sqk_offset *o)
{
	const char *sep = what ? "; " : "", *opt = option_name(o);

	if (!what)
		what = "";
	/* unsquashfs's -offset takes no auto. */
	if (n == 1 && cli_die_of_sigpipe && !o->option)
		cli_error(path, "%s%sa SquashFS image starts at byte %llu (use %s %llu)", what, sep,
			  (unsigned long long)at[0], opt, (unsigned long long)at[0]);
	else if (n == 1)
		cli_error(path, "%s%sa SquashFS image starts at byte %llu (use %s auto)", what, sep,
			  (unsigned long long)at[0], opt);
	else if (n > 1)
		cli_error(path,
			  "%s%sSquashFS images start at bytes %llu, %llu%s (choose one with %s)",
			  what, sep, (unsigned long long)at[0], (unsigned long long)at[1],
			  n > 2 ? ", ..." : "", opt);
	return n > 0;
}

/* The error line for an image at path, opened at o, that would not open with err. */
static void image_error_at(const char *path, const struct sqk_offset *o, int err)
{
	uint64_t at[2];
	unsigned n = err == SQK_ERR_MAGIC ? images_further_in(path, o, at) : 0;

	if (!say_further_in(path, sqk_strerror(err), n, at, o))
		cli_error_code(path, err);
}

void cli_image_error(const char *path, int err)
{
	image_error_at(path, &offset, err);
}

void cli_image_hint(const char *path)
{
	struct sqk_image *img = NULL;
	uint64_t at[2];
	int err;

	if (offset.given)
		return;
	err = sqk_image_open_path(path, NULL, &img);
	sqk_image_close(img);
	if (err == SQK_ERR_MAGIC)
		say_further_in(path, NULL, images_further_in(path, &offset, at), at, &offset);
}

struct sqk_file *cli_open_image_file(const char *path)
{
	return cli_open_image_file_at(path, &offset);
}

struct sqk_image *cli_open_image_reader(const char *path, const struct sqk_image_opts *io)
{
	struct sqk_image *img;
	struct sqk_file *f = cli_open_image_file(path);
	int err;

	if (!f || cli_verity_wrap(&f, path))
		return NULL;
	err = sqk_image_open(f, io, &img);
	if (err) {
		cli_image_error(path, err);
		return NULL;
	}
	return img;
}

/* The settings of io (NULL: the defaults) and the offset at, as the public API takes them. */
static struct sqk_open_opts *open_opts(const struct sqk_image_opts *io, uint64_t at)
{
	static const enum sqk_policy policies[] = {
		[SQK_WAIT_HERD] = SQK_POLICY_HERD,
		[SQK_WAIT_EXCLUSIVE] = SQK_POLICY_EXCLUSIVE,
		[SQK_WAIT_KEYED] = SQK_POLICY_KEYED,
	};
	struct sqk_open_opts *o = sqk_open_opts_create();
	struct sqk_image_opts defaults;

	if (!io) {
		sqk_image_opts_default(&defaults);
		io = &defaults;
	}
	if (o && !sqk_open_opts_set_offset(o, at) &&
	    !sqk_open_opts_set_cache(o, SQK_CACHE_METADATA, io->meta_entries) &&
	    !sqk_open_opts_set_cache(o, SQK_CACHE_FRAGMENT, io->frag_entries) &&
	    !sqk_open_opts_set_cache(o, SQK_CACHE_DATA, io->data_entries) &&
	    !sqk_open_opts_set_cache(o, SQK_CACHE_COMPRESSED, io->comp_entries) &&
	    !sqk_open_opts_set_fragment_bytes(o, io->frag_bytes) &&
	    !sqk_open_opts_set_policy(o, policies[io->policy]) &&
	    /* The reader takes no decompressor as one. */
	    !sqk_open_opts_set_decompressors(o, io->decompressors ? io->decompressors : 1) &&
	    !sqk_open_opts_set_kernel_decode(o, io->strict) &&
	    !sqk_open_opts_set_memory(o, io->memory) && !sqk_open_opts_set_tmpdir(o, io->tmpdir))
		return o;
	sqk_open_opts_destroy(o);
	return NULL;
}

struct sqk_image *cli_open_image_at(const char *path, struct sqk_offset *o,
				    const struct sqk_image_opts *io)
{
	struct sqk_open_opts *opts;
	struct sqk_image *img;
	int err;

	if (o->is_auto && find_offset(path, o) != 0)
		return NULL;
	opts = open_opts(io, o->at);
	if (!opts) {
		cli_error(path, "%s", sqk_error_message());
		return NULL;
	}
	if (cli_verity_open_opts(opts, path)) {
		sqk_open_opts_destroy(opts);
		return NULL;
	}
	err = sqk_image_open_path(path, opts, &img);
	sqk_open_opts_destroy(opts);
	if (!err)
		return img;
	/*
	 * The options are sound (the setters took them), and reading an image
	 * refuses no argument: one refused is the offset, past the file's end.
	 */
	if (cli_verity_given())
		cli_error(NULL, "%s", sqk_error_message());
	else if (err == SQK_ERR_ARG && o->at)
		cli_error(path, "offset %llu is past the end of the file",
			  (unsigned long long)o->at);
	else if (err == SQK_ERR_MAGIC)
		image_error_at(path, o, err);
	else
		cli_error(path, "%s", cli_api_why(err));
	return NULL;
}

struct sqk_image *cli_open_image(const char *path, const struct sqk_image_opts *o)
{
	return cli_open_image_at(path, &offset, o);
}

const char *cli_image_err_text(struct sqk_image *img, int err)
{
	int e = img ? sqk_image_file(img)->errnum : 0;

	if (err == SQK_ERR_IO)
		return strerror(e ? e : EIO);
	return sqk_strerror(err);
}

const char *cli_fault_text(const struct sqk_fault *f, struct sqk_image *img)
{
	return sqk_fault_text(f, img ? sqk_image_file(img)->errnum : 0);
}

/* The caches by enum sqk_cache_kind, as --stats names them. */
static const char *const cache_keys[] = {"metadata", "fragment", "data", "compressed"};
#define NCACHES (sizeof(cache_keys) / sizeof(cache_keys[0]))

/* Every thread's context switches, the finished workers' included. */
static void usage_of_self(struct rusage *ru)
{
	memset(ru, 0, sizeof(*ru));
	getrusage(RUSAGE_SELF, ru);
}

/* Does img have the cache of kind k (the compressed-block cache is optional)? */
static int has_cache(struct sqk_image *img, unsigned k)
{
	uint64_t v;

	return sqk_image_counter(img, (enum sqk_cache_kind)k, "entries", &v) == 0;
}

/* A counter or a rate of the cache of kind k; each names one that exists. */
static uint64_t counter(struct sqk_image *img, unsigned k, const char *name)
{
	uint64_t v = 0;

	sqk_image_counter(img, (enum sqk_cache_kind)k, name, &v);
	return v;
}

static double rate(struct sqk_image *img, unsigned k, const char *name)
{
	double v = 0;

	sqk_image_rate(img, (enum sqk_cache_kind)k, name, &v);
	return v;
}

/* A rate's name in the text form, which keeps to its column (cli_read_stats reads it). */
static const char *text_rate_name(const char *name)
{
	return strcmp(name, "decompressions_per_block") ? name : "decomp_per_block";
}

void cli_print_stats(FILE *out, struct sqk_image *img)
{
	const char *const *n;
	struct rusage ru;
	unsigned k;

	usage_of_self(&ru);
	fprintf(out, "decompressions: %llu\ncontext switches: %ld voluntary, %ld involuntary\n",
		(unsigned long long)counter(img, 0, "decompressions"), ru.ru_nvcsw, ru.ru_nivcsw);
	fprintf(out, "temporary files: %llu, %llu bytes written\n",
		(unsigned long long)counter(img, 0, "temporary_files"),
		(unsigned long long)counter(img, 0, "spilled"));
	for (k = 0; k < NCACHES; k++) {
		if (!has_cache(img, k))
			continue;
		fprintf(out, "%s cache:\n", cache_keys[k]);
		for (n = sqk_counter_names(); *n; n++)
			fprintf(out, "  %-20s %llu\n", *n, (unsigned long long)counter(img, k, *n));
		for (n = sqk_rate_names(); *n; n++)
			fprintf(out, "  %-20s %.3f\n", text_rate_name(*n), rate(img, k, *n));
	}
}

void cli_print_stats_json(struct sqk_json *j, struct sqk_image *img)
{
	sqk_json_begin_object(j, 0);
	cli_print_stats_members(j, img);
	sqk_json_end_object(j);
}

void cli_print_stats_members(struct sqk_json *j, struct sqk_image *img)
{
	const char *const *n;
	struct rusage ru;
	unsigned k;

	usage_of_self(&ru);
	sqk_json_key_uint(j, "decompressions", counter(img, 0, "decompressions"));
	sqk_json_key(j, "vcsw");
	sqk_json_int(j, ru.ru_nvcsw);
	sqk_json_key(j, "ivcsw");
	sqk_json_int(j, ru.ru_nivcsw);
	sqk_json_key_uint(j, "temporary_files", counter(img, 0, "temporary_files"));
	sqk_json_key_uint(j, "spilled", counter(img, 0, "spilled"));
	sqk_json_key(j, "caches");
	sqk_json_begin_object(j, 0);
	for (k = 0; k < NCACHES; k++) {
		if (!has_cache(img, k))
			continue;
		sqk_json_key(j, cache_keys[k]);
		sqk_json_begin_object(j, 0);
		for (n = sqk_counter_names(); *n; n++)
			sqk_json_key_uint(j, *n, counter(img, k, *n));
		for (n = sqk_rate_names(); *n; n++)
			sqk_json_key_double(j, *n, rate(img, k, *n), 3);
		sqk_json_end_object(j);
	}
	sqk_json_end_object(j);
}

void cli_print_stats_as(FILE *out, struct sqk_image *img, int json)
{
	struct sqk_json j;

	if (!json) {
		cli_print_stats(out, img);
		return;
	}
	sqk_json_init_file(&j, out);
	cli_print_stats_json(&j, img);
	sqk_json_finish(&j);
}

/* The fields of struct sqk_cache_stats by the names the text form gives them. */
static const struct {
	const char *name;
	size_t off;
} stat_fields[] = {
#define FIELD_AT(k, f) {#k, offsetof(struct sqk_cache_stats, f)},
	SQK_CACHE_FIELDS_1(FIELD_AT) SQK_CACHE_FIELDS_2(FIELD_AT)};

/* One "  name value" line of the cache in s. */
static void read_counter(struct sqk_cache_stats *s, const char *name, const char *value)
{
	size_t i;

	if (strcmp(name, "unclaimed_free_ms") == 0) {
		s->unclaimed_ns = (uint64_t)(strtod(value, NULL) * 1e6);
		return;
	}
	for (i = 0; i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++)
		if (strcmp(name, stat_fields[i].name) == 0)
			*(uint64_t *)((char *)s + stat_fields[i].off) = strtoull(value, NULL, 10);
}

int cli_read_stats(FILE *in, struct sqk_stats_read *out)
{
	char line[256], name[64], value[64];
	unsigned long long n;
	long v, iv;
	int cache = -1, seen = 0, i;

	memset(out, 0, sizeof(*out));
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "decompressions: %llu", &n) == 1) {
			out->decompressions = n;
			seen = 1;
		} else if (sscanf(line, "context switches: %ld voluntary, %ld involuntary", &v,
				  &iv) == 2) {
			out->vcsw = (uint64_t)v;
			out->ivcsw = (uint64_t)iv;
		} else if (line[0] != ' ') {
			cache = -1;
			for (i = 0; i < SQK_CACHE_COUNT; i++)
				if (strncmp(line, cache_keys[i], strlen(cache_keys[i])) == 0 &&
				    strcmp(line + strlen(cache_keys[i]), " cache:\n") == 0)
					cache = i;
			if (cache >= 0)
				out->present[cache] = 1;
		} else if (cache >= 0 && sscanf(line, " %63s %63s", name, value) == 2) {
			read_counter(&out->cache[cache], name, value);
		}
	}
	return seen ? 0 : -1;
}
