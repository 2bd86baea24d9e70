// SPDX-License-Identifier: BSD-2-Clause
/*
 * lzo: each block is one raw lzo1x block. All five algorithms write the
 * same lzo1x format, so one safe decoder reads them all; the options
 * block only matters when compressing.
 */
#include <lzo1x.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "format/format.h"
#include "util/le.h"

#define LZO_OPTS_SIZE	  8
#define LZO_DEFAULT_LEVEL 8

static const struct sqk_name lzo_algorithm_names[] = {
	{"lzo1x_1", SQK_LZO1X_1},	{"lzo1x_1_11", SQK_LZO1X_1_11},
	{"lzo1x_1_12", SQK_LZO1X_1_12}, {"lzo1x_1_15", SQK_LZO1X_1_15},
	{"lzo1x_999", SQK_LZO1X_999},	{NULL, 0},
};

/* Work memory each algorithm's compressor needs. */
static const size_t lzo_wrkmem_size[] = {
	[SQK_LZO1X_1] = LZO1X_1_MEM_COMPRESS,	    [SQK_LZO1X_1_11] = LZO1X_1_11_MEM_COMPRESS,
	[SQK_LZO1X_1_12] = LZO1X_1_12_MEM_COMPRESS, [SQK_LZO1X_1_15] = LZO1X_1_15_MEM_COMPRESS,
	[SQK_LZO1X_999] = LZO1X_999_MEM_COMPRESS,
};

struct lzo_comp {
	struct sqk_compressor base;
	/* Made on first compress: readers never need them. */
	void *wrkmem;
	struct sqk_buf out;  /* lzo writes blindly: room for the worst case */
	struct sqk_buf orig; /* lzo1x_optimize decompresses into this */
	int algorithm, level;
};

static pthread_once_t lzo_once = PTHREAD_ONCE_INIT;
static int lzo_init_result = -1;

static void lzo_init_once(void)
{
	lzo_init_result = lzo_init();
}

/* lzo's documented worst case for an input of n bytes. */
static size_t lzo_bound(size_t n)
{
	return n + n / 16 + 64 + 3;
}

static const char *lzo_name(int algorithm)
{
	for (const struct sqk_name *nm = lzo_algorithm_names; nm->name; nm++)
		if ((int)nm->bit == algorithm)
			return nm->name;
	return "unknown";
}

/* The level the options block stores: only lzo1x_999 has one. */
static int lzo_stored_level(const struct sqk_comp_config *cfg)
{
	return cfg->algorithm == SQK_LZO1X_999 ? cfg->level : 0;
}

static void lzo_defaults(struct sqk_comp_config *cfg, uint32_t block_size)
{
	sqk_config_base(cfg, &sqk_codec_lzo, block_size);
	cfg->algorithm = SQK_LZO1X_999;
}

static int lzo_set_option(struct sqk_comp_config *cfg, const char *key, const char *value)
{
	if (!strcmp(key, "level"))
		return sqk_set_level(&sqk_codec_lzo, cfg, value);
	if (!strcmp(key, "algorithm")) {
		for (const struct sqk_name *nm = lzo_algorithm_names; nm->name; nm++) {
			if (!strcmp(nm->name, value)) {
				cfg->algorithm = (int)nm->bit;
				return 0;
			}
		}
	}
	return SQK_ERR_ARG;
}

static int lzo_read_options(struct sqk_comp_config *cfg, const uint8_t *buf, size_t len)
{
	uint32_t algorithm, level;

	if (len != LZO_OPTS_SIZE)
		return SQK_ERR_CORRUPT;
	algorithm = get_le32(buf);
	level = get_le32(buf + 4);
	if (algorithm > SQK_LZO1X_999)
		return SQK_ERR_CORRUPT;
	if (algorithm == SQK_LZO1X_999 ? level < 1 || level > 9 : level != 0)
		return SQK_ERR_CORRUPT;
	cfg->algorithm = (int)algorithm;
	/* Keep cfg->level in range even for the algorithms without one. */
	cfg->level = level ? (int)level : LZO_DEFAULT_LEVEL;
	cfg->has_options = 1;
	return 0;
}

static int lzo_write_options(const struct sqk_comp_config *cfg, uint8_t *buf, size_t cap,
			     size_t *len)
{
	*len = 0;
	if (cfg->algorithm < SQK_LZO1X_1 || cfg->algorithm > SQK_LZO1X_999 || cfg->level < 1 ||
	    cfg->level > 9)
		return SQK_ERR_ARG;
	if (!cfg->has_options && cfg->algorithm == SQK_LZO1X_999 && cfg->level == LZO_DEFAULT_LEVEL)
		return 0;
	if (cap < LZO_OPTS_SIZE)
		return SQK_ERR_ARG;
	put_le32(buf, (uint32_t)cfg->algorithm);
	put_le32(buf + 4, (uint32_t)lzo_stored_level(cfg));
	*len = LZO_OPTS_SIZE;
	return 0;
}

static int lzo_describe(const struct sqk_comp_config *cfg, struct sqk_comp_kv *kv, int max)
{
	int n = 0;

	sqk_kv_str(kv, max, &n, "algorithm", lzo_name(cfg->algorithm));
	sqk_kv_num(kv, max, &n, "compression_level", (unsigned long)lzo_stored_level(cfg));
	return n;
}

static int lzo_decompress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			  uint8_t *dst, size_t cap, size_t *outlen)
{
	lzo_uint len = cap;
	int r;

	if (srclen == 0)
		return SQK_ERR_COMPRESSOR;
	/* The safe decoder checks both buffers; it also rejects trailing input. */
	r = lzo1x_decompress_safe((lzo_bytep)src, srclen, dst, &len, NULL);
	if (r != LZO_E_OK || len > cap)
		return SQK_ERR_COMPRESSOR;
	*outlen = len;
	return 0;
}

static int lzo_run(struct lzo_comp *c, const uint8_t *src, size_t srclen, uint8_t *out,
		   lzo_uint *len)
{
	switch (c->algorithm) {
	case SQK_LZO1X_1:
		return lzo1x_1_compress((lzo_bytep)src, srclen, out, len, c->wrkmem);
	case SQK_LZO1X_1_11:
		return lzo1x_1_11_compress((lzo_bytep)src, srclen, out, len, c->wrkmem);
	case SQK_LZO1X_1_12:
		return lzo1x_1_12_compress((lzo_bytep)src, srclen, out, len, c->wrkmem);
	case SQK_LZO1X_1_15:
		return lzo1x_1_15_compress((lzo_bytep)src, srclen, out, len, c->wrkmem);
	default:
		return lzo1x_999_compress_level((lzo_bytep)src, srclen, out, len, c->wrkmem, NULL,
						0, NULL, c->level);
	}
}

static int lzo_compress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			uint8_t *dst, size_t cap, size_t *outlen)
{
	struct lzo_comp *c = (struct lzo_comp *)base;
	size_t limit = sqk_comp_limit(srclen, cap);
	lzo_uint len = 0, orig_len = srclen;
	uint8_t *out = dst;

	if (limit == 0)
		return SQK_ERR_OVERFLOW;
	if (!c->wrkmem) {
		c->wrkmem = malloc(lzo_wrkmem_size[c->algorithm]);
		if (!c->wrkmem)
			return SQK_ERR_NOMEM;
	}
	/* lzo never checks its output room: write straight to dst only if it is surely big enough.
	 */
	if (cap < lzo_bound(srclen)) {
		if (sqk_buf_reserve(&c->out, lzo_bound(srclen)))
			return SQK_ERR_NOMEM;
		out = c->out.p;
	}
	if (lzo_run(c, src, srclen, out, &len) != LZO_E_OK)
		return SQK_ERR_COMPRESSOR;
	if (len > limit)
		return SQK_ERR_OVERFLOW;
	/* As mksquashfs does: lzo1x_999 output gets the optimiser pass. */
	if (c->algorithm == SQK_LZO1X_999) {
		if (sqk_buf_reserve(&c->orig, srclen))
			return SQK_ERR_NOMEM;
		if (lzo1x_optimize(out, len, c->orig.p, &orig_len, NULL) != LZO_E_OK ||
		    orig_len != srclen)
			return SQK_ERR_COMPRESSOR;
	}
	if (out != dst)
		memcpy(dst, out, len);
	*outlen = len;
	return 0;
}

static void lzo_destroy(struct sqk_compressor *base)
{
	struct lzo_comp *c = (struct lzo_comp *)base;

	if (!c)
		return;
	free(c->wrkmem);
	sqk_buf_free(&c->out);
	sqk_buf_free(&c->orig);
	free(c);
}

static struct sqk_compressor *lzo_create(const struct sqk_comp_config *cfg)
{
	struct lzo_comp *c;

	pthread_once(&lzo_once, lzo_init_once);
	if (lzo_init_result != LZO_E_OK)
		return NULL;
	if (cfg->algorithm < SQK_LZO1X_1 || cfg->algorithm > SQK_LZO1X_999 || cfg->level < 1 ||
	    cfg->level > 9)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->base.codec = &sqk_codec_lzo;
	c->base.decompress = lzo_decompress;
	c->base.compress = lzo_compress;
	c->base.destroy = lzo_destroy;
	c->algorithm = cfg->algorithm;
	c->level = cfg->level;
	return &c->base;
}

const struct sqk_codec sqk_codec_lzo = {
	.id = SQK_COMP_LZO,
	.name = "lzo",
	.level_min = 1,
	.level_max = 9,
	.level_default = LZO_DEFAULT_LEVEL,
	.defaults = lzo_defaults,
	.set_option = lzo_set_option,
	.read_options = lzo_read_options,
	.write_options = lzo_write_options,
	.describe = lzo_describe,
	.create = lzo_create,
};
