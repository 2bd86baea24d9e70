// SPDX-License-Identifier: BSD-2-Clause
/*
 * fsck on the worker pool: an image built in memory by the writer is clean
 * for 0 (no pool), 1, 2 and 8 threads, with the same counts; with a data
 * block damaged, every thread count reports the same problems in the same
 * order. make check runs it under ThreadSanitizer too (TSAN_UNIT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compressors/compressor.h"
#include "fsck/fsck.h"
#include "mem_image.h"
#include "mkfs/mkfs.h"
#include "tap.h"
#include "util/error.h"
#include "util/file.h"
#include "util/le.h"

struct report {
	char buf[65536];
	size_t len;
	unsigned n;
};

static void collect(void *ctx, const char *path, const char *check, const char *detail)
{
	struct report *r = ctx;
	int n = snprintf(r->buf + r->len, sizeof(r->buf) - r->len, "%s: %s: %s\n", path, check,
			 detail);

	if (n > 0 && r->len + (size_t)n < sizeof(r->buf))
		r->len += (size_t)n;
	r->n++;
}

static int run(const uint8_t *img, size_t len, unsigned threads, unsigned max,
	       struct sqk_fsck_counts *c, struct report *r)
{
	struct sqk_fsck_opts o = {0};

	memset(r, 0, sizeof(*r));
	o.threads = threads;
	o.max_per_check = max;
	o.report = collect;
	o.ctx = r;
	return mem_image_fsck(img, len, &o, c);
}

/* A tree with blocks, tails, small files, links; an image of it in memory. */
static uint8_t *build(const char *dir, size_t *len)
{
	char path[512];

	mem_image_tree(dir, 40, 1777, 30000, 200000);
	snprintf(path, sizeof(path), "%s/link", dir);
	if (symlink("big", path))
		perror(path);

	return mem_image_of_dir(dir, sqk_codec_by_name("gzip"), 2, len);
}

int main(void)
{
	static const unsigned threads[] = {0, 1, 2, 8};
	char dir[] = "/tmp/sqk-pool-fsck.XXXXXX";
	struct sqk_fsck_counts c0, c;
	struct report r0, r;
	uint8_t *img;
	size_t len, i;
	int skip;

	img = mem_image_scratch(dir, build, &len, &skip);
	if (skip) {
		printf("1..0 # SKIP cannot make a scratch directory\n");
		return 0;
	}
	if (!ok(img != NULL, "the writer builds an image in memory"))
		return tap_done();

	is_int(run(img, len, 0, 0, &c0, &r0), 0, "fsck runs without a pool");
	is_int(c0.errors, 0, "the image is clean");
	if (r0.n)
		printf("# %s", r0.buf);
	ok(c0.inodes == 44 && c0.directories == 2, "inodes and directories counted (%llu, %llu)",
	   (unsigned long long)c0.inodes, (unsigned long long)c0.directories);
	ok(c0.blocks > 40 && c0.fragments > 0 && c0.bytes > 200000,
	   "blocks, fragments and bytes counted (%llu, %llu, %llu)", (unsigned long long)c0.blocks,
	   (unsigned long long)c0.fragments, (unsigned long long)c0.bytes);
	for (i = 1; i < sizeof(threads) / sizeof(threads[0]); i++) {
		is_int(run(img, len, threads[i], 0, &c, &r), 0, "fsck runs with %u threads",
		       threads[i]);
		ok(c.errors == 0 && c.blocks == c0.blocks && c.fragments == c0.fragments &&
			   c.bytes == c0.bytes && c.inodes == c0.inodes,
		   "%u threads: clean, the same counts", threads[i]);
	}

	/* Damage a byte in the middle of the data area: a compressed block stops decompressing. */
	{
		uint64_t inode_table = get_le64(img + 64);
		size_t at = (size_t)(96 + (inode_table - 96) / 2);

		img[at] ^= 0x55;
		run(img, len, 0, 0, &c0, &r0);
		ok(c0.errors > 0 && strstr(r0.buf, ": data: ") != NULL,
		   "a damaged data block is reported as data");
		for (i = 1; i < sizeof(threads) / sizeof(threads[0]); i++) {
			run(img, len, threads[i], 0, &c, &r);
			ok(c.errors == c0.errors && r.len == r0.len &&
				   !memcmp(r.buf, r0.buf, r.len),
			   "%u threads: the same report", threads[i]);
		}
		img[at] ^= 0x55;
	}

	/* Every block of the data area damaged: many problems, listed up to the limit. */
	{
		uint64_t inode_table = get_le64(img + 64);
		uint8_t *bad = malloc(len);
		size_t at;

		memcpy(bad, img, len);
		for (at = 100; at < inode_table; at += 64)
			bad[at] ^= 0xff;
		run(bad, len, 2, 3, &c, &r);
		ok(c.errors > 4 && r.n <= 3 * 22 + 22 && strstr(r.buf, "not listed") != NULL,
		   "past 3 problems of a kind, the rest are counted (%llu found, %u listed)",
		   (unsigned long long)c.errors, r.n);
		free(bad);
	}

	/* Cut short: reported, not an operational error. */
	is_int(run(img, len / 2, 2, 0, &c, &r), 0, "a truncated image is checked");
	ok(c.errors == 1 && strstr(r.buf, "superblock: superblock: ") != NULL,
	   "and reported as one superblock problem");
	is_int(run(img, 10, 2, 0, &c, &r), 0, "a 10-byte file is checked");
	ok(c.errors == 1, "and reported once");

	free(img);
	return tap_done();
}
