// SPDX-License-Identifier: BSD-2-Clause
/*
 * The comparison on the worker pool: two images built in memory from a tree
 * and from a copy changed in many files (contents in a block, in a tail,
 * sizes, modes), compared with 1, 2 and 8 threads, give the same changes in
 * the same order, with the first differing byte of each file; the changed
 * tree on disk against the first image gives them too (the host side read
 * by several workers). Stopping at the first change (--quiet) and a sink
 * that fails end the comparison cleanly. make check runs it under
 * ThreadSanitizer too (TSAN_UNIT).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff/diff.h"
#include "diff/dtree.h"
#include "mem_image.h"
#include "read/image.h"
#include "tap.h"
#include "util/error.h"
#include "util/file.h"

#define FILES 60

struct collect {
	struct sqk_diff_sink sink;
	char buf[65536];
	size_t len;
	unsigned n, stop_after;
	int fail;
};

static int collect(struct sqk_diff_sink *s, const struct sqk_diff_change *c)
{
	struct collect *k = (struct collect *)s;
	int n = snprintf(k->buf + k->len, sizeof(k->buf) - k->len, "%d %s %llu %llu %llu\n",
			 (int)c->what, c->path ? c->path : "-", (unsigned long long)c->a,
			 (unsigned long long)c->b, (unsigned long long)c->offset);

	if (n > 0 && k->len + (size_t)n < sizeof(k->buf))
		k->len += (size_t)n;
	k->n++;
	if (k->fail)
		return SQK_ERR_IO;
	return k->stop_after && k->n >= k->stop_after;
}

static void write_file(const char *dir, const char *name, size_t size, unsigned seed)
{
	char path[512];
	FILE *fp;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	for (i = 0; fp && i < size; i++)
		fputc("squashkit diff test data\n"[(i * seed + i / 89) % 25], fp);
	if (fp)
		fclose(fp);
}

/* Change byte at of dir/name. */
static void poke(const char *dir, const char *name, long at)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (pwrite(fd, "#", 1, at) != 1)
			fprintf(stderr, "# cannot change %s\n", path);
		close(fd);
	}
}

static void tree(const char *dir)
{
	char name[64];
	int i;

	for (i = 0; i < FILES; i++) {
		snprintf(name, sizeof(name), "file-%02d", i);
		write_file(dir, name, (size_t)(i * 2731) % 40000 + 1, (unsigned)i + 3);
	}
	write_file(dir, "big", 3 << 20, 7);
}

/* The copy's changes: every third file in a block or tail, every fifth's mode, one size. */
static void change(const char *dir)
{
	char name[64], path[600];
	int i;

	for (i = 0; i < FILES; i++) {
		size_t size = (size_t)(i * 2731) % 40000 + 1;

		snprintf(name, sizeof(name), "file-%02d", i);
		if (i % 3 == 0)
			poke(dir, name, (long)(size * 2 / 3));
		if (i % 5 == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			chmod(path, 0600);
		}
	}
	poke(dir, "big", (3 << 20) - 5);
	write_file(dir, "file-07", 10, 3);
}

static struct sqk_image *open_mem(const uint8_t *img, size_t len)
{
	struct sqk_image_opts o;
	struct sqk_image *out = NULL;
	struct sqk_file *f = sqk_file_mem(img, len);

	sqk_image_opts_default(&o);
	o.data_entries = 9;
	o.frag_entries = 11;
	o.decompressors = 9;
	if (f && sqk_image_open(f, &o, &out) != 0)
		out = NULL;
	return out;
}

static int run(struct sqk_dtree *a, struct sqk_dtree *b, unsigned threads, struct collect *k,
	       struct sqk_diff_stats *st)
{
	struct sqk_diff_conf o = {0};
	struct sqk_diff_error e;

	k->sink.change = collect;
	k->len = 0;
	k->n = 0;
	k->buf[0] = '\0';
	o.threads = threads;
	return sqk_diff(a, b, &o, &k->sink, st, &e);
}

int main(void)
{
	static const unsigned threads[] = {2, 8};
	char da[] = "/tmp/sqk-pool-diff-a.XXXXXX", db[] = "/tmp/sqk-pool-diff-b.XXXXXX";
	struct sqk_image *ia = NULL, *ib = NULL;
	struct sqk_dtree *ta = NULL, *tb = NULL, *th = NULL;
	struct collect k0, k;
	struct sqk_diff_stats st0, st;
	uint8_t *a = NULL, *b = NULL;
	size_t la, lb, i;
	char cmd[200];

	if (!mkdtemp(da) || !mkdtemp(db)) {
		printf("1..0 # SKIP cannot make a scratch directory\n");
		return 0;
	}
	memset(&k0, 0, sizeof(k0));
	memset(&k, 0, sizeof(k));
	tree(da);
	tree(db);
	change(db);
	a = mem_image_of_dir(da, sqk_codec_by_name("gzip"), 2, &la);
	b = mem_image_of_dir(db, sqk_codec_by_name("gzip"), 2, &lb);
	ia = a ? open_mem(a, la) : NULL;
	ib = b ? open_mem(b, lb) : NULL;
	if (!ok(ia && ib && !sqk_dtree_image(ia, &ta) && !sqk_dtree_image(ib, &tb) &&
			!sqk_dtree_host(db, &th),
		"two images built in memory and opened, and the changed tree"))
		goto out;

	is_int(run(ta, tb, 1, &k0, &st0), 0, "one thread: the comparison runs");
	ok(st0.changed == 2 + 20 + 12 - 4 && st0.files == FILES + 1 - 1,
	   "every changed file is found (%llu changed, %llu compared)",
	   (unsigned long long)st0.changed, (unsigned long long)st0.files);
	ok(strstr(k0.buf, "/big 0 0 3145723\n") != NULL, "the last block's change is at its byte");
	ok(st0.blocks_stored > 700, "the unchanged blocks compare stored (%llu)",
	   (unsigned long long)st0.blocks_stored);
	for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		is_int(run(ta, tb, threads[i], &k, &st), 0, "%u threads: the comparison runs",
		       threads[i]);
		ok(k.len == k0.len && !memcmp(k.buf, k0.buf, k.len),
		   "%u threads: the same changes in the same order", threads[i]);
		ok(st.blocks_stored == st0.blocks_stored && st.bytes_read == st0.bytes_read,
		   "%u threads: the same blocks compared stored and read", threads[i]);
	}
	is_int(run(ta, th, 4, &k, &st), 0, "image against the changed tree: the comparison runs");
	ok(k.len == k0.len && !memcmp(k.buf, k0.buf, k.len),
	   "image against the changed tree: the same changes");

	k.stop_after = 1;
	is_int(run(ta, tb, 8, &k, &st), 0, "stopped at the first change: not an error");
	is_int(k.n, 1, "stopped at the first change: one change seen");
	k.stop_after = 0;
	k.fail = 1;
	ok(run(ta, tb, 8, &k, &st) == SQK_ERR_IO && k.n == 1, "a sink that fails ends it");
	k.fail = 0;
	/* A tree serves one walk: the same image twice is two trees. */
	sqk_dtree_destroy(ta);
	ta = NULL;
	ok(sqk_dtree_image(ib, &ta) == 0, "a second tree of the second image");
	is_int(run(ta, tb, 8, &k, &st), 0, "an image against itself");
	ok(k.n == 0 && st.bytes_read == 0 && st.blocks_stored > 700,
	   "nothing differs, nothing is decompressed");
out:
	sqk_dtree_destroy(ta);
	sqk_dtree_destroy(tb);
	sqk_dtree_destroy(th);
	if (ia)
		sqk_image_destroy(ia);
	if (ib)
		sqk_image_destroy(ib);
	free(a);
	free(b);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", da, db);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove the scratch directories\n");
	return tap_done();
}
