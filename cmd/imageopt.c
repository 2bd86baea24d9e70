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
#include "remoteopt.h"
#include "show.h"
#include "verityopt.h"

/* Does the library take value for the open option name? 0, or -1 after the usage error. */
static int open_option(const char *name, const char *value)
{
	struct sqk_open_opts *o = sqk_open_opts_create();
	int err = o ? sqk_open_opts_set(o, name, value) : SQK_ERR_NOMEM;

	sqk_open_opts_destroy(o);
	if (err == SQK_ERR_ARG) {
		cli_usage_error("%s", sqk_error_message());
		return -1;
	}
	if (err) {
		cli_error(NULL, "%s", sqk_error_message());
		return -1;
	}
	return 0;
}

int cli_cache_option(const char *arg, struct cli_image_opts *o)
{
	if (open_option("cache", arg))
		return -1;
	o->cache = arg;
	return 0;
}

int cli_policy_option(const char *arg, struct cli_image_opts *o)
{
	if (open_option("cache-policy", arg))
		return -1;
	o->policy = arg;
	return 0;
}

int cli_memory_option(const char *arg, struct cli_image_opts *o)
{
	if (sqk_parse_size(arg, &o->memory) != 0 || o->memory == 0) {
		cli_usage_error("invalid memory size '%s'", arg);
		return -1;
	}
	return 0;
}

int cli_tmpdir_option(const char *arg, struct cli_image_opts *o)
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

struct sqk_offset *cli_offset_setting(void)
{
	return &offset;
}

/* Found once, said once: bench opens the image again for every run. */
int cli_offset_find(const char *path, struct sqk_offset *o)
{
	uint64_t at[2];
	int n = cli_is_url(path) ? cli_remote_find(path, UINT64_MAX, at, 2)
				 : sqk_image_find_path(path, UINT64_MAX, at, 2);

	if (n < 0 && cli_is_url(path)) {
		cli_error(NULL, "%s", sqk_error_message());
		return -1;
	}
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

/* How far into a file the hints below look: an AppImage's runtime is a few hundred KiB. */
#define HINT_SEARCH (64u << 20)

/* Images that start further into path (none when an offset was given): how many, where. */
static unsigned images_further_in(const char *path, const struct sqk_offset *o, uint64_t at[2])
{
	int n = o->given || cli_is_url(path) ? 0 : sqk_image_find_path(path, HINT_SEARCH, at, 2);

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

	if (offset.given || cli_is_url(path))
		return;
	err = sqk_image_open_path(path, NULL, &img);
	sqk_image_destroy(img);
	if (err == SQK_ERR_MAGIC)
		say_further_in(path, NULL, images_further_in(path, &offset, at), at, &offset);
}

/* The settings of io (NULL: one reader) and the offset at, as the public API takes them. */
static struct sqk_open_opts *open_opts(const struct cli_image_opts *io, uint64_t at)
{
	struct sqk_open_opts *o = sqk_open_opts_create();
	unsigned n = io ? io->threads : 0;
	int err;

	if (!o)
		return NULL;
	/* One reader: the kernel's cache sizes, one decompressor. */
	err = sqk_open_opts_set_offset(o, at) || sqk_open_opts_set_cache(o, SQK_CACHE_DATA, 1) ||
	      sqk_open_opts_set_decompressors(o, n ? n + 1 : 1);
	if (!err && n && !io->cache)
		err = sqk_open_opts_set_cache(o, SQK_CACHE_METADATA, 16) ||
		      sqk_open_opts_set_cache(o, SQK_CACHE_FRAGMENT, n + 3) ||
		      sqk_open_opts_set_cache(o, SQK_CACHE_DATA, n + 1) ||
		      (io->extract && sqk_open_opts_set_fragment_bytes(o, 4u << 20));
	if (!err && io && io->cache)
		err = sqk_open_opts_set(o, "cache", io->cache);
	if (!err && io && io->policy)
		err = sqk_open_opts_set(o, "cache-policy", io->policy);
	if (!err && io)
		err = sqk_open_opts_set_memory(o, io->memory) ||
		      sqk_open_opts_set_tmpdir(o, io->tmpdir);
	if (!err)
		return o;
	sqk_open_opts_destroy(o);
	return NULL;
}

struct sqk_image *cli_open_image_at(const char *path, struct sqk_offset *o,
				    const struct cli_image_opts *io)
{
	struct sqk_open_opts *opts;
	struct sqk_image *img;
	int err;

	if (o->is_auto && cli_offset_find(path, o) != 0)
		return NULL;
	opts = open_opts(io, o->at);
	if (!opts) {
		cli_error(path, "%s", sqk_error_message());
		return NULL;
	}
	if (cli_verity_open_opts(opts, path) || cli_remote_apply(opts)) {
		sqk_open_opts_destroy(opts);
		return NULL;
	}
	err = cli_is_url(path) ? sqk_image_open_url(path, opts, &img)
			       : sqk_image_open_path(path, opts, &img);
	sqk_open_opts_destroy(opts);
	if (!err)
		return img;
	/*
	 * The options are sound (the setters took them), and reading an image
	 * refuses no argument: one refused is the offset, past the file's end.
	 */
	if (cli_verity_given() || cli_is_url(path))
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

struct sqk_image *cli_open_image(const char *path, const struct cli_image_opts *o)
{
	return cli_open_image_at(path, &offset, o);
}

/* The caches by enum sqk_cache_kind, as --stats names them. */
const char *const cli_cache_keys[CLI_CACHES] = {"metadata", "fragment", "data", "compressed"};
#define NCACHES CLI_CACHES

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
		fprintf(out, "%s cache:\n", cli_cache_keys[k]);
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
		sqk_json_key(j, cli_cache_keys[k]);
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

int cli_image_option_default(int c, int verity_base, const char *arg)
{
	/* A bad value of one was said: the usage status below. */
	if (cli_remote_take(c, verity_base + CLI_VERITY_NOPTS, arg) == 0)
		return 0;
	/* The verity options, or one getopt has refused already. */
	return cli_verity_default(c, verity_base, arg);
}
