// SPDX-License-Identifier: BSD-2-Clause
/* A build's options by mkimage's long names, into the mkfs driver's options. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api_build.h"
#include "format/format.h"
#include "util/parse.h"
#include "util/pattern.h"
#include "util/pool.h"

struct sqk_build_opts *sqk_build_opts_create(void)
{
	struct sqk_build_opts *o = calloc(1, sizeof(*o));

	if (!o) {
		sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
		return NULL;
	}
	o->codec = sqk_codec_by_name("zstd");
	o->level = -1;
	o->mo.block_size = 128 * 1024;
	o->mo.threads = sqk_online_cpus();
	return o;
}

void sqk_api_strv_free(struct sqk_api_strv *v)
{
	while (v->n)
		free(v->v[--v->n]);
	free(v->v);
	v->v = NULL;
}

int sqk_api_strv_add(struct sqk_api_strv *v, const char *s)
{
	char **nv = realloc(v->v, (v->n + 1) * sizeof(*nv));

	if (!nv)
		return SQK_ERR_NOMEM;
	v->v = nv;
	nv[v->n] = strdup(s);
	if (!nv[v->n])
		return SQK_ERR_NOMEM;
	v->n++;
	return 0;
}

void sqk_build_opts_destroy(struct sqk_build_opts *o)
{
	if (!o)
		return;
	sqk_api_strv_free(&o->comp_opts);
	sqk_api_strv_free(&o->excludes);
	sqk_api_attrs_opts_free(o);
	sqk_api_verity_opts_free(o);
	sqk_api_inputs_free(&o->in);
	sqk_api_pseudo_unref(o->pseudo);
	free(o->tmpdir);
	free(o);
}

/* The switches: an int of struct sqk_mkfs_opts each. */
static const struct {
	const char *name;
	size_t at;
} switches[] = {
	{"no-fragments", offsetof(struct sqk_mkfs_opts, no_fragments)},
	{"tail-ends", offsetof(struct sqk_mkfs_opts, tail_ends)},
	{"no-dedup", offsetof(struct sqk_mkfs_opts, no_dedup)},
	{"no-sparse", offsetof(struct sqk_mkfs_opts, no_sparse)},
	{"no-xattrs", offsetof(struct sqk_mkfs_opts, no_xattrs)},
	{"no-hardlinks", offsetof(struct sqk_mkfs_opts, no_hardlinks)},
	{"no-export", offsetof(struct sqk_mkfs_opts, no_export)},
	{"no-pad", offsetof(struct sqk_mkfs_opts, no_pad)},
	{"one-file-system", offsetof(struct sqk_mkfs_opts, one_file_system)},
	{"pseudo-warn", offsetof(struct sqk_mkfs_opts, pseudo_warn)},
};

static int bad(const char *name, const char *value)
{
	return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid %s '%s'", name, value);
}

static int add_exclude(void *ctx, const char *pattern)
{
	return sqk_api_strv_add(ctx, pattern);
}

/* The options that take a value. */
static int set_value(struct sqk_build_opts *o, const char *name, const char *v)
{
	uint64_t n;
	uint32_t t;

	if (!strcmp(name, "compressor")) {
		if (!(o->codec = sqk_codec_by_name(v)))
			return sqk_api_fail(
				SQK_ERR_ARG, 0, NULL,
				"unknown compressor '%s' (gzip, lzma, lzo, xz, lz4, zstd)", v);
		o->codec_given = 1;
	} else if (!strcmp(name, "level")) {
		if (sqk_parse_uint(v, 1000, &n))
			return bad(name, v);
		o->level = (int)n;
	} else if (!strcmp(name, "comp-opt")) {
		if (!strchr(v, '='))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "invalid codec option '%s' (want KEY=VALUE)", v);
		if (sqk_api_strv_add(&o->comp_opts, v))
			return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	} else if (!strcmp(name, "block-size")) {
		if (sqk_parse_size(v, &n) || n < SQK_BLOCK_MIN || n > SQK_BLOCK_MAX ||
		    (n & (n - 1)))
			return sqk_api_fail(
				SQK_ERR_ARG, 0, NULL,
				"invalid block size '%s' (a power of two from 4K to 1M)", v);
		o->mo.block_size = (uint32_t)n;
		o->block_given = 1;
	} else if (!strcmp(name, "uid") || !strcmp(name, "gid")) {
		if (sqk_parse_uint(v, UINT32_MAX, &n))
			return bad(name, v);
		if (name[0] == 'u') {
			o->mo.uid = (uint32_t)n;
			o->mo.force_uid = 1;
		} else {
			o->mo.gid = (uint32_t)n;
			o->mo.force_gid = 1;
		}
	} else if (!strcmp(name, "mtime") || !strcmp(name, "fstime")) {
		if (sqk_parse_time(v, &t))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "invalid %s '%s' (seconds since 1970, @SECONDS, or a date "
					    "and time: 2024-01-01, 2024-01-01T12:00[:00], local unless "
					    "Z or +HH:MM follows)",
					    name, v);
		if (name[0] == 'm') {
			o->mo.mtime = t;
			o->mo.set_mtime = 1;
		} else {
			o->mo.fstime = t;
			o->mo.set_fstime = 1;
		}
	} else if (!strcmp(name, "exclude")) {
		if (sqk_api_strv_add(&o->excludes, v))
			return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	} else if (!strcmp(name, "exclude-from")) {
		int err = sqk_pattern_file_read(v, add_exclude, &o->excludes);

		if (err)
			return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, v, NULL);
	} else if (!strcmp(name, "memory")) {
		if (sqk_parse_size(v, &n) || n < SQK_API_MEMORY_MIN)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "invalid memory size '%s' (at least 8M)", v);
		o->mo.memory = n;
	} else if (!strcmp(name, "tmpdir")) {
		char *d = strdup(v);

		if (!d)
			return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
		free(o->tmpdir);
		o->tmpdir = d;
	} else if (!strcmp(name, "threads")) {
		if (sqk_parse_uint(v, 4096, &n) || !n)
			return bad("thread count", v);
		o->mo.threads = (unsigned)n;
	} else {
		int err = sqk_api_attrs_set(o, name, v);

		if (err == 1)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "no build option '%s' with a value", name);
		if (err)
			return err;
	}
	return sqk_api_ok();
}

int sqk_build_opts_set(struct sqk_build_opts *o, const char *name, const char *value)
{
	size_t i;
	int err = sqk_api_verity_set(o, name, value);

	if (err <= 0)
		return err ? err : sqk_api_ok();
	err = sqk_api_inputs_set(o, name, value);
	if (err <= 0)
		return err ? err : sqk_api_ok();
	if (value)
		return set_value(o, name, value);
	for (i = 0; i < sizeof(switches) / sizeof(switches[0]); i++)
		if (!strcmp(name, switches[i].name)) {
			*(int *)((char *)&o->mo + switches[i].at) = 1;
			return sqk_api_ok();
		}
	if (!strcmp(name, "all-root")) {
		o->mo.force_uid = o->mo.force_gid = 1;
		o->mo.uid = o->mo.gid = 0;
	} else if (!strcmp(name, "force")) {
		o->force = 1;
	} else if (!strcmp(name, "append")) {
		o->append = 1;
	} else if (!strcmp(name, "reuse-skip-unfit")) {
		o->reuse_skip_unfit = 1;
	} else if (!strcmp(name, "named-sources") || !strcmp(name, "full-paths")) {
		int mode = name[0] == 'n' ? SQK_API_NAMED_SOURCES : SQK_API_FULL_PATHS;

		if (o->source_mode && o->source_mode != mode)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "named-sources and full-paths exclude each other");
		o->source_mode = mode;
	} else if (!strcmp(name, "regex") || !strcmp(name, "wildcards")) {
		o->mo.exclude_style = name[0] == 'r' ? SQK_EXCLUDE_REGEX : SQK_EXCLUDE_WILDCARDS;
	} else {
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no build switch '%s'", name);
	}
	return sqk_api_ok();
}

void sqk_build_opts_progress(struct sqk_build_opts *o, sqk_build_progress_fn fn, void *ctx)
{
	o->mo.progress = fn;
	o->mo.progress_ctx = ctx;
}

void sqk_build_opts_warn(struct sqk_build_opts *o, sqk_build_warn_fn fn, void *ctx)
{
	o->mo.warn = fn;
	o->mo.warn_ctx = ctx;
}
