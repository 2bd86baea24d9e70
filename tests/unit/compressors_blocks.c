// SPDX-License-Identifier: BSD-2-Clause
/*
 * The six codecs' blocks: round trips at several levels and block sizes,
 * format details of the streams, best-of candidates and hostile input to
 * the decoders. Buffers handed to decompress are exactly cap bytes long so
 * ASan sees any write past the end. Registry and options are in
 * compressors_options.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../tools/lib/zlib_refused.h"
#include "compressors/compressor.h"
#include "compressors_test.h"
#include "format/format.h"
#include "tap.h"
#include "util/error.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic, so every run tests the same bytes. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(rng() >> 32);
}

/* Text-like data: words from a small vocabulary, some numbers, newlines. */
static void fill_text(uint8_t *p, size_t n)
{
	static const char *const words[] = {
		"squash", "block",  "inode",	  "fragment", "directory",  "the",	"of",
		"table",  "export", "superblock", "and",      "compressor", "metadata", "a",
		"data",	  "xattr",  "id",	  "to",	      "image",	    "cache",	"entry",
	};
	size_t i = 0;

	while (i < n) {
		char tmp[32];
		uint64_t r = rng();
		int len;

		if (r % 17 == 0)
			len = snprintf(tmp, sizeof(tmp), "%u", (unsigned)(r >> 40) % 100000);
		else
			len = snprintf(tmp, sizeof(tmp), "%s", words[(r >> 8) % 21]);
		tmp[len++] = (r >> 20) % 11 == 0 ? '\n' : ' ';
		for (int k = 0; k < len && i < n; k++)
			p[i++] = (uint8_t)tmp[k];
	}
}

/* -------- round trips -------- */

struct variant {
	int id;
	const char *opts[3];
	/*
	 * The largest block size the variant is tried at: each codec's defaults
	 * up to 1M; a setting that is slow and means nothing more for a 1M
	 * block than for a 128K one (a level, a window or dictionary smaller
	 * than the block, filters tried in turn) up to 128K.
	 */
	uint32_t max_size;
};

static const struct variant variants[] = {
	{SQK_COMP_GZIP, {NULL}, MiB},
	{SQK_COMP_GZIP, {"level=1"}, MiB},
	{SQK_COMP_GZIP, {"level=5"}, MiB},
	{SQK_COMP_GZIP, {"window=8"}, 128 * KiB},
	{SQK_COMP_GZIP, {"window=12", "level=3"}, MiB},
	{SQK_COMP_GZIP,
	 {"strategy=default,filtered,huffman_only,run_length_encoded,fixed"},
	 128 * KiB},
	{SQK_COMP_GZIP, {"strategy=huffman_only"}, MiB},
	{SQK_COMP_LZMA, {NULL}, MiB},
	{SQK_COMP_LZMA, {"level=0"}, 128 * KiB},
	{SQK_COMP_LZMA, {"level=9"}, 128 * KiB},
	{SQK_COMP_LZO, {NULL}, MiB},
	{SQK_COMP_LZO, {"level=1"}, MiB},
	{SQK_COMP_LZO, {"level=9"}, 128 * KiB},
	{SQK_COMP_LZO, {"algorithm=lzo1x_1"}, MiB},
	{SQK_COMP_LZO, {"algorithm=lzo1x_1_11"}, MiB},
	{SQK_COMP_LZO, {"algorithm=lzo1x_1_12"}, MiB},
	{SQK_COMP_LZO, {"algorithm=lzo1x_1_15"}, MiB},
	{SQK_COMP_XZ, {NULL}, MiB},
	{SQK_COMP_XZ, {"level=0"}, 128 * KiB},
	{SQK_COMP_XZ, {"level=9", "dict-size=50%"}, 128 * KiB},
	{SQK_COMP_XZ, {"bcj=x86,arm,armthumb,powerpc,sparc,ia64"}, 128 * KiB},
	{SQK_COMP_XZ, {"bcj=x86", "dict-size=8K"}, 128 * KiB},
	{SQK_COMP_LZ4, {NULL}, MiB},
	{SQK_COMP_LZ4, {"level=1"}, MiB},
	{SQK_COMP_LZ4, {"level=9"}, 128 * KiB},
	{SQK_COMP_LZ4, {"level=12"}, 128 * KiB},
	{SQK_COMP_ZSTD, {NULL}, MiB},
	{SQK_COMP_ZSTD, {"level=1"}, MiB},
	{SQK_COMP_ZSTD, {"level=19"}, 128 * KiB},
	{SQK_COMP_ZSTD, {"level=22"}, 128 * KiB},
};

static const uint32_t sizes[] = {4 * KiB, 128 * KiB, MiB};

static uint8_t *text_data, *random_data, *zero_data;

static void variant_name(const struct variant *v, char *out, size_t cap)
{
	snprintf(out, cap, "%s", sqk_codec_by_id(v->id)->name);
	for (int i = 0; i < 3 && v->opts[i]; i++)
		snprintf(out + strlen(out), cap - strlen(out), " %s", v->opts[i]);
}

/* Set: decompress_exact() uses the kernel's decoder of a codec that has one. */
static int kernel_decoder;

/* Decompress into a heap buffer of exactly cap bytes, so ASan sees overruns. */
static int decompress_exact(struct sqk_compressor *c, const uint8_t *src, size_t len, size_t cap,
			    uint8_t **out, size_t *outlen)
{
	uint8_t *buf = malloc(cap ? cap : 1);
	int r;

	*outlen = 0;
	if (kernel_decoder && c->decompress_kernel)
		r = c->decompress_kernel(c, src, len, buf, cap, outlen);
	else
		r = c->decompress(c, src, len, buf, cap, outlen);
	if (!r && *outlen > cap)
		r = 1000; /* impossible unless the codec lies */
	if (out)
		*out = buf;
	else
		free(buf);
	return r;
}

static void round_trip(const struct variant *v, uint32_t bs, const char *kind, const uint8_t *data,
		       int want_overflow)
{
	struct sqk_comp_config cfg;
	struct sqk_compressor *c, *reader;
	uint8_t *comp = malloc(bs), *out = NULL;
	size_t len = 0, outlen = 0;
	char name[160];
	int r;

	variant_name(v, name, sizeof(name));
	sqk_comp_config_init(&cfg, v->id, bs);
	for (int i = 0; i < 3 && v->opts[i]; i++)
		sqk_comp_config_option(&cfg, v->opts[i]);
	c = sqk_comp_create(&cfg);
	/* A reader made from plain defaults must read what any settings wrote. */
	sqk_comp_config_init(&cfg, v->id, bs);
	reader = sqk_comp_create(&cfg);
	if (!ok(c && reader, "%s: instances for %u-byte blocks", name, bs))
		goto out;

	r = c->compress(c, data, bs, comp, bs, &len);
	if (want_overflow) {
		is_int(r, SQK_ERR_OVERFLOW, "%s: %u bytes of %s do not compress", name, bs, kind);
		goto out;
	}
	if (!ok(r == 0 && len > 0 && len < bs, "%s: %u bytes of %s compress (%zu)", name, bs, kind,
		len))
		goto out;
	/* Through each decoder the codec has: the readers' and the kernel's. */
	for (kernel_decoder = 0; kernel_decoder <= !!reader->decompress_kernel; kernel_decoder++) {
		const char *how = kernel_decoder ? " (kernel's decoder)" : "";

		r = decompress_exact(reader, comp, len, bs, &out, &outlen);
		ok(r == 0 && outlen == bs && !memcmp(out, data, bs),
		   "%s: %u bytes of %s round trip%s", name, bs, kind, how);
		free(out);
		r = decompress_exact(reader, comp, len, bs - 1, NULL, &outlen);
		ok(r == SQK_ERR_COMPRESSOR, "%s: %s output one byte over cap is refused%s (%d)",
		   name, kind, how, r);
	}
	kernel_decoder = 0;
	/* Not enough room for any result at all. */
	is_int(c->compress(c, data, bs, comp, 4, &len), SQK_ERR_OVERFLOW,
	       "%s: %s into 4 bytes overflows", name, kind);
out:
	if (c)
		c->destroy(c);
	if (reader)
		reader->destroy(reader);
	free(comp);
}

static void test_round_trips(void)
{
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			if (sizes[s] > variants[i].max_size)
				continue;
			round_trip(&variants[i], sizes[s], "text", text_data, 0);
			round_trip(&variants[i], sizes[s], "zeros", zero_data, 0);
			round_trip(&variants[i], sizes[s], "random", random_data, 1);
		}
	}
}

/* Metadata blocks (8K) go through the same instance as 1M data blocks. */
static void test_mixed_sizes(void)
{
	for (int id = 1; id <= 6; id++) {
		struct sqk_comp_config cfg;
		struct sqk_compressor *c;
		uint8_t *comp = malloc(MiB), *out = malloc(MiB);
		size_t len, outlen;
		int good = 1;

		sqk_comp_config_init(&cfg, id, MiB);
		c = sqk_comp_create(&cfg);
		/* 1M, 8K, 64K, 8K */
		for (int k = 0; k < 4 && c; k++) {
			size_t n = k % 2 ? 8192 : (size_t)(MiB >> (2 * k));
			good &= !c->compress(c, text_data + k, n, comp, n, &len);
			good &= !c->decompress(c, comp, len, out, MiB, &outlen);
			good &= outlen == n && !memcmp(out, text_data + k, n);
		}
		ok(c && good, "%s: one instance takes 8K and 1M blocks in turn", codec_names[id]);
		if (c)
			c->destroy(c);
		free(comp);
		free(out);
	}
}

/* Nothing compresses into less than nothing. */
static void test_empty(void)
{
	for (int id = 1; id <= 6; id++) {
		struct sqk_comp_config cfg;
		struct sqk_compressor *c;
		uint8_t buf[16] = {0};
		size_t len;

		sqk_comp_config_init(&cfg, id, 4096);
		c = sqk_comp_create(&cfg);
		is_int(c->compress(c, buf, 0, buf, sizeof(buf), &len), SQK_ERR_OVERFLOW,
		       "%s: empty input overflows", codec_names[id]);
		is_int(c->decompress(c, buf, 0, buf, sizeof(buf), &len), SQK_ERR_COMPRESSOR,
		       "%s: empty block is refused", codec_names[id]);
		c->destroy(c);
	}
}

/* -------- format details -------- */

static void test_format_details(void)
{
	struct sqk_comp_config cfg;
	struct sqk_compressor *c;
	uint8_t *comp = malloc(128 * KiB);
	size_t len = 0;
	uLongf zlen = 128 * KiB;
	uint8_t *out = malloc(128 * KiB);

	/* gzip blocks are zlib streams: real zlib must read them too. */
	sqk_comp_config_init(&cfg, SQK_COMP_GZIP, 128 * KiB);
	c = sqk_comp_create(&cfg);
	c->compress(c, text_data, 128 * KiB, comp, 128 * KiB, &len);
	ok(len > 2 && (comp[0] & 0x0f) == 8 && ((comp[0] << 8) | comp[1]) % 31 == 0,
	   "gzip: zlib header");
	ok(uncompress(out, &zlen, comp, len) == Z_OK && zlen == 128 * KiB &&
		   !memcmp(out, text_data, zlen),
	   "gzip: zlib's uncompress reads our block");
	c->destroy(c);
	sqk_comp_config_option(&cfg, "window=9");
	sqk_comp_config_option(&cfg, "strategy=filtered,fixed");
	c = sqk_comp_create(&cfg);
	c->compress(c, text_data, 128 * KiB, comp, 128 * KiB, &len);
	zlen = 128 * KiB;
	ok(uncompress(out, &zlen, comp, len) == Z_OK && zlen == 128 * KiB &&
		   !memcmp(out, text_data, zlen),
	   "gzip: zlib reads the window 9 / strategies block");
	c->destroy(c);

	/* lzma: properties byte, dictionary, the real uncompressed size. */
	sqk_comp_config_init(&cfg, SQK_COMP_LZMA, 128 * KiB);
	c = sqk_comp_create(&cfg);
	c->compress(c, text_data, 100000, comp, 100000, &len);
	/* lc=3 lp=0 pb=2: (pb * 5 + lp) * 9 + lc = 93 */
	is_int(comp[0], 93, "lzma: properties byte 0x5d");
	ok(comp[1] == 0 && comp[2] == 0 && comp[3] == 2 && comp[4] == 0,
	   "lzma: dictionary is the block size (128K)");
	ok(comp[5] == 0xa0 && comp[6] == 0x86 && comp[7] == 0x01 && comp[8] == 0 && comp[9] == 0 &&
		   comp[10] == 0 && comp[11] == 0 && comp[12] == 0,
	   "lzma: header holds the uncompressed size 100000");
	/* A header that promises more than the room is refused before decoding. */
	comp[7] = 0x10;
	is_int(c->decompress(c, comp, len, out, 128 * KiB, &len), SQK_ERR_COMPRESSOR,
	       "lzma: header size over cap is refused");
	c->destroy(c);

	/* xz: a whole stream with a CRC32 check. */
	sqk_comp_config_init(&cfg, SQK_COMP_XZ, 128 * KiB);
	c = sqk_comp_create(&cfg);
	c->compress(c, text_data, 128 * KiB, comp, 128 * KiB, &len);
	ok(len > 12 && !memcmp(comp,
			       "\xfd"
			       "7zXZ\0",
			       6),
	   "xz: stream magic");
	ok(comp[6] == 0 && comp[7] == 1, "xz: check type CRC32");
	ok(!memcmp(comp + len - 2, "YZ", 2), "xz: stream footer");
	c->destroy(c);

	/* zstd: a frame. */
	sqk_comp_config_init(&cfg, SQK_COMP_ZSTD, 128 * KiB);
	c = sqk_comp_create(&cfg);
	c->compress(c, text_data, 128 * KiB, comp, 128 * KiB, &len);
	ok(!memcmp(comp, "\x28\xb5\x2f\xfd", 4), "zstd: frame magic");
	c->destroy(c);
	free(comp);
	free(out);
}

/* With candidates, the result is never larger than plain. */
static void test_best_of(void)
{
	static const struct {
		int id;
		const char *plain, *many;
	} cases[] = {
		{SQK_COMP_XZ, "level=6", "bcj=x86,arm,armthumb,powerpc,sparc,ia64"},
		{SQK_COMP_GZIP, "strategy=default", "strategy=default,filtered,huffman_only,fixed"},
	};
	FILE *f = fopen("/proc/self/exe", "rb");
	uint8_t *exe = calloc(1, 128 * KiB), *comp = malloc(128 * KiB), *out = malloc(128 * KiB);
	size_t got = f ? fread(exe, 1, 128 * KiB, f) : 0;

	if (f)
		fclose(f);
	if (got < 128 * KiB)
		memcpy(exe + got, text_data, 128 * KiB - got);
	for (size_t i = 0; i < 2; i++) {
		struct sqk_comp_config cfg;
		struct sqk_compressor *c;
		size_t plain = 0, many = 0, outlen = 0;
		const char *name = codec_names[cases[i].id];

		sqk_comp_config_init(&cfg, cases[i].id, 128 * KiB);
		sqk_comp_config_option(&cfg, cases[i].plain);
		c = sqk_comp_create(&cfg);
		c->compress(c, exe, 128 * KiB, comp, 128 * KiB, &plain);
		c->destroy(c);
		sqk_comp_config_option(&cfg, cases[i].many);
		c = sqk_comp_create(&cfg);
		is_int(c->compress(c, exe, 128 * KiB, comp, 128 * KiB, &many), 0,
		       "%s: %s compresses program code", name, cases[i].many);
		ok(many > 0 && many <= plain, "%s: best of several (%zu) <= plain (%zu)", name,
		   many, plain);
		ok(!c->decompress(c, comp, many, out, 128 * KiB, &outlen) && outlen == 128 * KiB &&
			   !memcmp(out, exe, outlen),
		   "%s: the chosen candidate round trips", name);
		c->destroy(c);
	}
	free(exe);
	free(comp);
	free(out);
}

/* -------- hostile input -------- */

static void test_hostile(void)
{
	const uint32_t bs = 64 * KiB;
	uint8_t *comp = malloc(bs), *bad = malloc(bs + 16), *junk = malloc(bs);

	fill_random(junk, bs);
	/* Each codec, then gzip again through its kernel's decoder. */
	for (int id = 1; id <= 7; id++) {
		const char *name = id <= 6 ? codec_names[id] : "gzip (kernel's decoder)";
		struct sqk_comp_config cfg;
		struct sqk_compressor *c;
		size_t len = 0, outlen;
		int r, all_bad = 1, safe = 1;

		kernel_decoder = id == 7;
		sqk_comp_config_init(&cfg, id <= 6 ? id : SQK_COMP_GZIP, bs);
		c = sqk_comp_create(&cfg);
		c->compress(c, text_data, bs, comp, bs, &len);

		is_int(decompress_exact(c, junk, 4096, bs, NULL, &outlen), SQK_ERR_COMPRESSOR,
		       "%s: random bytes are refused", name);
		memset(bad, 0, 64);
		is_int(decompress_exact(c, bad, 64, bs, NULL, &outlen), SQK_ERR_COMPRESSOR,
		       "%s: zero bytes are refused", name);
		memset(bad, 0xff, 64);
		is_int(decompress_exact(c, bad, 64, bs, NULL, &outlen), SQK_ERR_COMPRESSOR,
		       "%s: 0xff bytes are refused", name);

		/*
		 * Every truncation is an error. A raw LZ4 block has no end
		 * marker and no size: cut after a run of literals it is a
		 * shorter valid block, so the reader must check the length.
		 */
		for (size_t cut = 1; cut < len; cut += cut < 64 ? 1 : 97) {
			r = decompress_exact(c, comp, len - cut, bs, NULL, &outlen);
			all_bad &= r == SQK_ERR_COMPRESSOR ||
				   (id == SQK_COMP_LZ4 && r == 0 && outlen < bs);
		}
		r = decompress_exact(c, comp, 1, bs, NULL, &outlen);
		all_bad &= r == SQK_ERR_COMPRESSOR;
		ok(all_bad, "%s: every truncation of a %zu-byte block is refused%s", name, len,
		   id == SQK_COMP_LZ4 ? " or comes out short" : "");

		memcpy(bad, comp, len);
		bad[len] = 0;
		is_int(decompress_exact(c, bad, len + 1, bs, NULL, &outlen), SQK_ERR_COMPRESSOR,
		       "%s: a trailing byte is refused", name);
		is_int(decompress_exact(c, comp, len, 0, NULL, &outlen), SQK_ERR_COMPRESSOR,
		       "%s: no room at all is refused", name);
		is_int(decompress_exact(c, comp, len, 1000, NULL, &outlen), SQK_ERR_COMPRESSOR,
		       "%s: too little room is refused", name);

		/*
		 * Mutations: not every codec carries a checksum, so a flipped
		 * byte may decode to other bytes; it must never write past cap
		 * (ASan) nor claim more than cap.
		 */
		for (int k = 0; k < 600; k++) {
			size_t n = len;

			memcpy(bad, comp, len);
			for (int m = 0; m < 1 + k % 4; m++)
				bad[rng() % len] ^= (uint8_t)(1u << (rng() % 8));
			if (k % 5 == 0)
				n = 1 + rng() % len;
			r = decompress_exact(c, bad, n, k % 3 ? bs : bs / 2, NULL, &outlen);
			safe &= r == 0 || r == SQK_ERR_COMPRESSOR;
		}
		ok(safe, "%s: 600 mutated blocks decode or fail cleanly", name);
		c->destroy(c);
	}
	kernel_decoder = 0;
	free(comp);
	free(bad);
	free(junk);
}

/*
 * xz lc/lp/pb and the extreme preset live in each stream: the first LZMA2
 * chunk's properties byte is (pb * 5 + lp) * 9 + lc. The options block stays
 * what it is without them, and any instance still decodes the stream.
 */
static void test_xz_lzma_props(void)
{
	static const struct {
		const char *opts[4];
		unsigned lc, lp, pb;
	} cases[] = {
		{{NULL}, 3, 0, 2},
		{{"lc=0", "lp=4", "pb=4", NULL}, 0, 4, 4},
		{{"lp=2", "lc=2", NULL}, 2, 2, 2},
		{{"extreme=1", "pb=0", NULL}, 3, 0, 0},
	};
	size_t bs = 128 * KiB;
	uint8_t *comp = malloc(bs), *back = malloc(bs);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sqk_comp_config cfg;
		struct sqk_compressor *c;
		uint8_t opts[16];
		size_t len = 0, outlen = 0, optlen = 1, hdr;
		int r;

		sqk_comp_config_init(&cfg, SQK_COMP_XZ, (uint32_t)bs);
		for (int k = 0; cases[i].opts[k]; k++)
			sqk_comp_config_option(&cfg, cases[i].opts[k]);
		r = sqk_codec_by_id(SQK_COMP_XZ)->write_options(&cfg, opts, sizeof(opts), &optlen);
		is_int(r, 0, "xz case %zu: the options are valid together", i);
		is_int((int)optlen, 0, "xz case %zu: no options block", i);
		c = sqk_comp_create(&cfg);
		ok(c != NULL, "xz case %zu: an instance", i);
		if (!c)
			continue;
		r = c->compress(c, text_data, bs, comp, bs, &len);
		is_int(r, 0, "xz case %zu: compresses", i);
		/* Stream header (12 bytes), block header ((first byte + 1) * 4), chunk header (5).
		 */
		hdr = 12 + ((size_t)comp[12] + 1) * 4;
		ok(!r && len > hdr + 6 && comp[hdr] >= 0xe0 &&
			   comp[hdr + 5] == (cases[i].pb * 5 + cases[i].lp) * 9 + cases[i].lc,
		   "xz case %zu: the stream says lc %u lp %u pb %u", i, cases[i].lc, cases[i].lp,
		   cases[i].pb);
		r = c->decompress(c, comp, len, back, bs, &outlen);
		ok(!r && outlen == bs && !memcmp(back, text_data, bs), "xz case %zu: decodes back",
		   i);
		c->destroy(c);
	}
	free(comp);
	free(back);
}

/* The stream of tests/tools/lib/zlib_refused.h through each decoder. */
static void test_gzip_two_decoders(void)
{
	struct sqk_comp_config cfg;
	struct sqk_compressor *c;
	uint8_t want[REFUSED_LEN], bad[sizeof(refused_sound)], *got = NULL;
	size_t outlen;
	int r;

	for (unsigned i = 0; i < REFUSED_LEN; i++)
		want[i] = refused_pattern(i);
	sqk_comp_config_init(&cfg, SQK_COMP_GZIP, 4 * KiB);
	c = sqk_comp_create(&cfg);
	for (kernel_decoder = 0; kernel_decoder <= 1; kernel_decoder++) {
		r = decompress_exact(c, refused_sound, sizeof(refused_sound), 4 * KiB, &got,
				     &outlen);
		ok(r == 0 && outlen == REFUSED_LEN && !memcmp(got, want, REFUSED_LEN),
		   "gzip: the pattern's stream decodes to the pattern (%s decoder)",
		   kernel_decoder ? "kernel's" : "readers'");
		free(got);
	}
	refused_stream(bad);
	kernel_decoder = 0;
	r = decompress_exact(c, bad, sizeof(bad), 4 * KiB, &got, &outlen);
	ok(r == 0 && outlen == REFUSED_LEN && !memcmp(got, want, REFUSED_LEN),
	   "gzip: the readers' decoder reads the damaged stream as the pattern (checksum matches)");
	free(got);
	kernel_decoder = 1;
	is_int(decompress_exact(c, bad, sizeof(bad), 4 * KiB, NULL, &outlen), SQK_ERR_COMPRESSOR,
	       "gzip: the kernel's decoder refuses it, as zlib's inflate does");
	kernel_decoder = 0;
	c->destroy(c);
	/* The other codecs' one decoder is the kernel's. */
	for (int id = 2; id <= 6; id++) {
		sqk_comp_config_init(&cfg, id, 4 * KiB);
		c = sqk_comp_create(&cfg);
		ok(c && !c->decompress_kernel, "%s: one decoder", codec_names[id]);
		if (c)
			c->destroy(c);
	}
}

int main(void)
{
	text_data = malloc(MiB + 16);
	random_data = malloc(MiB);
	zero_data = calloc(1, MiB);
	fill_text(text_data, MiB + 16);
	fill_random(random_data, MiB);

	test_round_trips();
	test_mixed_sizes();
	test_empty();
	test_format_details();
	test_best_of();
	test_xz_lzma_props();
	test_hostile();
	test_gzip_two_decoders();

	free(text_data);
	free(random_data);
	free(zero_data);
	return tap_done();
}
