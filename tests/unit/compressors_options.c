// SPDX-License-Identifier: BSD-2-Clause
/*
 * The six codecs' registry and options: options blocks against golden
 * bytes written by hand from the format, options blocks that must be
 * refused, -X options and what describe reports. The blocks themselves
 * are in compressors_blocks.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressors/compressor.h"
#include "compressors_test.h"
#include "format/format.h"
#include "tap.h"
#include "util/error.h"

static void test_registry(void)
{
	const struct sqk_codec *c;
	int n = 0;

	for (int id = 1; id <= 6; id++) {
		c = sqk_codec_by_id(id);
		ok(c && c->id == id && !strcmp(c->name, codec_names[id]), "id %d is %s", id,
		   codec_names[id]);
		ok(sqk_codec_by_name(codec_names[id]) == c, "by name %s", codec_names[id]);
	}
	ok(!sqk_codec_by_id(0) && !sqk_codec_by_id(7), "ids 0 and 7 are unknown");
	ok(!sqk_codec_by_name("bzip2") && !sqk_codec_by_name(NULL), "unknown names");
	while (sqk_codecs[n])
		n++;
	is_int(n, 6, "six codecs in the table");

	struct sqk_comp_config cfg;
	is_int(sqk_comp_config_init(&cfg, 9, 131072), SQK_ERR_UNSUPPORTED, "config for id 9");
	is_int(sqk_comp_config_init(&cfg, SQK_COMP_GZIP, 131072), 0, "config for gzip");
	is_int(cfg.level, 9, "gzip default level 9");
	is_int(cfg.window, 15, "gzip default window 15");
	sqk_comp_config_init(&cfg, SQK_COMP_XZ, 131072);
	is_int(cfg.level, 6, "xz default level 6");
	is_int(cfg.dict_size, 131072, "xz default dictionary is the block size");
	sqk_comp_config_init(&cfg, SQK_COMP_ZSTD, 131072);
	is_int(cfg.level, 15, "zstd default level 15");
	sqk_comp_config_init(&cfg, SQK_COMP_LZ4, 131072);
	is_int(cfg.level, 0, "lz4 default level 0");
	sqk_comp_config_init(&cfg, SQK_COMP_LZO, 131072);
	is_int(cfg.level, 8, "lzo default level 8");
	is_int(cfg.algorithm, SQK_LZO1X_999, "lzo default lzo1x_999");
	sqk_comp_config_init(&cfg, SQK_COMP_LZMA, 131072);
	is_int(cfg.level, 6, "lzma default level 6");
}

/* -------- options blocks -------- */

struct golden {
	int id;
	const char *opts[4]; /* -X options applied to the defaults */
	size_t len;
	uint8_t bytes[8];
};

/* Each written by hand from the field layout, little-endian. */
static const struct golden goldens[] = {
	{SQK_COMP_GZIP, {NULL}, 0, {0}},
	{SQK_COMP_GZIP,
	 {"level=6", "window=12", "strategy=filtered,run_length_encoded"},
	 8,
	 {0x06, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x0a, 0x00}},
	{SQK_COMP_GZIP, {"strategy=default,huffman_only,fixed"}, 8, {9, 0, 0, 0, 15, 0, 0x15, 0}},
	{SQK_COMP_GZIP, {"window=8", "level=1"}, 8, {1, 0, 0, 0, 8, 0, 0, 0}},
	{SQK_COMP_XZ, {NULL}, 0, {0}},
	{SQK_COMP_XZ,
	 {"dict-size=64K", "bcj=x86,arm"},
	 8,
	 {0x00, 0x00, 0x01, 0x00, 0x09, 0x00, 0x00, 0x00}},
	{SQK_COMP_XZ, {"dict-size=37.5%"}, 8, {0x00, 0xc0, 0x00, 0x00, 0, 0, 0, 0}},
	{SQK_COMP_XZ,
	 {"bcj=powerpc,ia64,armthumb,sparc"},
	 8,
	 {0x00, 0x00, 0x02, 0x00, 0x36, 0x00, 0x00, 0x00}},
	{SQK_COMP_XZ, {"level=9"}, 0, {0}}, /* the xz level is not stored */
	{SQK_COMP_LZO, {NULL}, 0, {0}},
	{SQK_COMP_LZO, {"algorithm=lzo1x_1"}, 8, {0, 0, 0, 0, 0, 0, 0, 0}},
	{SQK_COMP_LZO, {"algorithm=lzo1x_1_15", "level=3"}, 8, {3, 0, 0, 0, 0, 0, 0, 0}},
	{SQK_COMP_LZO, {"level=5"}, 8, {4, 0, 0, 0, 5, 0, 0, 0}},
	{SQK_COMP_LZ4, {NULL}, 8, {1, 0, 0, 0, 0, 0, 0, 0}},
	{SQK_COMP_LZ4, {"level=9"}, 8, {1, 0, 0, 0, 1, 0, 0, 0}},
	{SQK_COMP_ZSTD, {NULL}, 0, {0}},
	{SQK_COMP_ZSTD, {"level=19"}, 4, {0x13, 0x00, 0x00, 0x00}},
	{SQK_COMP_ZSTD, {"level=1"}, 4, {0x01, 0x00, 0x00, 0x00}},
	{SQK_COMP_LZMA, {NULL}, 0, {0}},
	{SQK_COMP_LZMA, {"level=9"}, 0, {0}},
};

static int same_config(const struct sqk_comp_config *a, const struct sqk_comp_config *b)
{
	switch (a->id) {
	case SQK_COMP_GZIP:
		return a->level == b->level && a->window == b->window &&
		       a->strategies == b->strategies;
	case SQK_COMP_XZ:
		return a->dict_size == b->dict_size && a->filters == b->filters;
	case SQK_COMP_LZO:
		return a->algorithm == b->algorithm &&
		       (a->algorithm != SQK_LZO1X_999 || a->level == b->level);
	case SQK_COMP_LZ4:
		return (a->level > 0) == (b->level > 0);
	case SQK_COMP_ZSTD:
		return a->level == b->level;
	}
	return 1;
}

static void test_goldens(void)
{
	for (size_t g = 0; g < sizeof(goldens) / sizeof(goldens[0]); g++) {
		const struct golden *gd = &goldens[g];
		const struct sqk_codec *codec = sqk_codec_by_id(gd->id);
		struct sqk_comp_config cfg, back;
		uint8_t buf[16];
		size_t len = 99;
		char desc[160];
		int r = 0;

		snprintf(desc, sizeof(desc), "%s", codec->name);
		sqk_comp_config_init(&cfg, gd->id, 128 * KiB);
		for (int i = 0; i < 4 && gd->opts[i]; i++) {
			r |= sqk_comp_config_option(&cfg, gd->opts[i]);
			snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), " %s",
				 gd->opts[i]);
		}
		is_int(r, 0, "%s: options accepted", desc);
		memset(buf, 0xee, sizeof(buf));
		is_int(codec->write_options(&cfg, buf, sizeof(buf), &len), 0, "%s: written", desc);
		is_int(len, gd->len, "%s: block length", desc);
		ok(len == gd->len && !memcmp(buf, gd->bytes, gd->len), "%s: golden bytes", desc);
		if (gd->len == 0)
			continue;
		sqk_comp_config_init(&back, gd->id, 128 * KiB);
		is_int(codec->read_options(&back, gd->bytes, gd->len), 0, "%s: golden read back",
		       desc);
		ok(same_config(&cfg, &back) && back.has_options, "%s: same settings read back",
		   desc);
		/* The same config, read from an image, writes the same block again. */
		is_int(codec->write_options(&back, buf, sizeof(buf), &len), 0, "%s: rewritten",
		       desc);
		ok(len == gd->len && !memcmp(buf, gd->bytes, gd->len), "%s: rewritten the same",
		   desc);
		is_int(codec->write_options(&cfg, buf, gd->len - 1, &len), SQK_ERR_ARG,
		       "%s: no room is an error", desc);
	}
}

struct bad_block {
	int id;
	size_t len;
	uint8_t bytes[12];
	const char *why;
};

static const struct bad_block bad_blocks[] = {
	{SQK_COMP_GZIP, 0, {0}, "empty"},
	{SQK_COMP_GZIP, 7, {9, 0, 0, 0, 15, 0, 0}, "7 bytes"},
	{SQK_COMP_GZIP, 9, {9, 0, 0, 0, 15, 0, 0, 0, 0}, "9 bytes"},
	{SQK_COMP_GZIP, 8, {0, 0, 0, 0, 15, 0, 0, 0}, "level 0"},
	{SQK_COMP_GZIP, 8, {10, 0, 0, 0, 15, 0, 0, 0}, "level 10"},
	{SQK_COMP_GZIP, 8, {9, 0, 0, 1, 15, 0, 0, 0}, "level 2^24+9"},
	{SQK_COMP_GZIP, 8, {9, 0, 0, 0, 7, 0, 0, 0}, "window 7"},
	{SQK_COMP_GZIP, 8, {9, 0, 0, 0, 16, 0, 0, 0}, "window 16"},
	{SQK_COMP_GZIP, 8, {9, 0, 0, 0, 15, 1, 0, 0}, "window 271"},
	{SQK_COMP_GZIP, 8, {9, 0, 0, 0, 15, 0, 0x20, 0}, "strategy bit 0x20"},
	{SQK_COMP_GZIP, 8, {9, 0, 0, 0, 15, 0, 0, 0x80}, "strategy bit 0x8000"},
	{SQK_COMP_XZ, 4, {0, 0, 1, 0}, "4 bytes"},
	{SQK_COMP_XZ, 12, {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "12 bytes"},
	{SQK_COMP_XZ, 8, {0, 0, 0, 0, 0, 0, 0, 0}, "dictionary 0"},
	{SQK_COMP_XZ, 8, {0, 0x10, 0, 0, 0, 0, 0, 0}, "dictionary 4K"},
	{SQK_COMP_XZ, 8, {0, 0x40, 0x01, 0, 0, 0, 0, 0}, "dictionary 80K (5 * 16K)"},
	{SQK_COMP_XZ, 8, {0, 0xc0, 0x01, 0, 0, 0, 0, 0}, "dictionary 112K (7 * 16K)"},
	{SQK_COMP_XZ, 8, {0, 0, 0x04, 0, 0, 0, 0, 0}, "dictionary 256K over 128K blocks"},
	{SQK_COMP_XZ, 8, {0, 0, 0x01, 0, 0x40, 0, 0, 0}, "filter bit 0x40"},
	{SQK_COMP_XZ, 8, {0, 0, 0x01, 0, 0, 0, 0, 0x80}, "filter bit 2^31"},
	{SQK_COMP_LZO, 4, {4, 0, 0, 0}, "4 bytes"},
	{SQK_COMP_LZO, 8, {5, 0, 0, 0, 0, 0, 0, 0}, "algorithm 5"},
	{SQK_COMP_LZO, 8, {4, 0, 0, 0, 0, 0, 0, 0}, "lzo1x_999 level 0"},
	{SQK_COMP_LZO, 8, {4, 0, 0, 0, 10, 0, 0, 0}, "lzo1x_999 level 10"},
	{SQK_COMP_LZO, 8, {0, 0, 0, 0, 1, 0, 0, 0}, "lzo1x_1 with a level"},
	{SQK_COMP_LZO, 8, {2, 0, 0, 0, 8, 0, 0, 0}, "lzo1x_1_12 with a level"},
	{SQK_COMP_LZ4, 0, {0}, "empty"},
	{SQK_COMP_LZ4, 4, {1, 0, 0, 0}, "4 bytes"},
	{SQK_COMP_LZ4, 8, {0, 0, 0, 0, 0, 0, 0, 0}, "version 0"},
	{SQK_COMP_LZ4, 8, {2, 0, 0, 0, 0, 0, 0, 0}, "version 2"},
	{SQK_COMP_LZ4, 8, {1, 0, 0, 0, 2, 0, 0, 0}, "flag 0x2"},
	{SQK_COMP_ZSTD, 0, {0}, "empty"},
	{SQK_COMP_ZSTD, 8, {15, 0, 0, 0, 0, 0, 0, 0}, "8 bytes"},
	{SQK_COMP_ZSTD, 4, {0, 0, 0, 0}, "level 0"},
	{SQK_COMP_ZSTD, 4, {23, 0, 0, 0}, "level 23"},
	{SQK_COMP_ZSTD, 4, {15, 0, 0, 1}, "level 2^24+15"},
	{SQK_COMP_LZMA, 0, {0}, "empty"},
	{SQK_COMP_LZMA, 8, {0, 0, 1, 0, 0, 0, 0, 0}, "any block at all"},
};

static void test_bad_blocks(void)
{
	for (size_t i = 0; i < sizeof(bad_blocks) / sizeof(bad_blocks[0]); i++) {
		const struct bad_block *b = &bad_blocks[i];
		const struct sqk_codec *codec = sqk_codec_by_id(b->id);
		struct sqk_comp_config cfg, before;

		sqk_comp_config_init(&cfg, b->id, 128 * KiB);
		before = cfg;
		is_int(codec->read_options(&cfg, b->bytes, b->len), SQK_ERR_CORRUPT,
		       "%s options block rejected: %s", codec->name, b->why);
		(void)before;
	}
}

struct opt_case {
	int id;
	const char *kv;
	int want;
};

static const struct opt_case opt_cases[] = {
	{SQK_COMP_GZIP, "level=1", 0},
	{SQK_COMP_GZIP, "level=9", 0},
	{SQK_COMP_GZIP, "level=0", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "level=10", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "level=", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "level=-1", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "level=5x", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "level=99999999999999999999999", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "window=8", 0},
	{SQK_COMP_GZIP, "window=15", 0},
	{SQK_COMP_GZIP, "window=7", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "window=16", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "window=abc", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "strategy=default", 0},
	{SQK_COMP_GZIP, "strategy=filtered,huffman_only,run_length_encoded,fixed", 0},
	{SQK_COMP_GZIP, "strategy=", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "strategy=default,", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "strategy=rle", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "dict-size=8K", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "bogus=1", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "level", SQK_ERR_ARG},
	{SQK_COMP_GZIP, "=9", SQK_ERR_ARG},
	{SQK_COMP_XZ, "level=0", 0},
	{SQK_COMP_XZ, "level=9", 0},
	{SQK_COMP_XZ, "level=10", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=8K", 0},
	{SQK_COMP_XZ, "dict-size=8192", 0},
	{SQK_COMP_XZ, "dict-size=96K", 0},
	{SQK_COMP_XZ, "dict-size=128K", 0},
	{SQK_COMP_XZ, "dict-size=100%", 0},
	{SQK_COMP_XZ, "dict-size=75%", 0},
	{SQK_COMP_XZ, "dict-size=37.5%", 0},
	{SQK_COMP_XZ, "dict-size=12.5%", 0},
	{SQK_COMP_XZ, "dict-size=4K", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=4096", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=256K", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=1M", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=80K", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=30%", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=200%", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=1%", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=64KB", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=64.5K", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=%", SQK_ERR_ARG},
	{SQK_COMP_XZ, "dict-size=99999999999999999999K", SQK_ERR_ARG},
	{SQK_COMP_XZ, "bcj=x86", 0},
	{SQK_COMP_XZ, "bcj=x86,arm,armthumb,powerpc,sparc,ia64", 0},
	{SQK_COMP_XZ, "bcj=arm64", SQK_ERR_ARG},
	{SQK_COMP_XZ, "bcj=", SQK_ERR_ARG},
	{SQK_COMP_XZ, "window=15", SQK_ERR_ARG},
	{SQK_COMP_XZ, "extreme=1", 0},
	{SQK_COMP_XZ, "extreme=0", 0},
	{SQK_COMP_XZ, "extreme=yes", SQK_ERR_ARG},
	{SQK_COMP_XZ, "lc=0", 0},
	{SQK_COMP_XZ, "lc=4", 0},
	{SQK_COMP_XZ, "lc=5", SQK_ERR_ARG},
	{SQK_COMP_XZ, "lp=1", 0},
	{SQK_COMP_XZ, "lp=4", SQK_ERR_ARG}, /* with the default lc 3 */
	{SQK_COMP_XZ, "lp=5", SQK_ERR_ARG},
	{SQK_COMP_XZ, "pb=0", 0},
	{SQK_COMP_XZ, "pb=4", 0},
	{SQK_COMP_XZ, "pb=5", SQK_ERR_ARG},
	{SQK_COMP_XZ, "pb=", SQK_ERR_ARG},
	{SQK_COMP_LZO, "algorithm=lzo1x_1", 0},
	{SQK_COMP_LZO, "algorithm=lzo1x_1_11", 0},
	{SQK_COMP_LZO, "algorithm=lzo1x_1_12", 0},
	{SQK_COMP_LZO, "algorithm=lzo1x_1_15", 0},
	{SQK_COMP_LZO, "algorithm=lzo1x_999", 0},
	{SQK_COMP_LZO, "algorithm=lzo1x", SQK_ERR_ARG},
	{SQK_COMP_LZO, "algorithm=", SQK_ERR_ARG},
	{SQK_COMP_LZO, "level=1", 0},
	{SQK_COMP_LZO, "level=9", 0},
	{SQK_COMP_LZO, "level=0", SQK_ERR_ARG},
	{SQK_COMP_LZO, "level=10", SQK_ERR_ARG},
	{SQK_COMP_LZ4, "level=0", 0},
	{SQK_COMP_LZ4, "level=12", 0},
	{SQK_COMP_LZ4, "level=13", SQK_ERR_ARG},
	{SQK_COMP_LZ4, "hc=1", SQK_ERR_ARG},
	{SQK_COMP_ZSTD, "level=1", 0},
	{SQK_COMP_ZSTD, "level=22", 0},
	{SQK_COMP_ZSTD, "level=0", SQK_ERR_ARG},
	{SQK_COMP_ZSTD, "level=23", SQK_ERR_ARG},
	{SQK_COMP_LZMA, "level=0", 0},
	{SQK_COMP_LZMA, "level=9", 0},
	{SQK_COMP_LZMA, "level=10", SQK_ERR_ARG},
	{SQK_COMP_LZMA, "dict-size=64K", SQK_ERR_ARG},
};

static void test_set_option(void)
{
	for (size_t i = 0; i < sizeof(opt_cases) / sizeof(opt_cases[0]); i++) {
		const struct opt_case *oc = &opt_cases[i];
		struct sqk_comp_config cfg, back;
		const struct sqk_codec *codec = sqk_codec_by_id(oc->id);
		uint8_t buf[16];
		size_t len;
		int r;

		sqk_comp_config_init(&cfg, oc->id, 128 * KiB);
		r = sqk_comp_config_option(&cfg, oc->kv);
		/* Options that go together only in pairs are refused as the block is made. */
		if (!r)
			r = codec->write_options(&cfg, buf, sizeof(buf), &len);
		is_int(r, oc->want, "%s -X %s", codec->name, oc->kv);
		if (r)
			continue;
		/* Every accepted option survives write_options then read_options. */
		r = codec->write_options(&cfg, buf, sizeof(buf), &len);
		sqk_comp_config_init(&back, oc->id, 128 * KiB);
		if (!r && len)
			r = codec->read_options(&back, buf, len);
		ok(!r && same_config(&cfg, &back), "%s -X %s: round trip through the block",
		   codec->name, oc->kv);
	}

	struct sqk_comp_config cfg;
	sqk_comp_config_init(&cfg, SQK_COMP_XZ, 1 * MiB);
	is_int(sqk_comp_config_option(&cfg, "dict-size=50%"), 0, "xz 50%% of 1M");
	is_int(cfg.dict_size, 512 * KiB, "is 512K");
	is_int(sqk_comp_config_option(&cfg, "dict-size=1M"), 0, "xz 1M with 1M blocks");
	is_int(cfg.dict_size, MiB, "is 1M");
	sqk_comp_config_init(&cfg, SQK_COMP_XZ, 4 * KiB);
	is_int(sqk_comp_config_option(&cfg, "dict-size=8K"), SQK_ERR_ARG,
	       "xz 8K over 4K blocks is refused");
	sqk_comp_config_init(&cfg, SQK_COMP_GZIP, 128 * KiB);
	sqk_comp_config_option(&cfg, "strategy=fixed,filtered");
	sqk_comp_config_option(&cfg, "strategy=rle");
	is_int(sqk_comp_config_option(&cfg, "strategy=run_length_encoded"), 0, "strategy again");
	is_int(cfg.strategies, SQK_GZIP_RLE, "a later strategy list replaces the earlier");
}

static const char *kv_find(const struct sqk_comp_kv *kv, int n, const char *key, int *num)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(kv[i].key, key)) {
			*num = kv[i].is_number;
			return kv[i].value;
		}
	}
	return NULL;
}

static void check_kv(const struct sqk_comp_kv *kv, int n, const char *key, const char *want,
		     int want_num, const char *codec)
{
	int num = -1;
	const char *v = kv_find(kv, n, key, &num);

	ok(v && !strcmp(v, want) && num == want_num, "%s describe %s = %s", codec, key, want);
	if (v && strcmp(v, want))
		printf("#   got %s\n", v);
}

static void test_describe(void)
{
	struct sqk_comp_config cfg;
	struct sqk_comp_kv kv[8];
	int n;

	sqk_comp_config_init(&cfg, SQK_COMP_GZIP, 128 * KiB);
	sqk_comp_config_option(&cfg, "strategy=filtered,fixed");
	n = sqk_codec_by_id(SQK_COMP_GZIP)->describe(&cfg, kv, 8);
	is_int(n, 3, "gzip describes three settings");
	check_kv(kv, n, "compression_level", "9", 1, "gzip");
	check_kv(kv, n, "window_size", "15", 1, "gzip");
	check_kv(kv, n, "strategies", "filtered,fixed", 0, "gzip");
	is_int(sqk_codec_by_id(SQK_COMP_GZIP)->describe(&cfg, kv, 1), 1, "describe honours max");

	sqk_comp_config_init(&cfg, SQK_COMP_XZ, 128 * KiB);
	n = sqk_codec_by_id(SQK_COMP_XZ)->describe(&cfg, kv, 8);
	check_kv(kv, n, "dict_size", "131072", 1, "xz");
	check_kv(kv, n, "filters", "none", 0, "xz");
	sqk_comp_config_option(&cfg, "bcj=sparc,x86");
	n = sqk_codec_by_id(SQK_COMP_XZ)->describe(&cfg, kv, 8);
	check_kv(kv, n, "filters", "x86,sparc", 0, "xz");

	sqk_comp_config_init(&cfg, SQK_COMP_LZ4, 128 * KiB);
	n = sqk_codec_by_id(SQK_COMP_LZ4)->describe(&cfg, kv, 8);
	check_kv(kv, n, "version", "1", 1, "lz4");
	check_kv(kv, n, "hc", "0", 1, "lz4");
	sqk_comp_config_option(&cfg, "level=12");
	n = sqk_codec_by_id(SQK_COMP_LZ4)->describe(&cfg, kv, 8);
	check_kv(kv, n, "hc", "1", 1, "lz4");

	sqk_comp_config_init(&cfg, SQK_COMP_ZSTD, 128 * KiB);
	n = sqk_codec_by_id(SQK_COMP_ZSTD)->describe(&cfg, kv, 8);
	check_kv(kv, n, "compression_level", "15", 1, "zstd");

	sqk_comp_config_init(&cfg, SQK_COMP_LZO, 128 * KiB);
	n = sqk_codec_by_id(SQK_COMP_LZO)->describe(&cfg, kv, 8);
	check_kv(kv, n, "algorithm", "lzo1x_999", 0, "lzo");
	check_kv(kv, n, "compression_level", "8", 1, "lzo");
	sqk_comp_config_option(&cfg, "algorithm=lzo1x_1_11");
	n = sqk_codec_by_id(SQK_COMP_LZO)->describe(&cfg, kv, 8);
	check_kv(kv, n, "algorithm", "lzo1x_1_11", 0, "lzo");
	check_kv(kv, n, "compression_level", "0", 1, "lzo");

	sqk_comp_config_init(&cfg, SQK_COMP_LZMA, 128 * KiB);
	is_int(sqk_codec_by_id(SQK_COMP_LZMA)->describe(&cfg, kv, 8), 0,
	       "lzma has nothing to describe");
}

int main(void)
{
	test_registry();
	test_goldens();
	test_bad_blocks();
	test_set_option();
	test_describe();
	return tap_done();
}
