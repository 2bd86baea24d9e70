// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-build OUT SRCDIR ARCHIVE LISTING PSEUDOFILE HOSTFILE DATADIR: build OUT through
 * the public API from every kind of source and from entries added one by
 * one under /api (directories, files from a host path, a buffer and a
 * callback, a symlink, devices, a fifo, a socket, a hard link, xattrs),
 * all with mtime 1700000000 and SRCDIR's "skipme" excluded. api.t makes
 * the same tree on the host and compares it with what the kernel and
 * unsquashfs read; the bytes given to /api/data and /api/fn are written to
 * DATADIR/data and DATADIR/fn for it. Also checks the refusals a caller must get, and that a
 * build given up leaves nothing behind. Exits 1 after saying what failed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

static int failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "api-build: %s:%d: ", __FILE__, __LINE__);                 \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, " [%s]\n", sqk_error_message());                           \
			failed = 1;                                                                \
		}                                                                                  \
	} while (0)
#define MUST(call) CHECK((call) == 0, "%s", #call)

#define MTIME 1700000000u

/* The bytes of /api/data and /api/fn: byte i is (i * 7 + i / 251) & 0xff. */
static unsigned char pattern(uint64_t i)
{
	return (unsigned char)((i * 7 + i / 251) & 0xff);
}

static int fill(void *ctx, uint64_t off, void *buf, size_t len)
{
	unsigned char *b = buf;
	size_t i;

	(*(int *)ctx)++;
	for (i = 0; i < len; i++)
		b[i] = pattern(off + i);
	return 0;
}

#define FN_SIZE (3 * 4096 + 100)

/* The first size bytes of the pattern, as DIR/NAME. */
static int save(const char *dir, const char *name, size_t size)
{
	char path[4096];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	for (i = 0; f && i < size; i++)
		putc(pattern(i), f);
	return !f || fclose(f);
}

/* Nothing but OUT's own name in its directory: no temporary file stays. */
static int leftovers(const char *dir, const char *keep)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, keep))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void given_up(const char *dir)
{
	char path[8192];
	struct sqk_build *b;

	snprintf(path, sizeof(path), "%s/given-up.img", dir);
	MUST(sqk_build_create(path, NULL, &b));
	MUST(sqk_build_mkdir(b, "x", &(struct sqk_attr){0755, 0, 0, MTIME}));
	sqk_build_destroy(b);
	CHECK(access(path, F_OK) != 0, "a build given up leaves no image");
	sqk_build_destroy(NULL);
}

int main(int argc, char **argv)
{
	struct sqk_attr dir = {0750, 1, 2, MTIME}, file = {0640, 3, 4, MTIME};
	struct sqk_build_opts *o = sqk_build_opts_create();
	static unsigned char data[10000];
	char longtarget[5001], dirbuf[4096], *slash;
	struct sqk_build *b = NULL;
	uint64_t v;
	int calls = 0;
	size_t i;

	if (argc != 8 || !o)
		return 2;
	for (i = 0; i < sizeof(data); i++)
		data[i] = pattern(i);
	if (save(argv[7], "data", sizeof(data)) || save(argv[7], "fn", FN_SIZE))
		return 1;

	CHECK(sqk_build_opts_set(o, "no-such-option", NULL) == SQK_ERR_ARG, "unknown option");
	CHECK(sqk_build_opts_set(o, "block-size", "3000") == SQK_ERR_ARG, "bad block size");
	CHECK(sqk_build_opts_set(o, "compressor", "zip") == SQK_ERR_ARG, "unknown compressor");
	MUST(sqk_build_opts_set(o, "compressor", "gzip"));
	MUST(sqk_build_opts_set(o, "level", "6"));
	MUST(sqk_build_opts_set(o, "comp-opt", "window=14"));
	MUST(sqk_build_opts_set(o, "block-size", "4K"));
	MUST(sqk_build_opts_set(o, "mtime", "1700000000"));
	MUST(sqk_build_opts_set(o, "exclude", "skipme"));
	MUST(sqk_build_opts_set(o, "threads", "2"));
	MUST(sqk_build_opts_set(o, "no-export", NULL));
	MUST(sqk_build_opts_set(o, "force", NULL));
	if (sqk_build_create(argv[1], o, &b)) {
		fprintf(stderr, "api-build: %s\n", sqk_error_message());
		return 1;
	}
	sqk_build_opts_destroy(o);

	MUST(sqk_build_add_dir(b, argv[2]));
	MUST(sqk_build_add_archive(b, argv[3]));
	MUST(sqk_build_add_listing(b, argv[4]));
	MUST(sqk_build_add_pseudo(b, "ps d 0711 7 8"));
	MUST(sqk_build_add_pseudo_file(b, argv[5]));
	CHECK(sqk_build_add_pseudo(b, "ps/bad q 0644 0 0") == SQK_ERR_ARG,
	      "a bad pseudo definition");

	/* /api/sub is made for its child first, then given its own attributes. */
	MUST(sqk_build_mkdir(b, "/api/sub/deep", &dir));
	MUST(sqk_build_mkdir(b, "api", &(struct sqk_attr){0755, 5, 6, MTIME}));
	MUST(sqk_build_mkdir(b, "api/sub", &dir));
	MUST(sqk_build_add_file(b, "api/host", &file, argv[6]));
	MUST(sqk_build_add_file_data(b, "api/data", &file, data, sizeof(data)));
	MUST(sqk_build_add_file_data(b, "api/empty", &file, "", 0));
	MUST(sqk_build_add_file_fn(b, "api/fn", &file, FN_SIZE, fill, &calls));
	CHECK(calls == 0, "the callback was called %d times by the add (build.h: at the finish)",
	      calls);
	MUST(sqk_build_symlink(b, "api/link", &(struct sqk_attr){0777, 0, 0, MTIME}, "data"));
	MUST(sqk_build_mknod(b, "api/blk", S_IFBLK, &file, makedev(8, 1)));
	MUST(sqk_build_mknod(b, "api/chr", S_IFCHR, &file, makedev(1, 300)));
	MUST(sqk_build_mknod(b, "api/fifo", S_IFIFO, &file, 0));
	MUST(sqk_build_mknod(b, "api/sock", S_IFSOCK, &file, 0));
	MUST(sqk_build_link(b, "api/hard", "api/data"));
	MUST(sqk_build_set_xattr(b, "api/data", "user.comment", "hello", 5));
	MUST(sqk_build_set_xattr(b, "/api", "trusted.x", "", 0));

	/* Refused, leaving the build as it was. */
	memset(longtarget, 'a', sizeof(longtarget) - 1);
	longtarget[sizeof(longtarget) - 1] = '\0';
	CHECK(sqk_build_symlink(b, "api/long", &file, longtarget) == SQK_ERR_OVERFLOW,
	      "a target the format cannot hold");
	CHECK(sqk_build_add_file_data(b, "api/data", &file, "x", 1) == SQK_ERR_EXIST,
	      "a path taken");
	CHECK(sqk_build_mkdir(b, "api/../x", &dir) == SQK_ERR_BADNAME, "a path with ..");
	CHECK(sqk_build_mkdir(b, "api/data/x", &dir) == SQK_ERR_NOTDIR, "a file as a directory");
	CHECK(sqk_build_link(b, "api/hard2", "api/none") == SQK_ERR_NOENT, "a link to nothing");
	CHECK(sqk_build_set_xattr(b, "api/data", "bogus.x", "v", 1) == SQK_ERR_UNSUPPORTED,
	      "an xattr name the format has no prefix for");
	CHECK(sqk_build_mknod(b, "api/reg", S_IFREG, &file, 0) == SQK_ERR_ARG, "mknod of a file");
	CHECK(sqk_build_stat(b, "inodes", &v) == SQK_ERR_ARG, "figures before the end");

	if (sqk_build_finish(b)) {
		fprintf(stderr, "api-build: finish: %s\n", sqk_error_message());
		return 1;
	}
	CHECK(calls == 4, "the callback was called %d times, a block at a time", calls);
	CHECK(!sqk_build_stat(b, "inodes", &v) && v > 20, "inodes: %llu", (unsigned long long)v);
	CHECK(!sqk_build_stat(b, "hardlinks", &v) && v >= 1, "hardlinks: %llu",
	      (unsigned long long)v);
	CHECK(!sqk_build_stat(b, "mkfs_time", &v) && v == MTIME, "mkfs_time %llu",
	      (unsigned long long)v);
	CHECK(sqk_build_stat(b, "no-such-figure", &v) == SQK_ERR_ARG, "an unknown figure");
	CHECK(sqk_build_mkdir(b, "late", &dir) == SQK_ERR_ARG, "adding to a finished build");
	sqk_build_destroy(b);
	CHECK(access(argv[1], F_OK) == 0, "the image is in place after finish and destroy");

	snprintf(dirbuf, sizeof(dirbuf), "%s", argv[1]);
	slash = strrchr(dirbuf, '/');
	if (slash) {
		*slash = '\0';
		given_up(dirbuf);
		CHECK(leftovers(dirbuf, slash + 1) == 0, "nothing but the image beside it");
	}
	return failed;
}
