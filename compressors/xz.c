// SPDX-License-Identifier: BSD-2-Clause
/*
 * xz: each block is a complete .xz stream holding one LZMA2 block,
 * optionally behind one BCJ filter. With BCJ filters chosen, every block
 * is tried plain and with each filter, and the smallest result is kept.
 *
 * The lzma_stream objects live as long as the instance: liblzma reuses a
 * coder's memory when it is initialised again with the same filter
 * chain, which saves allocating and faulting in megabytes per block.
 */
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "format/format.h"
#include "liblzma_run.h"
#include "util/le.h"

#define XZ_OPTS_SIZE	 8
#define XZ_FILTER_MASK	 0x3f
#define XZ_DICT_MIN	 8192u
#define XZ_DEFAULT_LEVEL 6
/* LZMA2 wants lc + lp <= 4; every preset has lc 3, lp 0, pb 2. */
#define XZ_LCLP_MAX 4
#define XZ_PB_MAX   4
/*
 * A hostile stream may ask for any dictionary; honest writers use at most
 * the block size (1 MiB). Far above that, and still cheap.
 */
#define XZ_MEMLIMIT (64u << 20)

static const struct sqk_name xz_filter_names[] = {
	{"x86", SQK_XZ_X86}, {"powerpc", SQK_XZ_POWERPC},   {"ia64", SQK_XZ_IA64},
	{"arm", SQK_XZ_ARM}, {"armthumb", SQK_XZ_ARMTHUMB}, {"sparc", SQK_XZ_SPARC},
	{NULL, 0},
};

/* liblzma's filter id for each option bit, in bit order. */
static const lzma_vli xz_filter_id[] = {
	LZMA_FILTER_X86, LZMA_FILTER_POWERPC,  LZMA_FILTER_IA64,
	LZMA_FILTER_ARM, LZMA_FILTER_ARMTHUMB, LZMA_FILTER_SPARC,
};

#define XZ_NFILTERS ((int)(sizeof(xz_filter_id) / sizeof(xz_filter_id[0])))

struct xz_comp {
	struct sqk_compressor base;
	lzma_stream dec;
	lzma_stream enc;     /* plain LZMA2 */
	lzma_stream enc_bcj; /* BCJ + LZMA2; liblzma starts over when the BCJ changes */
	lzma_options_lzma opt;
	struct sqk_buf tmp; /* holds a candidate while another is kept */
	uint32_t filters;
};

/* 2^n or 2^n + 2^(n-1): what the LZMA2 header can state exactly. */
static int xz_dict_storable(uint32_t d)
{
	uint32_t low;

	if (d == 0)
		return 0;
	low = d & -d;
	return d == low || d == low + (low << 1);
}

static int xz_dict_valid(uint32_t d, uint32_t block_size)
{
	/* A 4K-block image's default dictionary is its block size, below 8 KiB. */
	if ((d < XZ_DICT_MIN && d != block_size) || !xz_dict_storable(d))
		return 0;
	/* Without a block size there is nothing to hold the upper end against. */
	return block_size == 0 || d <= block_size;
}

static void xz_defaults(struct sqk_comp_config *cfg, uint32_t block_size)
{
	sqk_config_base(cfg, &sqk_codec_xz, block_size);
	cfg->dict_size = block_size;
}

/*
 * dict-size=SIZE: bytes with an optional K or M suffix, or a share of the
 * block size such as 50% or 37.5%.
 */
static int xz_parse_dict(const char *s, uint32_t block_size, uint32_t *out)
{
	unsigned long whole = 0, frac = 0, scale = 1;
	uint64_t v;
	const char *p = s;

	if (!*p)
		return SQK_ERR_ARG;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (unsigned long)(*p - '0');
		if (whole > 0xffffffffu)
			return SQK_ERR_ARG;
	}
	if (p == s)
		return SQK_ERR_ARG;
	if (*p == '.') {
		/* Only percentages take a fraction; six digits are plenty. */
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale >= 1000000)
				return SQK_ERR_ARG;
			frac = frac * 10 + (unsigned long)(*p - '0');
			scale *= 10;
		}
		if (scale == 1 || strcmp(p, "%"))
			return SQK_ERR_ARG;
	}
	if (!strcmp(p, "%")) {
		if (!block_size || whole > 100)
			return SQK_ERR_ARG;
		v = ((uint64_t)whole * scale + frac) * block_size;
		if (v % (100 * (uint64_t)scale))
			return SQK_ERR_ARG; /* not a whole number of bytes */
		v /= 100 * (uint64_t)scale;
	} else if (!strcmp(p, "K") || !strcmp(p, "k")) {
		v = (uint64_t)whole << 10;
	} else if (!strcmp(p, "M") || !strcmp(p, "m")) {
		v = (uint64_t)whole << 20;
	} else if (!*p) {
		v = whole;
	} else {
		return SQK_ERR_ARG;
	}
	if (v > 0xffffffffu)
		return SQK_ERR_ARG;
	*out = (uint32_t)v;
	return 0;
}

static int xz_set_option(struct sqk_comp_config *cfg, const char *key, const char *value)
{
	uint32_t v;

	if (!strcmp(key, "level"))
		return sqk_set_level(&sqk_codec_xz, cfg, value);
	if (!strcmp(key, "dict-size")) {
		if (xz_parse_dict(value, cfg->block_size, &v) || !xz_dict_valid(v, cfg->block_size))
			return SQK_ERR_ARG;
		cfg->dict_size = v;
		return 0;
	}
	if (!strcmp(key, "extreme")) {
		if (strcmp(value, "0") && strcmp(value, "1"))
			return SQK_ERR_ARG;
		cfg->extreme = value[0] == '1';
		return 0;
	}
	if (!strcmp(key, "lc") || !strcmp(key, "lp") || !strcmp(key, "pb")) {
		uint64_t n;

		if (sqk_parse_uint(value, key[1] == 'b' ? XZ_PB_MAX : XZ_LCLP_MAX, &n))
			return SQK_ERR_ARG;
		if (key[1] == 'c') {
			cfg->lc = (uint8_t)n;
			cfg->lzma_set |= SQK_XZ_SET_LC;
		} else if (key[1] == 'p') {
			cfg->lp = (uint8_t)n;
			cfg->lzma_set |= SQK_XZ_SET_LP;
		} else {
			cfg->pb = (uint8_t)n;
			cfg->lzma_set |= SQK_XZ_SET_PB;
		}
		return 0;
	}
	if (!strcmp(key, "bcj")) {
		if (sqk_names_to_bits(value, xz_filter_names, &v))
			return SQK_ERR_ARG;
		cfg->filters = v;
		return 0;
	}
	return SQK_ERR_ARG;
}

static int xz_read_options(struct sqk_comp_config *cfg, const uint8_t *buf, size_t len)
{
	uint32_t dict, filters;

	if (len != XZ_OPTS_SIZE)
		return SQK_ERR_CORRUPT;
	dict = get_le32(buf);
	filters = get_le32(buf + 4);
	/*
	 * squashfs-tools-ng stores 8 KiB for 4K blocks, the smallest dictionary
	 * xz offers; the kernel and unsquashfs read such images.
	 */
	if (!xz_dict_valid(dict, cfg->block_size) &&
	    !(dict == XZ_DICT_MIN && cfg->block_size < XZ_DICT_MIN))
		return SQK_ERR_CORRUPT;
	if (filters & ~(uint32_t)XZ_FILTER_MASK)
		return SQK_ERR_CORRUPT;
	cfg->dict_size = dict;
	cfg->filters = filters;
	cfg->has_options = 1;
	return 0;
}

/* lc and lp as they will be used: what was given, else the presets' 3 and 0. */
static int xz_lclp_valid(const struct sqk_comp_config *cfg)
{
	unsigned lc = cfg->lzma_set & SQK_XZ_SET_LC ? cfg->lc : LZMA_LC_DEFAULT;
	unsigned lp = cfg->lzma_set & SQK_XZ_SET_LP ? cfg->lp : LZMA_LP_DEFAULT;

	return lc + lp <= XZ_LCLP_MAX && cfg->pb <= XZ_PB_MAX;
}

static int xz_write_options(const struct sqk_comp_config *cfg, uint8_t *buf, size_t cap,
			    size_t *len)
{
	*len = 0;
	/* extreme, lc, lp and pb are in the streams; readers need nothing more here. */
	if ((cfg->filters & ~(uint32_t)XZ_FILTER_MASK) || !xz_lclp_valid(cfg))
		return SQK_ERR_ARG;
	/* The default dictionary (the block size) needs no block, even below 8 KiB. */
	if (!cfg->has_options && cfg->dict_size == cfg->block_size && !cfg->filters)
		return 0;
	if (!xz_dict_valid(cfg->dict_size, cfg->block_size))
		return SQK_ERR_ARG;
	if (cap < XZ_OPTS_SIZE)
		return SQK_ERR_ARG;
	put_le32(buf, cfg->dict_size);
	put_le32(buf + 4, cfg->filters);
	*len = XZ_OPTS_SIZE;
	return 0;
}

static int xz_describe(const struct sqk_comp_config *cfg, struct sqk_comp_kv *kv, int max)
{
	char names[64];
	int n = 0;

	sqk_bits_to_names(cfg->filters, xz_filter_names, names, sizeof(names));
	sqk_kv_num(kv, max, &n, "dict_size", cfg->dict_size);
	sqk_kv_str(kv, max, &n, "filters", names);
	return n;
}

static int xz_decompress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			 uint8_t *dst, size_t cap, size_t *outlen)
{
	struct xz_comp *c = (struct xz_comp *)base;
	lzma_stream *s = &c->dec;
	lzma_ret r;

	if (srclen == 0)
		return SQK_ERR_COMPRESSOR;
	/* Any check type is accepted; one stream, nothing after it. */
	r = lzma_stream_decoder(s, XZ_MEMLIMIT, 0);
	if (r != LZMA_OK)
		return sqk_liblzma_err(r);
	return sqk_liblzma_decode(s, src, srclen, dst, cap, outlen);
}

/* Encode one candidate with the given chain into out, at most limit bytes. */
static int xz_encode(lzma_stream *s, const lzma_filter *chain, const uint8_t *src, size_t srclen,
		     uint8_t *out, size_t limit, size_t *outlen)
{
	lzma_ret r = lzma_stream_encoder(s, chain, LZMA_CHECK_CRC32);

	if (r != LZMA_OK)
		return sqk_liblzma_err(r);
	return sqk_liblzma_encode(s, src, srclen, out, limit, outlen);
}

static int xz_compress(struct sqk_compressor *base, const uint8_t *src, size_t srclen, uint8_t *dst,
		       size_t cap, size_t *outlen)
{
	struct xz_comp *c = (struct xz_comp *)base;
	size_t limit = sqk_comp_limit(srclen, cap);
	size_t best = 0, len;
	lzma_filter chain[3] = {
		{LZMA_FILTER_LZMA2, &c->opt},
		{LZMA_VLI_UNKNOWN, NULL},
		{LZMA_VLI_UNKNOWN, NULL},
	};
	int r;

	if (limit == 0)
		return SQK_ERR_OVERFLOW;
	r = xz_encode(&c->enc, chain, src, srclen, dst, limit, &len);
	if (!r)
		best = len;
	else if (r != SQK_ERR_OVERFLOW)
		return r;
	if (c->filters && sqk_buf_reserve(&c->tmp, limit))
		return SQK_ERR_NOMEM;
	chain[1] = chain[0];
	for (int i = 0; i < XZ_NFILTERS; i++) {
		if (!(c->filters & (1u << i)))
			continue;
		chain[0].id = xz_filter_id[i];
		chain[0].options = NULL;
		/* A candidate must beat the best so far; it is built aside. */
		r = xz_encode(&c->enc_bcj, chain, src, srclen, c->tmp.p, best ? best - 1 : limit,
			      &len);
		if (r == SQK_ERR_OVERFLOW)
			continue;
		if (r)
			return r;
		memcpy(dst, c->tmp.p, len);
		best = len;
	}
	if (!best)
		return SQK_ERR_OVERFLOW;
	*outlen = best;
	return 0;
}

static void xz_destroy(struct sqk_compressor *base)
{
	struct xz_comp *c = (struct xz_comp *)base;

	if (!c)
		return;
	lzma_end(&c->dec);
	lzma_end(&c->enc);
	lzma_end(&c->enc_bcj);
	sqk_buf_free(&c->tmp);
	free(c);
}

static struct sqk_compressor *xz_create(const struct sqk_comp_config *cfg)
{
	const lzma_stream init = LZMA_STREAM_INIT;
	struct xz_comp *c;

	if (cfg->level < sqk_codec_xz.level_min || cfg->level > sqk_codec_xz.level_max ||
	    cfg->dict_size < LZMA_DICT_SIZE_MIN || (cfg->filters & ~(uint32_t)XZ_FILTER_MASK) ||
	    !xz_lclp_valid(cfg))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->base.codec = &sqk_codec_xz;
	c->base.decompress = xz_decompress;
	c->base.compress = xz_compress;
	c->base.destroy = xz_destroy;
	c->dec = init;
	c->enc = init;
	c->enc_bcj = init;
	c->filters = cfg->filters;
	if (lzma_lzma_preset(&c->opt,
			     (uint32_t)cfg->level | (cfg->extreme ? LZMA_PRESET_EXTREME : 0))) {
		free(c);
		return NULL;
	}
	/* The level picks the match finder and effort; the dictionary is ours. */
	c->opt.dict_size = cfg->dict_size;
	if (cfg->lzma_set & SQK_XZ_SET_LC)
		c->opt.lc = cfg->lc;
	if (cfg->lzma_set & SQK_XZ_SET_LP)
		c->opt.lp = cfg->lp;
	if (cfg->lzma_set & SQK_XZ_SET_PB)
		c->opt.pb = cfg->pb;
	return &c->base;
}

const struct sqk_codec sqk_codec_xz = {
	.id = SQK_COMP_XZ,
	.name = "xz",
	.level_min = 0,
	.level_max = 9,
	.level_default = XZ_DEFAULT_LEVEL,
	.defaults = xz_defaults,
	.set_option = xz_set_option,
	.read_options = xz_read_options,
	.write_options = xz_write_options,
	.describe = xz_describe,
	.create = xz_create,
};
