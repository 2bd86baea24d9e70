// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-build-append IMAGE [ARG...]: a build through the public API, as
 * api-build-opts does it (an ARG is NAME or NAME=VALUE for
 * sqk_build_opts_set, then dir=PATH or archive=PATH sources), that prints
 * what the finished build says of itself: "compressor NAME", every figure
 * of sqk_build_stat as "NAME VALUE", and each earlier image's as
 * "reuse.I.NAME VALUE" ("null" when sqk_build_reuse_stat has none;
 * "reuse.I.why WHY" alone for one left out). Two
 * last ARGs end the build early instead of finishing it, after printing
 * "size N", IMAGE's size then: "destroy" destroys it, "signal" raises
 * SIGTERM. A failure is "error CODE MESSAGE" on standard error and exit 1,
 * and once the build exists, its parts (sqk_build_failure) on standard
 * output: "failure CODE path=P words=W errnum=E in_image=I".
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

static const char *const figures[] = {
	"bytes_used",
	"image_size",
	"uncompressed",
	"data_bytes",
	"inode_table_bytes",
	"directory_table_bytes",
	"mkfs_time",
	"inodes",
	"files",
	"directories",
	"symlinks",
	"block_devices",
	"char_devices",
	"fifos",
	"sockets",
	"hardlinks",
	"blocks",
	"raw_blocks",
	"compressed_blocks",
	"fragments",
	"ids",
	"xattr_ids",
	"dedup_files",
	"dedup_bytes",
	"dedup_tails",
	"dedup_tail_bytes",
	"sparse_blocks",
	"sparse_bytes",
	"lseeks",
	"xattrs_skipped",
	"reused_blocks",
	"reused_bytes",
	"block_size",
	"threads",
};

static const char *const reuse_figures[] = {
	"blocks",     "bytes",	 "stored_bytes",     "rejected",
	"unreadable", "skipped", "same_compression", "errno",
};

/* The figures of the finished build; 0, or the error of one that should be there. */
static int print_figures(struct sqk_build *b, size_t nreuse)
{
	uint64_t v;
	size_t i, k;
	int err;

	printf("compressor %s\n", sqk_build_compressor(b));
	for (i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
		if ((err = sqk_build_stat(b, figures[i], &v)))
			return err;
		printf("%s %llu\n", figures[i], (unsigned long long)v);
	}
	for (k = 0; k < nreuse; k++)
		for (i = 0; i < sizeof(reuse_figures) / sizeof(reuse_figures[0]); i++) {
			if (*sqk_build_reuse_why(b, k)) {
				if (!i)
					printf("reuse.%zu.why %s\n", k, sqk_build_reuse_why(b, k));
				if (sqk_build_reuse_stat(b, k, reuse_figures[i], &v) !=
				    SQK_ERR_NOENT)
					return SQK_ERR_ARG;
				continue;
			}
			err = sqk_build_reuse_stat(b, k, reuse_figures[i], &v);
			if (err == SQK_ERR_NOENT && !strcmp(reuse_figures[i], "same_compression"))
				printf("reuse.%zu.%s null\n", k, reuse_figures[i]);
			else if (err)
				return err;
			else
				printf("reuse.%zu.%s %llu\n", k, reuse_figures[i],
				       (unsigned long long)v);
		}
	/* Past the last image, and a name no figure has: refused. */
	if (sqk_build_reuse_stat(b, nreuse, "blocks", &v) != SQK_ERR_ARG ||
	    sqk_build_reuse_why(b, nreuse) != NULL ||
	    sqk_build_stat(b, "no_such_figure", &v) != SQK_ERR_ARG)
		return SQK_ERR_ARG;
	return 0;
}

int main(int argc, char **argv)
{
	struct sqk_build_opts *o = sqk_build_opts_create();
	struct sqk_build *b = NULL;
	size_t nreuse = 0;
	struct stat st;
	uint64_t v;
	int i = 2, err = o ? 0 : SQK_ERR_NOMEM;

	if (argc < 2)
		return fprintf(stderr, "usage: api-build-append IMAGE [ARG...]\n"), 2;
	for (; !err && i < argc && strncmp(argv[i], "dir=", 4) && strncmp(argv[i], "archive=", 8);
	     i++) {
		char *eq = strchr(argv[i], '=');

		if (eq)
			*eq++ = '\0';
		nreuse += !strcmp(argv[i], "reuse");
		err = sqk_build_opts_set(o, argv[i], eq);
	}
	if (!err)
		err = sqk_build_create(argv[1], o, &b);
	sqk_build_opts_destroy(o);
	for (; !err && i < argc && strchr(argv[i], '='); i++) {
		char *eq = strchr(argv[i], '=');

		*eq++ = '\0';
		err = argv[i][0] == 'd' ? sqk_build_add_dir(b, eq) : sqk_build_add_archive(b, eq);
	}
	if (!err && i < argc) {
		/* Given up: the image must go back to its old bytes. */
		printf("size %llu\n", stat(argv[1], &st) ? 0ULL : (unsigned long long)st.st_size);
		fflush(stdout);
		if (!strcmp(argv[i], "signal"))
			raise(SIGTERM);
		sqk_build_destroy(b);
		return 0;
	}
	/* No figure before the finish. */
	if (!err && sqk_build_stat(b, "files", &v) != SQK_ERR_ARG)
		err = SQK_ERR_ARG;
	if (!err)
		err = sqk_build_finish(b);
	if (!err)
		err = print_figures(b, nreuse);
	if (err)
		fprintf(stderr, "error %d %s\n", err, sqk_error_message());
	if (err && b) {
		const char *path, *words;
		int errnum, in_image,
			code = sqk_build_failure(b, &path, &words, &errnum, &in_image);

		printf("failure %d path=%s words=%s errnum=%d in_image=%d\n", code, path, words,
		       errnum, in_image);
	}
	sqk_build_destroy(b);
	return err ? 1 : 0;
}
