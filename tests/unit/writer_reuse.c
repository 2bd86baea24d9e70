// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block pipeline with --reuse (core/write/reuse.c, data_reuse.c): the
 * workers prove and copy blocks of an earlier image read through its block
 * layer at once. A changed tree rebuilt with 1, 2 and 8 threads gives the
 * plain build byte for byte, copying most blocks; an unchanged one copies
 * every block; an earlier image damaged all over its data gives the plain
 * build, its blocks counted unreadable or rejected. make check runs it
 * under ThreadSanitizer too (TSAN_UNIT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressors/compressor.h"
#include "mem_image.h"
#include "read/image.h"
#include "tap.h"
#include "util/error.h"
#include "util/le.h"

/* The image in memory, open as an earlier image for threads + 1 provers. */
static struct sqk_image *open_old(const uint8_t *img, size_t len, unsigned threads)
{
	struct sqk_image_opts io;
	struct sqk_image *old = NULL;

	sqk_image_opts_default(&io);
	io.decompressors = threads + 1;
	return sqk_image_open(sqk_file_mem(img, len), &io, &old) ? NULL : old;
}

int main(void)
{
	static const unsigned threads[] = {1, 2, 8};
	const struct sqk_codec *zstd = sqk_codec_by_name("zstd");
	char dir[] = "/tmp/sqk-pool-reuse.XXXXXX", path[600];
	struct sqk_mkfs_stats st;
	uint8_t *a, *b, *r;
	size_t alen, blen, rlen, i;
	struct sqk_image *old;

	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP cannot make a scratch directory\n");
		return 0;
	}
	mem_image_tree(dir, 60, 2777, 40000, 300000);
	a = mem_image_of_dir(dir, zstd, 2, &alen);
	/* Changed: a block of the big file, a small file's tail, one file more. */
	snprintf(path, sizeof(path), "%s/big", dir);
	{
		FILE *fp = fopen(path, "r+");

		if (fp) {
			fseek(fp, 150000, SEEK_SET);
			fputs("CHANGED", fp);
			fclose(fp);
		}
	}
	snprintf(path, sizeof(path), "%s/sub/file-05", dir);
	mem_image_text(path, 5 * 2777 % 40000, 99);
	snprintf(path, sizeof(path), "%s/sub/new", dir);
	mem_image_text(path, 20000, 11);
	b = mem_image_of_dir(dir, zstd, 2, &blen);
	if (!ok(a && b, "the writer builds both images in memory"))
		return tap_done();

	for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		old = open_old(a, alen, threads[i]);
		r = old ? mem_image_build(dir, zstd, threads[i], &old, 1, &st, &rlen) : NULL;
		ok(r && rlen == blen && !memcmp(r, b, blen),
		   "%u threads: --reuse gives the plain build byte for byte", threads[i]);
		ok(st.reused_blocks > 2 * st.compressed_blocks && st.compressed_blocks >= 3,
		   "%u threads: %llu blocks copied, %llu compressed", threads[i],
		   (unsigned long long)st.reused_blocks, (unsigned long long)st.compressed_blocks);
		free(r);
		sqk_image_destroy(old);
	}

	/* The tree unchanged since the earlier image: every block is copied. */
	old = open_old(b, blen, 2);
	r = old ? mem_image_build(dir, zstd, 2, &old, 1, &st, &rlen) : NULL;
	ok(r && rlen == blen && !memcmp(r, b, blen), "an unchanged tree: the plain build");
	is_int(st.compressed_blocks, 0, "an unchanged tree: nothing compressed");
	free(r);
	sqk_image_destroy(old);

	/* Damage all over the earlier image's data: still the plain build. */
	{
		uint64_t inode_table = get_le64(a + 64);
		size_t at;

		for (at = 200; at < inode_table; at += 1500)
			a[at] ^= 0xa5;
		old = open_old(a, alen, 8);
		r = old ? mem_image_build(dir, zstd, 8, &old, 1, &st, &rlen) : NULL;
		ok(r && rlen == blen && !memcmp(r, b, blen),
		   "a damaged earlier image: the plain build");
		ok(st.compressed_blocks > 10,
		   "a damaged earlier image: its blocks compressed (%llu)",
		   (unsigned long long)st.compressed_blocks);
		free(r);
		sqk_image_destroy(old);
	}

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
	free(a);
	free(b);
	return tap_done();
}
