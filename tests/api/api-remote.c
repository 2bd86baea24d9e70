// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-remote URL FILE PATH: the image at URL, through the public API
 * (squashkit/remote.h), against the same image in FILE: the URL is one,
 * it opens (sqk_image_open_url) with the same facts, PATH reads the same
 * bytes, it opens and checks clean through read callbacks
 * (sqk_io_open_url, sqk_check_io), the finds agree, and the counters say
 * requests were sent and bytes fetched. The option setters refuse what
 * they must. Prints "ok" and exits 0, or says what differed and exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

static int failed;

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "api-remote: %s (%s)\n", what, sqk_error_message());
		failed = 1;
	}
}

/* PATH of img, whole: a buffer to free, or NULL. */
static char *read_all(struct sqk_image *img, const char *path, uint64_t *size)
{
	struct sqk_inode *ino;
	struct sqk_stat st;
	size_t got = 0;
	char *buf;

	if (sqk_inode_open(img, path, &ino))
		return NULL;
	sqk_inode_stat(ino, &st);
	*size = st.size;
	buf = malloc(st.size + 1);
	if (buf && (sqk_inode_pread(img, ino, 0, buf, st.size, &got) != 0 || got != st.size)) {
		free(buf);
		buf = NULL;
	}
	sqk_inode_destroy(ino);
	return buf;
}

int main(int argc, char **argv)
{
	struct sqk_image *u = NULL, *f = NULL, *viaio = NULL;
	struct sqk_image_info iu, iff;
	struct sqk_open_opts *o = sqk_open_opts_create();
	struct sqk_report *r = NULL;
	struct sqk_io io;
	uint64_t a[4], b[4], su = 0, sf = 0, v;
	char *bu, *bf;
	int n;

	if (argc != 4 || !o)
		return 2;
	check(sqk_path_is_url(argv[1]) && !sqk_path_is_url(argv[2]), "sqk_path_is_url");
	check(sqk_open_opts_add_header(o, "X-Test: 1") == 0, "a header is taken");
	check(sqk_open_opts_add_header(o, "no colon") == SQK_ERR_ARG, "a header without ':'");
	check(sqk_open_opts_add_header(o, "X-A: 1\r\nX-B: 2") == SQK_ERR_ARG,
	      "a header with a line break");
	check(sqk_open_opts_set_timeout(o, 0) == SQK_ERR_ARG, "a timeout of 0");
	check(sqk_open_opts_set_timeout(o, 10) == 0 && sqk_open_opts_set_retries(o, 2) == 0,
	      "timeout and retries");
	check(sqk_image_open_url(argv[1], o, &u) == 0, "sqk_image_open_url");
	check(sqk_image_open_path(argv[2], NULL, &f) == 0, "sqk_image_open_path");
	if (!u || !f)
		return 1;
	check(sqk_image_info(u, &iu) == 0 && sqk_image_info(f, &iff) == 0 &&
		      iu.bytes_used == iff.bytes_used && iu.inodes == iff.inodes &&
		      iu.inode_table.start == iff.inode_table.start,
	      "the same facts");
	bu = read_all(u, argv[3], &su);
	bf = read_all(f, argv[3], &sf);
	check(bu && bf && su == sf && !memcmp(bu, bf, su), "the same bytes of PATH");
	free(bu);
	free(bf);
	check(sqk_image_remote_counter(u, "requests", &v) == 0 && v > 0, "requests were sent");
	check(sqk_image_remote_counter(u, "bytes_fetched", &v) == 0 && v > 0, "bytes were fetched");
	check(sqk_image_remote_counter(u, "nonsense", &v) == SQK_ERR_ARG, "an unknown counter");
	check(sqk_image_remote_counter(f, "requests", &v) == SQK_ERR_ARG, "a file has none");
	check(sqk_remote_counter_names()[0] != NULL, "the names");
	check(sqk_io_open_url(argv[1], o, &io) == 0 && sqk_image_open_io(&io, NULL, &viaio) == 0,
	      "sqk_io_open_url, then sqk_image_open_io");
	sqk_image_destroy(viaio);
	check(sqk_io_open_url(argv[1], o, &io) == 0 && sqk_check_io(&io, NULL, 2, &r) == 0 &&
		      sqk_report_clean(r),
	      "sqk_check_io through it: clean");
	sqk_report_destroy(r);
	n = sqk_image_find_url(argv[1], o, UINT64_MAX, a, 4);
	check(n == sqk_image_find_path(argv[2], UINT64_MAX, b, 4) && n == 1 && a[0] == b[0],
	      "the finds agree");
	sqk_image_destroy(u);
	sqk_image_destroy(f);
	sqk_open_opts_destroy(o);
	if (!failed)
		printf("ok\n");
	return failed;
}
