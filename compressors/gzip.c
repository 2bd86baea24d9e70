// SPDX-License-Identifier: BSD-2-Clause
/*
 * gzip: each block is a zlib stream (RFC 1950), despite the name.
 *
 * Two decoders, one contract (compressor.h). decompress is libdeflate's,
 * about three times as fast as zlib's; decompress_kernel is zlib's inflate,
 * the decoder the kernel and unsquashfs run. They agree on every sound
 * stream, but libdeflate maps a code its Huffman table does not hold to a
 * valid one and leaves the damage to the checksum, so it reads some damaged
 * streams zlib refuses, when their Adler-32 still matches (the output is
 * then what was compressed). Readers (unimage, cat, mount, bench, the
 * compatibility front ends) decode with libdeflate; fsck decodes with zlib,
 * so that it calls clean only what the kernel reads, and names a block only
 * libdeflate reads as one the kernel refuses and unimage recovers.
 * fuzz/gzip.c checks the two against each other.
 *
 * Compression uses libdeflate when it can follow the settings (a
 * 32 KiB window and no strategy chosen); zlib does the rest: smaller
 * windows and explicit strategies, which libdeflate has no knobs for.
 */
#include <libdeflate.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec.h"
#include "format/format.h"
#include "util/le.h"

#define GZIP_OPTS_SIZE	    8
#define GZIP_WINDOW_MIN	    8
#define GZIP_WINDOW_MAX	    15
#define GZIP_STRATEGY_MASK  0x1f
#define GZIP_NSTRATEGIES    5
#define GZIP_DEFAULT_LEVEL  9
#define GZIP_DEFAULT_WINDOW 15

/*
 * Our level is zlib's 1..9: it is what the options block stores and what
 * users know. On the libdeflate path each zlib level maps to the fastest
 * libdeflate level whose output is no larger than zlib's at that level.
 *
 * Measured with zlib 1.2.13 and libdeflate 1.14 on 96 MiB of files from
 * /usr/share and /usr/lib (6699 blocks of 128 KiB, incompressible blocks
 * counted raw; bytes out, CPU seconds):
 *
 *   zlib 1  39587047  0.94     libdeflate 1  38437410  0.44
 *   zlib 2  38868052  0.96     libdeflate 2  37766141  0.64
 *   zlib 3  38394335  1.15     libdeflate 3  37433251  0.68
 *   zlib 4  37503871  1.25     libdeflate 4  37196597  0.73
 *   zlib 5  36957486  1.46     libdeflate 5  36775500  0.84
 *   zlib 6  36731583  2.06     libdeflate 6  36602968  0.97
 *   zlib 7  36669780  2.42     libdeflate 7  36501262  1.25
 *   zlib 8  36587324  3.77     libdeflate 8  36410493  2.30
 *   zlib 9  36559235  5.44     libdeflate 9  36392915  2.94
 *
 * The default, 9, runs libdeflate 7: 0.16% smaller than zlib 9 for 4.4x
 * less CPU. The same mapping holds on the /usr/share and /usr/lib halves
 * alone and with 4 KiB, 16 KiB and 1 MiB blocks; level 4 takes libdeflate
 * 4, not 3, because 3 came out 0.01-0.06% larger at 4 and 16 KiB.
 */
static const int gzip_libdeflate_level[10] = {0, 1, 1, 2, 4, 5, 6, 6, 7, 7};

static const struct sqk_name gzip_strategy_names[] = {
	{"default", SQK_GZIP_DEFAULT},	    {"filtered", SQK_GZIP_FILTERED},
	{"huffman_only", SQK_GZIP_HUFFMAN}, {"run_length_encoded", SQK_GZIP_RLE},
	{"fixed", SQK_GZIP_FIXED},	    {NULL, 0},
};

/* zlib's constant for each strategy bit, in bit order. */
static const int gzip_zlib_strategy[GZIP_NSTRATEGIES] = {
	Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED,
};

struct gzip_comp {
	struct sqk_compressor base;
	struct libdeflate_decompressor *dec;
	z_stream inflate; /* made on first use: only fsck decodes with zlib */
	int inflate_ready;
	/* Made on first compress, so readers do not pay for them. */
	struct libdeflate_compressor *enc;
	z_stream zs[GZIP_NSTRATEGIES];
	int zs_ready[GZIP_NSTRATEGIES];
	struct sqk_buf tmp; /* holds a candidate while another is kept */
	int level, window;
	uint16_t strategies;
};

static void gzip_defaults(struct sqk_comp_config *cfg, uint32_t block_size)
{
	sqk_config_base(cfg, &sqk_codec_gzip, block_size);
	cfg->window = GZIP_DEFAULT_WINDOW;
}

static int gzip_set_option(struct sqk_comp_config *cfg, const char *key, const char *value)
{
	uint64_t v;
	uint32_t bits;

	if (!strcmp(key, "level"))
		return sqk_set_level(&sqk_codec_gzip, cfg, value);
	if (!strcmp(key, "window")) {
		if (sqk_parse_uint(value, GZIP_WINDOW_MAX, &v) || v < GZIP_WINDOW_MIN)
			return SQK_ERR_ARG;
		cfg->window = (int)v;
		return 0;
	}
	if (!strcmp(key, "strategy")) {
		if (sqk_names_to_bits(value, gzip_strategy_names, &bits))
			return SQK_ERR_ARG;
		cfg->strategies = (uint16_t)bits;
		return 0;
	}
	return SQK_ERR_ARG;
}

static int gzip_valid(int level, int window, uint32_t strategies)
{
	return level >= 1 && level <= 9 && window >= GZIP_WINDOW_MIN && window <= GZIP_WINDOW_MAX &&
	       !(strategies & ~(uint32_t)GZIP_STRATEGY_MASK);
}

static int gzip_read_options(struct sqk_comp_config *cfg, const uint8_t *buf, size_t len)
{
	uint32_t level;
	uint16_t window, strategies;

	if (len != GZIP_OPTS_SIZE)
		return SQK_ERR_CORRUPT;
	level = get_le32(buf);
	window = get_le16(buf + 4);
	strategies = get_le16(buf + 6);
	if (level > 9 || !gzip_valid((int)level, window, strategies))
		return SQK_ERR_CORRUPT;
	cfg->level = (int)level;
	cfg->window = window;
	cfg->strategies = strategies;
	cfg->has_options = 1;
	return 0;
}

static int gzip_write_options(const struct sqk_comp_config *cfg, uint8_t *buf, size_t cap,
			      size_t *len)
{
	*len = 0;
	if (!gzip_valid(cfg->level, cfg->window, cfg->strategies))
		return SQK_ERR_ARG;
	if (!cfg->has_options && cfg->level == GZIP_DEFAULT_LEVEL &&
	    cfg->window == GZIP_DEFAULT_WINDOW && cfg->strategies == 0)
		return 0;
	if (cap < GZIP_OPTS_SIZE)
		return SQK_ERR_ARG;
	put_le32(buf, (uint32_t)cfg->level);
	put_le16(buf + 4, (uint16_t)cfg->window);
	put_le16(buf + 6, cfg->strategies);
	*len = GZIP_OPTS_SIZE;
	return 0;
}

static int gzip_describe(const struct sqk_comp_config *cfg, struct sqk_comp_kv *kv, int max)
{
	char names[64];
	int n = 0;

	sqk_bits_to_names(cfg->strategies, gzip_strategy_names, names, sizeof(names));
	sqk_kv_num(kv, max, &n, "compression_level", (unsigned long)cfg->level);
	sqk_kv_num(kv, max, &n, "window_size", (unsigned long)cfg->window);
	sqk_kv_str(kv, max, &n, "strategies", names);
	return n;
}

static int gzip_decompress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			   uint8_t *dst, size_t cap, size_t *outlen)
{
	struct gzip_comp *c = (struct gzip_comp *)base;
	size_t in_used = 0, out_len = 0;
	enum libdeflate_result r;

	if (srclen == 0)
		return SQK_ERR_COMPRESSOR;
	r = libdeflate_zlib_decompress_ex(c->dec, src, srclen, dst, cap, &in_used, &out_len);
	/* A block holds exactly one stream: trailing bytes mean corruption. */
	if (r != LIBDEFLATE_SUCCESS || in_used != srclen)
		return SQK_ERR_COMPRESSOR;
	*outlen = out_len;
	return 0;
}

static int gzip_decompress_kernel(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
				  uint8_t *dst, size_t cap, size_t *outlen)
{
	struct gzip_comp *c = (struct gzip_comp *)base;
	z_stream *zs = &c->inflate;
	int r;

	if (srclen == 0 || srclen > UINT_MAX || cap > UINT_MAX)
		return SQK_ERR_COMPRESSOR;
	if (!c->inflate_ready) {
		memset(zs, 0, sizeof(*zs));
		r = inflateInit(zs);
		if (r != Z_OK)
			return r == Z_MEM_ERROR ? SQK_ERR_NOMEM : SQK_ERR_COMPRESSOR;
		c->inflate_ready = 1;
	} else if (inflateReset(zs) != Z_OK) {
		return SQK_ERR_COMPRESSOR;
	}
	zs->next_in = (Bytef *)src;
	zs->avail_in = (uInt)srclen;
	zs->next_out = dst;
	zs->avail_out = (uInt)cap;
	r = inflate(zs, Z_FINISH);
	if (r != Z_STREAM_END || zs->avail_in != 0)
		return SQK_ERR_COMPRESSOR;
	*outlen = cap - zs->avail_out;
	return 0;
}

/* One zlib attempt with strategy index i into out (at most limit bytes). */
static int gzip_zlib_one(struct gzip_comp *c, int i, const uint8_t *src, size_t srclen,
			 uint8_t *out, size_t limit, size_t *outlen)
{
	z_stream *zs = &c->zs[i];
	int r;

	if (!c->zs_ready[i]) {
		memset(zs, 0, sizeof(*zs));
		r = deflateInit2(zs, c->level, Z_DEFLATED, c->window, 8, gzip_zlib_strategy[i]);
		if (r == Z_MEM_ERROR)
			return SQK_ERR_NOMEM;
		if (r != Z_OK)
			return SQK_ERR_COMPRESSOR;
		c->zs_ready[i] = 1;
	} else if (deflateReset(zs) != Z_OK) {
		return SQK_ERR_COMPRESSOR;
	}
	zs->next_in = (Bytef *)src;
	zs->avail_in = (uInt)srclen;
	zs->next_out = out;
	zs->avail_out = (uInt)limit;
	r = deflate(zs, Z_FINISH);
	if (r == Z_STREAM_END) {
		*outlen = limit - zs->avail_out;
		return 0;
	}
	/* Z_OK or Z_BUF_ERROR: ran out of room. */
	return r == Z_OK || r == Z_BUF_ERROR ? SQK_ERR_OVERFLOW : SQK_ERR_COMPRESSOR;
}

/* Each chosen strategy in turn; the smallest result wins (first on a tie). */
static int gzip_zlib(struct gzip_comp *c, const uint8_t *src, size_t srclen, uint8_t *dst,
		     size_t limit, size_t *outlen)
{
	uint16_t strategies = c->strategies ? c->strategies : SQK_GZIP_DEFAULT;
	size_t best = 0, len;
	int tries = __builtin_popcount(strategies);
	int r;

	if (tries > 1 && sqk_buf_reserve(&c->tmp, limit))
		return SQK_ERR_NOMEM;
	for (int i = 0; i < GZIP_NSTRATEGIES; i++) {
		if (!(strategies & (1u << i)))
			continue;
		if (!best) {
			r = gzip_zlib_one(c, i, src, srclen, dst, limit, &len);
		} else {
			r = gzip_zlib_one(c, i, src, srclen, c->tmp.p, best - 1, &len);
			if (!r)
				memcpy(dst, c->tmp.p, len);
		}
		if (r == SQK_ERR_OVERFLOW)
			continue;
		if (r)
			return r;
		best = len;
	}
	if (!best)
		return SQK_ERR_OVERFLOW;
	*outlen = best;
	return 0;
}

static int gzip_compress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			 uint8_t *dst, size_t cap, size_t *outlen)
{
	struct gzip_comp *c = (struct gzip_comp *)base;
	size_t limit = sqk_comp_limit(srclen, cap);
	size_t len;

	if (limit == 0)
		return SQK_ERR_OVERFLOW;
	if (srclen > UINT_MAX)
		return SQK_ERR_ARG;
	if (c->window != GZIP_WINDOW_MAX || c->strategies)
		return gzip_zlib(c, src, srclen, dst, limit, outlen);
	if (!c->enc) {
		c->enc = libdeflate_alloc_compressor(gzip_libdeflate_level[c->level]);
		if (!c->enc)
			return SQK_ERR_NOMEM;
	}
	len = libdeflate_zlib_compress(c->enc, src, srclen, dst, limit);
	if (len == 0)
		return SQK_ERR_OVERFLOW;
	*outlen = len;
	return 0;
}

static void gzip_destroy(struct sqk_compressor *base)
{
	struct gzip_comp *c = (struct gzip_comp *)base;

	if (!c)
		return;
	libdeflate_free_decompressor(c->dec);
	if (c->inflate_ready)
		inflateEnd(&c->inflate);
	libdeflate_free_compressor(c->enc);
	for (int i = 0; i < GZIP_NSTRATEGIES; i++)
		if (c->zs_ready[i])
			deflateEnd(&c->zs[i]);
	sqk_buf_free(&c->tmp);
	free(c);
}

static struct sqk_compressor *gzip_create(const struct sqk_comp_config *cfg)
{
	struct gzip_comp *c;

	if (!gzip_valid(cfg->level, cfg->window, cfg->strategies))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->base.codec = &sqk_codec_gzip;
	c->base.decompress = gzip_decompress;
	c->base.decompress_kernel = gzip_decompress_kernel;
	c->base.compress = gzip_compress;
	c->base.destroy = gzip_destroy;
	c->level = cfg->level;
	c->window = cfg->window;
	c->strategies = cfg->strategies;
	c->dec = libdeflate_alloc_decompressor();
	if (!c->dec) {
		gzip_destroy(&c->base);
		return NULL;
	}
	return &c->base;
}

const struct sqk_codec sqk_codec_gzip = {
	.id = SQK_COMP_GZIP,
	.name = "gzip",
	.level_min = 1,
	.level_max = 9,
	.level_default = GZIP_DEFAULT_LEVEL,
	.defaults = gzip_defaults,
	.set_option = gzip_set_option,
	.read_options = gzip_read_options,
	.write_options = gzip_write_options,
	.describe = gzip_describe,
	.create = gzip_create,
};
