// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-extract HOW IMAGE DEST [OPTION...]: extract IMAGE through the public
 * API, HOW being "dir" (sqk_extract_dir into DEST), "archive"
 * (sqk_extract_archive to the file DEST) or "fd" (sqk_extract_archive_fd
 * to DEST opened here, "-" standard output). An OPTION is NAME or
 * NAME=VALUE for sqk_extract_opts_set, or /PATH for
 * sqk_extract_opts_add_path. Every problem the callback hears of is a
 * line "problem PATH ERR MESSAGE" on standard error; a failure ends with
 * "error CODE ERRNO MESSAGE". Exit 0, or 1 after a failure.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

#include "api-test.h"

static void problem(void *ctx, const char *path, int err, const char *message)
{
	unsigned *n = ctx;

	++*n;
	fprintf(stderr, "problem %s %d %s\n", path, err, message);
}

int main(int argc, char **argv)
{
	struct sqk_extract_opts *o;
	struct sqk_image *img = NULL;
	unsigned problems = 0;
	int i, fd, err;

	if (argc < 4)
		return fprintf(stderr,
			       "usage: api-extract dir|archive|fd IMAGE DEST [OPTION...]\n"),
		       2;
	o = sqk_extract_opts_create();
	err = o ? 0 : -1;
	for (i = 4; !err && i < argc; i++)
		err = extract_arg(o, argv[i]);
	if (!err)
		err = sqk_image_open_path(argv[2], NULL, &img);
	if (err) {
	} else if (!strcmp(argv[1], "dir")) {
		err = sqk_extract_dir(img, argv[3], o, problem, &problems);
	} else if (!strcmp(argv[1], "archive")) {
		err = sqk_extract_archive(img, argv[3], o, problem, &problems);
	} else {
		fd = strcmp(argv[3], "-") ? open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644)
					  : STDOUT_FILENO;
		if (fd < 0)
			return perror(argv[3]), 1;
		err = sqk_extract_archive_fd(img, fd, o, problem, &problems);
		if (fd != STDOUT_FILENO)
			close(fd);
	}
	if (err)
		fprintf(stderr, "error %d %d %s\n", err, sqk_error_errno(), sqk_error_message());
	fprintf(stderr, "problems %u\n", problems);
	sqk_image_destroy(img);
	sqk_extract_opts_destroy(o);
	return err ? 1 : 0;
}
