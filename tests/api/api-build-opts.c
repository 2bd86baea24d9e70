// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-build-opts IMAGE [ARG...]: build IMAGE through the public API. An ARG
 * is NAME or NAME=VALUE for sqk_build_opts_set, or, after them, dir=PATH,
 * archive=PATH, listing=PATH or pseudo-file=PATH for the source to add, in
 * order. Prints "reused_blocks N" at the end; a failure is
 * "error CODE MESSAGE" on standard error and exit 1.
 */
#include <stdio.h>
#include <string.h>

#include <squashkit/squashkit.h>

static int source(struct sqk_build *b, const char *kind, const char *path)
{
	if (!strcmp(kind, "dir"))
		return sqk_build_add_dir(b, path);
	if (!strcmp(kind, "archive"))
		return sqk_build_add_archive(b, path);
	if (!strcmp(kind, "listing"))
		return sqk_build_add_listing(b, path);
	return sqk_build_add_pseudo_file(b, path);
}

static int is_source(const char *arg)
{
	static const char *const kinds[] = {"dir=", "archive=", "listing=", "pseudo-file="};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(arg, kinds[i], strlen(kinds[i])))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sqk_build_opts *o = sqk_build_opts_create();
	struct sqk_build *b = NULL;
	uint64_t reused = 0;
	int i = 2, err = o ? 0 : SQK_ERR_NOMEM;

	if (argc < 2)
		return fprintf(stderr, "usage: api-build-opts IMAGE [ARG...]\n"), 2;
	for (; !err && i < argc && !is_source(argv[i]); i++) {
		char *eq = strchr(argv[i], '=');

		if (eq)
			*eq++ = '\0';
		err = sqk_build_opts_set(o, argv[i], eq);
	}
	if (!err)
		err = sqk_build_create(argv[1], o, &b);
	sqk_build_opts_destroy(o); /* the build keeps what it needs */
	for (; !err && i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		*eq++ = '\0';
		err = source(b, argv[i], eq);
	}
	if (!err)
		err = sqk_build_finish(b);
	if (!err)
		err = sqk_build_stat(b, "reused_blocks", &reused);
	if (err)
		fprintf(stderr, "error %d %s\n", err, sqk_error_message());
	else
		printf("reused_blocks %llu\n", (unsigned long long)reused);
	sqk_build_destroy(b);
	return err ? 1 : 0;
}
