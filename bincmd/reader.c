// SPDX-License-Identifier: BSD-2-Clause
/*
 * The binary's own readers (mount, bench): an image opened on the reader
 * with its every setting, those the public API has not too (the cache
 * lookup bench compares, the block cache limit of mount), and the cache
 * counters of --stats read back (bench reads a mount daemon's).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "reader.h"
#include "remoteopt.h"
#include "read/image_verity.h"
#include "util/file.h"
#include "verityopt.h"

int cli_reader_cache_option(const char *arg, struct sqk_image_opts *o)
{
	if (sqk_image_opts_cache(arg, o) != 0) {
		cli_usage_error("invalid cache sizes '%s'", arg);
		return -1;
	}
	return 0;
}

int cli_reader_policy_option(const char *arg, struct sqk_image_opts *o)
{
	if (sqk_policy_parse(arg, &o->policy) != 0) {
		cli_usage_error("unknown cache policy '%s'", arg);
		return -1;
	}
	return 0;
}

struct sqk_file *cli_open_image_file_at(const char *path, struct sqk_offset *o)
{
	struct sqk_file *f, *w;
	struct sqk_io io;
	int err = 0;

	if (o->is_auto && cli_offset_find(path, o) != 0)
		return NULL;
	errno = 0;
	if (!cli_is_url(path))
		f = sqk_file_open(path, SQK_FILE_READ, &err);
	else if (cli_remote_io(path, &io))
		return NULL;
	else if (!(f = sqk_file_io(&io)))
		err = SQK_ERR_NOMEM;
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

struct sqk_image *cli_open_image_reader(const char *path, const struct sqk_image_opts *io)
{
	struct sqk_image *img;
	struct sqk_file *f;
	int err;

	/* The public policy has the reader's order (herd, exclusive, keyed). */
	cli_remote_policy(io ? (enum sqk_policy)io->policy : SQK_POLICY_KEYED);
	f = cli_open_image_file_at(path, cli_offset_setting());
	if (!f || cli_verity_wrap(&f, path))
		return NULL;
	err = sqk_image_open(f, io, &img);
	if (err) {
		cli_image_error(path, err);
		return NULL;
	}
	return img;
}

int cli_verity_wrap(struct sqk_file **f, const char *path)
{
	struct sqk_verity_where w = {.offset = SQK_VERITY_AT_END};
	const struct cli_verity *r = cli_verity_reader();
	const char *why = NULL;
	int err;

	if (!r->given)
		return 0;
	if (sqk_verity_where_root(&w, r->root)) {
		cli_usage_error("invalid root hash '%s'", r->root);
		sqk_file_destroy(*f);
		return -1;
	}
	w.hash_path = r->hash_file;
	if (r->offset_given)
		w.offset = r->offset;
	else if (r->hash_file)
		w.offset = 0;
	if (r->salt && sqk_verity_where_plain(&w, r->hash, r->salt, &why)) {
		cli_usage_error("--verity-salt, --verity-hash: %s", why);
		sqk_file_destroy(*f);
		return -1;
	}
	errno = 0;
	err = sqk_image_verity_file(*f, &w, f, &why);
	if (err) {
		const char *where = r->hash_file ? r->hash_file : path;

		if (why)
			cli_error(where, "dm-verity: %s", why);
		else
			cli_error_errno(where, err, err == SQK_ERR_IO ? errno : 0);
		return -1;
	}
	return 0;
}

const char *cli_image_err_text(struct sqk_image *img, int err)
{
	int e = img ? sqk_image_file(img)->errnum : 0;

	if (err == SQK_ERR_IO)
		return strerror(e ? e : EIO);
	return sqk_strerror(err);
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
				if (strncmp(line, cli_cache_keys[i], strlen(cli_cache_keys[i])) ==
					    0 &&
				    strcmp(line + strlen(cli_cache_keys[i]), " cache:\n") == 0)
					cache = i;
			if (cache >= 0)
				out->present[cache] = 1;
		} else if (cache >= 0 && sscanf(line, " %63s %63s", name, value) == 2) {
			read_counter(&out->cache[cache], name, value);
		}
	}
	return seen ? 0 : -1;
}
