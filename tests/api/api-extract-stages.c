// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-extract-stages HOW IMAGE DEST [OPTION...]: what the public API tells
 * a front end that words its own messages. HOW is "dir"
 * (sqk_extract_dir), "archive" (sqk_extract_archive), "describe"
 * (sqk_extract_describe to the file DEST) or "describe-fd"
 * (sqk_extract_describe_fd, DEST "-" standard output). OPTION is as for
 * api-extract: NAME, NAME=VALUE or /PATH. On standard error: "read N" the
 * image's bytes read (sqk_image_bytes_read) when opened and again at the
 * end, "data-end N" where its data ends (the inode table's start), a line
 * "problem PATH ERR WORDS" for each problem, "failure STAGE OUTPUT ERR
 * ERRNO COUNT PATH|WORDS" from the failure callback, and "error CODE
 * ERRNO MESSAGE" after a failure. Exit 0, or 1 after a failure.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

#include "api-test.h"

static void problem(void *ctx, const char *path, int err, const char *words)
{
	fprintf(stderr, "problem %s %d %s\n", path, err, words);
}

static void failure(void *ctx, const struct sqk_extract_failure *f)
{
	unsigned *n = ctx;

	++*n;
	fprintf(stderr, "failure %d %d %d %d %" PRIu64 " %s|%s\n", (int)f->stage, f->output, f->err,
		f->errnum, f->count, f->path, f->what);
}

static int run(const char *how, struct sqk_image *img, const char *dest,
	       const struct sqk_extract_opts *o)
{
	if (!strcmp(how, "dir"))
		return sqk_extract_dir(img, dest, o, problem, NULL);
	if (!strcmp(how, "archive"))
		return sqk_extract_archive(img, dest, o, problem, NULL);
	if (!strcmp(how, "describe"))
		return sqk_extract_describe(img, dest, o, problem, NULL);
	return sqk_extract_describe_fd(img, STDOUT_FILENO, o, problem, NULL);
}

int main(int argc, char **argv)
{
	struct sqk_extract_opts *o;
	struct sqk_image *img = NULL;
	struct sqk_image_info info;
	unsigned failures = 0;
	int i, err;

	if (argc < 4)
		return fprintf(stderr, "usage: api-extract-stages HOW IMAGE DEST [OPTION...]\n"), 2;
	o = sqk_extract_opts_create();
	err = o ? sqk_extract_opts_set_failure(o, failure, &failures) : -1;
	for (i = 4; !err && i < argc; i++)
		err = extract_arg(o, argv[i]);
	if (!err)
		err = sqk_image_open_path(argv[2], NULL, &img);
	if (!err) {
		sqk_image_info(img, &info);
		fprintf(stderr, "data-end %" PRIu64 "\n", info.inode_table.start);
		fprintf(stderr, "read %" PRIu64 "\n", sqk_image_bytes_read(img));
		err = run(argv[1], img, argv[3], o);
		fprintf(stderr, "read %" PRIu64 "\n", sqk_image_bytes_read(img));
	}
	if (err)
		fprintf(stderr, "error %d %d %s\n", err, sqk_error_errno(), sqk_error_message());
	fprintf(stderr, "failures %u\n", failures);
	sqk_image_destroy(img);
	sqk_extract_opts_destroy(o);
	return err ? 1 : 0;
}
