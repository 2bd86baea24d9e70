// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-front: the calls the front ends took from the library's insides
 * before, through the public API alone.
 *   api-front types             each file type's name and key
 *   api-front tables IMG        the lookup tables' entry counts
 *   api-front cache IMG SIZES POLICY
 *                               open IMG with --cache and --cache-policy as
 *                               text; the entries of each cache, or the refusal
 *   api-front step IMG          a build to IMG, which exists, without "force";
 *                               then an append to IMG.missing: each failed step
 *                               as a name and as a value
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

#include "api-test.h"

static int types(void)
{
	static const mode_t modes[] = {S_IFDIR, S_IFREG, S_IFLNK,  S_IFBLK,
				       S_IFCHR, S_IFIFO, S_IFSOCK, 0};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		printf("%s|%s\n", sqk_type_name(modes[i] | 0644), sqk_type_key(modes[i] | 0644));
	return 0;
}

static void entries(struct sqk_image *img, const char *what, enum sqk_table_kind k)
{
	uint64_t n = 0;
	int err = sqk_image_table_entries(img, k, &n);

	if (err == SQK_ERR_NOENT)
		printf("%s none\n", what);
	else if (err)
		printf("%s error %d\n", what, err);
	else
		printf("%s %llu\n", what, (unsigned long long)n);
}

static int tables(const char *path)
{
	struct sqk_image *img;
	uint64_t n;

	if (sqk_image_open_path(path, NULL, &img)) {
		fprintf(stderr, "api-front: %s\n", sqk_error_message());
		return 1;
	}
	entries(img, "fragments", SQK_TABLE_FRAG);
	entries(img, "ids", SQK_TABLE_ID);
	entries(img, "xattr_ids", SQK_TABLE_XATTR);
	entries(img, "export", SQK_TABLE_EXPORT);
	printf("inode table: %s\n", sqk_image_table_entries(img, SQK_TABLE_INODE, &n) == SQK_ERR_ARG
					    ? "refused"
					    : "taken");
	sqk_image_destroy(img);
	return 0;
}

static int cache(const char *path, const char *sizes, const char *policy)
{
	static const char *const names[] = {"metadata", "fragment", "data", "compressed"};
	struct sqk_open_opts *o = sqk_open_opts_create();
	struct sqk_image *img;
	uint64_t v;
	int err, k;

	err = sqk_open_opts_set(o, "cache", sizes);
	if (!err)
		err = sqk_open_opts_set(o, "cache-policy", policy);
	if (err) {
		printf("refused %s: %s\n", err == SQK_ERR_ARG ? "SQK_ERR_ARG" : "another",
		       sqk_error_message());
		sqk_open_opts_destroy(o);
		return 0;
	}
	err = sqk_image_open_path(path, o, &img);
	sqk_open_opts_destroy(o);
	if (err) {
		fprintf(stderr, "api-front: %s\n", sqk_error_message());
		return 1;
	}
	for (k = 0; k < 4; k++)
		if (sqk_image_counter(img, (enum sqk_cache_kind)k, "entries", &v) == 0)
			printf("%s %llu\n", names[k], (unsigned long long)v);
		else
			printf("%s none\n", names[k]);
	sqk_image_destroy(img);
	return 0;
}

static void failed(const char *what, int err)
{
	printf("%s: err %d step '%s' id %d\n", what, err, sqk_build_failed_step(NULL),
	       (int)sqk_build_failed_step_id(NULL));
}

static int step(const char *path)
{
	struct sqk_build_opts *o = sqk_build_opts_create();
	struct sqk_build *b = NULL;
	char missing[4096];
	int err;

	err = sqk_build_create(path, o, &b);
	failed("exists", err);
	sqk_build_destroy(b);
	b = NULL;
	snprintf(missing, sizeof(missing), "%s.missing", path);
	sqk_build_opts_set(o, "append", NULL);
	err = sqk_build_create(missing, o, &b);
	failed("append", err);
	sqk_build_destroy(b);
	b = NULL;
	sqk_build_opts_destroy(o);
	o = sqk_build_opts_create();
	err = sqk_build_create(missing, o, &b);
	printf("created: err %d step '%s' id %d\n", err, sqk_build_failed_step(NULL),
	       (int)sqk_build_failed_step_id(NULL));
	sqk_build_destroy(b);
	sqk_build_opts_destroy(o);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "types"))
		return types();
	if (argc == 3 && !strcmp(argv[1], "tables"))
		return tables(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "cache"))
		return cache(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "step"))
		return step(argv[2]);
	fprintf(stderr,
		"usage: api-front types | tables IMG | cache IMG SIZES POLICY | step IMG\n");
	return 2;
}
