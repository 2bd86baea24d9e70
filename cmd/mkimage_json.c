// SPDX-License-Identifier: BSD-2-Clause
/* mkimage --stats --json: the build's summary through the JSON writer. */
#include <string.h>

#include "cmd.h"
#include "mkimage.h"
#include "fe.h"

uint64_t cli_mkimage_stat(const struct sqk_build *b, const char *name)
{
	uint64_t v = 0;

	return sqk_build_stat(b, name, &v) ? 0 : v;
}

/* Figures under their own names, in the order given. */
static void figures(struct sqk_json *j, const struct sqk_build *b, const char *const *names)
{
	for (; *names; names++)
		sqk_json_key_uint(j, *names, cli_mkimage_stat(b, *names));
}

/* The inodes by type, by the names the library gives the types: files first. */
static void type_counts(struct sqk_json *j, const struct sqk_build *b)
{
	const char *name;
	unsigned i;

	sqk_json_key_uint(j, "files", cli_mkimage_stat(b, "files"));
	for (i = 1; (name = sqk_survey_type_name(i)) != NULL; i++)
		if (strcmp(name, "files") != 0)
			sqk_json_key_uint(j, name, cli_mkimage_stat(b, name));
}

/* The figures of a build whose key is not the build's name for it. */
static void renamed(struct sqk_json *j, const struct sqk_build *b, const char *const *pairs)
{
	for (; *pairs; pairs += 2)
		sqk_json_key_uint(j, pairs[0], cli_mkimage_stat(b, pairs[1]));
}

/* What each image of --reuse gave. */
static void reuse_json(struct sqk_json *j, const struct args *a, const struct sqk_build *b)
{
	static const char *const totals[] = {
		"blocks",     "reused_blocks",	   "bytes", "reused_bytes",
		"compressed", "compressed_blocks", NULL};
	static const char *const each[] = {
		"blocks", "bytes", "stored_bytes", "rejected", "unreadable", "skipped", NULL};
	size_t i;

	sqk_json_key(j, "reuse");
	sqk_json_begin_object(j, 0);
	renamed(j, b, totals);
	sqk_json_key(j, "images");
	sqk_json_begin_array(j, 0);
	for (i = 0; i < a->reuse.n; i++) {
		const char *why = sqk_build_reuse_why(b, i);
		uint64_t v;

		sqk_json_begin_object(j, 0);
		sqk_json_key_string(j, "path", a->reuse.v[i]);
		sqk_json_key_bool(j, "used", !*why);
		if (*why) {
			sqk_json_key_string(j, "why", why);
			sqk_json_end_object(j);
			continue;
		}
		for (const char *const *n = each; *n; n++)
			sqk_json_key_uint(j, *n, sqk_build_reuse_stat(b, i, *n, &v) ? 0 : v);
		/* Whether its blocks are what this build makes: null until one is copied. */
		if (sqk_build_reuse_stat(b, i, "same_compression", &v))
			sqk_json_key_null(j, "same_compression");
		else
			sqk_json_key_bool(j, "same_compression", v != 0);
		sqk_json_end_object(j);
	}
	sqk_json_end_array(j);
	sqk_json_end_object(j);
}

void cli_mkimage_stats_json(const struct args *a, const struct sqk_build *b, const char *image)
{
	static const char *const sizes[] = {"block_size",
					    "threads",
					    "bytes_used",
					    "image_size",
					    "uncompressed",
					    "data_bytes",
					    "inode_table_bytes",
					    "directory_table_bytes",
					    NULL};
	static const char *const counts[] = {"hardlinks",	  "blocks",    "raw_blocks",
					     "compressed_blocks", "fragments", "ids",
					     "xattr_ids",	  NULL};
	static const char *const dedup[] = {
		"files",      "dedup_files",	  "bytes", "dedup_bytes", "tails", "dedup_tails",
		"tail_bytes", "dedup_tail_bytes", NULL};
	static const char *const sparse[] = {"blocks", "sparse_blocks", "bytes", "sparse_bytes",
					     NULL};
	static const char *const last[] = {"lseeks", "xattrs_skipped", NULL};
	static const char *const memory[] = {
		"budget", "memory",	"spilled_bytes", "spill_bytes",	 "files", "spill_files",
		"runs",	  "spill_runs", "merges",	 "spill_merges", NULL};
	uint64_t used = cli_mkimage_stat(b, "bytes_used"),
		 raw = cli_mkimage_stat(b, "uncompressed");
	struct sqk_json j;

	sqk_json_init_file(&j, stdout);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "image", image);
	sqk_json_key_string(&j, "compression", sqk_build_compressor(b));
	figures(&j, b, sizes);
	sqk_json_key_double(&j, "ratio", raw ? (double)used / (double)raw : 0, 4);
	sqk_json_key_uint(&j, "mkfs_time", cli_mkimage_stat(b, "mkfs_time"));
	sqk_json_key(&j, "counts");
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "inodes", cli_mkimage_stat(b, "inodes"));
	type_counts(&j, b);
	figures(&j, b, counts);
	sqk_json_end_object(&j);
	sqk_json_key(&j, "dedup");
	sqk_json_begin_object(&j, 0);
	renamed(&j, b, dedup);
	sqk_json_end_object(&j);
	sqk_json_key(&j, "sparse");
	sqk_json_begin_object(&j, 0);
	renamed(&j, b, sparse);
	sqk_json_end_object(&j);
	figures(&j, b, last);
	sqk_json_key(&j, "memory");
	sqk_json_begin_object(&j, 0);
	renamed(&j, b, memory);
	sqk_json_end_object(&j);
	if (a->reuse.n)
		reuse_json(&j, a, b);
	cli_mkimage_verity_json(&j, b);
	sqk_json_end_object(&j);
	sqk_json_finish(&j);
}
