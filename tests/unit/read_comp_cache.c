// SPDX-License-Identifier: BSD-2-Clause
/*
 * The compressed-block cache: an image whose decompressed caches hold one
 * block each is read twice. With a compressed-block cache that holds the
 * image, the second pass reads nothing from the file (data blocks, blocks
 * stored raw, fragments, and metadata blocks with their headers), although
 * it decompresses again, and gives the same bytes; the cache says how many
 * bytes it holds. Without it, or with one too small, the second pass reads
 * the file again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressors/compressor.h"
#include "mem_image.h"
#include "read/data.h"
#include "read/image.h"
#include "read/inode.h"
#include "tap.h"
#include "util/error.h"
#include "util/file.h"
#include "walk/walk.h"

#define NSMALL 60
#define NFILES (NSMALL + 2)

static char names[NFILES][32];
static uint8_t *want[NFILES];
static size_t want_len[NFILES];

static int put(const char *dir, int i, size_t size, int random)
{
	char path[512];
	uint64_t s = 0x1234567ull * (unsigned)(i + 1);
	FILE *fp;
	size_t k;

	snprintf(names[i], sizeof(names[i]), "f%02d", i);
	snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
	want[i] = malloc(size);
	for (k = 0; k < size; k++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		/* Text compresses; random bytes do not, and are stored raw. */
		want[i][k] =
			random ? (uint8_t)s : (uint8_t) "compressed block cache "[(k + i) % 23];
	}
	want_len[i] = size;
	fp = fopen(path, "w");
	if (!fp)
		return -1;
	fwrite(want[i], 1, size, fp);
	return fclose(fp);
}

/* Every file read whole and compared; -1 on a difference or an error. */
static int read_all(struct sqk_image *img)
{
	uint8_t *buf = malloc(200000);
	int i, bad = 0;

	for (i = 0; i < NFILES && !bad; i++) {
		struct sqk_inode ino;
		size_t got = 0, n;
		int err = sqk_resolve(img, names[i], &ino);

		while (!err && got < ino.size) {
			err = sqk_data_pread(img, &ino, got, buf + got, 4096, &n);
			if (!err && n == 0)
				break;
			got += n;
		}
		bad = err || got != want_len[i] || memcmp(buf, want[i], got) != 0;
		if (!err)
			sqk_inode_free(&ino);
	}
	free(buf);
	return bad ? -1 : 0;
}

struct pass {
	uint64_t reads, decompressions;
};

/* Two passes over the image with comp compressed-block entries (0: none). */
static int two_passes(const uint8_t *data, size_t len, unsigned comp, struct pass p[2],
		      uint64_t *held)
{
	struct sqk_image_opts o;
	struct sqk_image *img;
	struct sqk_cache_stats s;
	struct sqk_file *f;
	int i, err = 0;

	sqk_image_opts_default(&o);
	o.meta_entries = o.frag_entries = o.data_entries = 1;
	o.comp_entries = comp;
	if (sqk_image_open(sqk_file_mem(data, len), &o, &img) != 0)
		return -1;
	f = sqk_image_file(img);
	for (i = 0; i < 2 && !err; i++) {
		uint64_t r0 = f->reads, d0 = sqk_image_decompressions(img);

		err = read_all(img);
		p[i].reads = f->reads - r0;
		p[i].decompressions = sqk_image_decompressions(img) - d0;
	}
	*held = 0;
	if (sqk_image_cache(img, SQK_CACHE_COMPRESSED)) {
		sqk_cache_stats(sqk_image_cache(img, SQK_CACHE_COMPRESSED), &s);
		*held = s.held;
	}
	sqk_image_destroy(img);
	return err;
}

int main(void)
{
	char dir[] = "/tmp/sqk-comp-cache.XXXXXX", cmd[600];
	struct pass p[2];
	uint64_t held;
	uint8_t *data;
	size_t len;
	int i, built = 1;

	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP cannot make a scratch directory\n");
		return 0;
	}
	/* Enough small files for several metadata blocks and fragment blocks. */
	for (i = 0; i < NSMALL; i++)
		built &= put(dir, i, 300 + (size_t)i * 97, 0) == 0;
	built &= put(dir, NSMALL, 100000, 0) == 0;
	built &= put(dir, NSMALL + 1, 30000, 1) == 0;
	data = built ? mem_image_of_dir(dir, sqk_codec_by_name("gzip"), 1, &len) : NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
	if (!ok(data != NULL, "the writer builds the image in memory"))
		return tap_done();

	is_int(two_passes(data, len, 4096, p, &held), 0,
	       "with a compressed-block cache: two passes read every file right");
	ok(p[0].reads > 0, "the first pass reads the file (%llu reads)",
	   (unsigned long long)p[0].reads);
	is_int(p[1].reads, 0, "the second pass reads nothing: every block, metadata included");
	ok(p[1].decompressions > 0, "but decompresses again (%llu blocks)",
	   (unsigned long long)p[1].decompressions);
	ok(held > len / 2 && held <= len, "the cache holds about the image: %llu of %zu bytes",
	   (unsigned long long)held, len);

	is_int(two_passes(data, len, 0, p, &held), 0, "without one: two passes read right");
	ok(p[1].reads >= p[0].reads / 2 && p[1].reads > 0,
	   "the second pass reads the file again (%llu reads)", (unsigned long long)p[1].reads);
	is_int(held, 0, "and nothing is held");

	is_int(two_passes(data, len, 2, p, &held), 0, "with two entries: two passes read right");
	ok(p[1].reads > 0, "too small to spare the second pass its reads (%llu)",
	   (unsigned long long)p[1].reads);
	ok(held > 0 && held <= 2 * 4098, "two entries hold at most two blocks (%llu bytes)",
	   (unsigned long long)held);

	free(data);
	for (i = 0; i < NFILES; i++)
		free(want[i]);
	return tap_done();
}
