// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-find FILE [LIMIT]: where images start in FILE, through the public API
 * (sqk_image_find_path, _fd, _io): prints "found N at A B ..." as the path
 * search sees it, and exits 1 when the descriptor and callback searches,
 * or a search into a list too short, say otherwise, or when an image found
 * does not open at its offset. A missing file prints its error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

#include "api-test.h"

#define MAX 16

static int failed;

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "api-find: %s: %s\n", what, sqk_error_message());
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	uint64_t limit = argc > 2 ? strtoull(argv[2], NULL, 10) : UINT64_MAX;
	uint64_t at[MAX], again[MAX], one = 0;
	struct memio m;
	struct sqk_io io;
	int n, i, fd;

	if (argc < 2) {
		fprintf(stderr, "usage: api-find FILE [LIMIT]\n");
		return 2;
	}
	n = sqk_image_find_path(argv[1], limit, at, MAX);
	if (n < 0) {
		printf("error %s errno %s message %s\n", n == SQK_ERR_NOFILE ? "SQK_ERR_NOFILE" : "another",
		       sqk_error_errno() == ENOENT ? "ENOENT" : "another", sqk_error_message());
		return 0;
	}
	printf("found %d at", n);
	for (i = 0; i < n && i < MAX; i++)
		printf(" %llu", (unsigned long long)at[i]);
	printf("\n");

	fd = open(argv[1], O_RDONLY);
	check(fd >= 0 && sqk_image_find_fd(fd, limit, again, MAX) == n &&
		      !memcmp(at, again, sizeof(*at) * (size_t)(n < MAX ? n : MAX)),
	      "the descriptor search");
	check(lseek(fd, 0, SEEK_CUR) == 0, "the descriptor's offset is left alone");
	close(fd);
	check(memio_load(argv[1], &m, &io) == 0 && sqk_image_find_io(&io, limit, again, MAX) == n &&
		      !memcmp(at, again, sizeof(*at) * (size_t)(n < MAX ? n : MAX)) &&
		      m.closed == 1,
	      "the callback search, closed once");
	free(m.data);
	check(sqk_image_find_path(argv[1], limit, &one, 1) == n && (!n || one == at[0]),
	      "a list of one: the count, and the first");
	check(sqk_image_find_path(argv[1], limit, NULL, 0) == n, "no list: the count");

	for (i = 0; i < n && i < MAX; i++) {
		struct sqk_open_opts *o = sqk_open_opts_create();
		struct sqk_image *img;
		struct sqk_image_info info;

		check(o && !sqk_open_opts_set_offset(o, at[i]) &&
			      !sqk_image_open_path(argv[1], o, &img),
		      "an image found opens at its offset");
		if (!failed) {
			sqk_image_info(img, &info);
			check(info.offset == at[i], "and says so");
			sqk_image_destroy(img);
		}
		sqk_open_opts_destroy(o);
	}
	return failed;
}
