// SPDX-License-Identifier: BSD-2-Clause
/*
 * zstd: each block is one zstd frame. The options block holds only the
 * level, and only when it is not the default.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "codec.h"
#include "format/format.h"
#include "util/le.h"

#define ZSTD_OPTS_SIZE 4

struct zstd_comp {
	struct sqk_compressor base;
	ZSTD_DCtx *dctx;
	ZSTD_CCtx *cctx; /* made on first compress: readers never need it */
	int level;
};

static void zstd_defaults(struct sqk_comp_config *cfg, uint32_t block_size)
{
	sqk_config_base(cfg, &sqk_codec_zstd, block_size);
}

static int zstd_set_option(struct sqk_comp_config *cfg, const char *key, const char *value)
{
	if (!strcmp(key, "level"))
		return sqk_set_level(&sqk_codec_zstd, cfg, value);
	return SQK_ERR_ARG;
}

static int zstd_read_options(struct sqk_comp_config *cfg, const uint8_t *buf, size_t len)
{
	uint32_t level;

	if (len != ZSTD_OPTS_SIZE)
		return SQK_ERR_CORRUPT;
	level = get_le32(buf);
	if (level < (uint32_t)sqk_codec_zstd.level_min ||
	    level > (uint32_t)sqk_codec_zstd.level_max)
		return SQK_ERR_CORRUPT;
	cfg->level = (int)level;
	cfg->has_options = 1;
	return 0;
}

static int zstd_write_options(const struct sqk_comp_config *cfg, uint8_t *buf, size_t cap,
			      size_t *len)
{
	*len = 0;
	if (cfg->level < sqk_codec_zstd.level_min || cfg->level > sqk_codec_zstd.level_max)
		return SQK_ERR_ARG;
	if (!cfg->has_options && cfg->level == sqk_codec_zstd.level_default)
		return 0;
	if (cap < ZSTD_OPTS_SIZE)
		return SQK_ERR_ARG;
	put_le32(buf, (uint32_t)cfg->level);
	*len = ZSTD_OPTS_SIZE;
	return 0;
}

static int zstd_describe(const struct sqk_comp_config *cfg, struct sqk_comp_kv *kv, int max)
{
	int n = 0;

	sqk_kv_num(kv, max, &n, "compression_level", (unsigned long)cfg->level);
	return n;
}

static int zstd_decompress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			   uint8_t *dst, size_t cap, size_t *outlen)
{
	struct zstd_comp *c = (struct zstd_comp *)base;
	size_t r;

	if (srclen == 0)
		return SQK_ERR_COMPRESSOR;
	r = ZSTD_decompressDCtx(c->dctx, dst, cap, src, srclen);
	if (ZSTD_isError(r))
		return SQK_ERR_COMPRESSOR;
	*outlen = r;
	return 0;
}

static int zstd_compress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			 uint8_t *dst, size_t cap, size_t *outlen)
{
	struct zstd_comp *c = (struct zstd_comp *)base;
	size_t limit = sqk_comp_limit(srclen, cap);
	size_t r;

	if (limit == 0)
		return SQK_ERR_OVERFLOW;
	if (!c->cctx) {
		c->cctx = ZSTD_createCCtx();
		if (!c->cctx)
			return SQK_ERR_NOMEM;
	}
	r = ZSTD_compressCCtx(c->cctx, dst, limit, src, srclen, c->level);
	if (ZSTD_isError(r)) {
		switch (ZSTD_getErrorCode(r)) {
		case ZSTD_error_dstSize_tooSmall:
			return SQK_ERR_OVERFLOW;
		case ZSTD_error_memory_allocation:
			return SQK_ERR_NOMEM;
		default:
			return SQK_ERR_COMPRESSOR;
		}
	}
	*outlen = r;
	return 0;
}

static void zstd_destroy(struct sqk_compressor *base)
{
	struct zstd_comp *c = (struct zstd_comp *)base;

	if (!c)
		return;
	ZSTD_freeDCtx(c->dctx);
	ZSTD_freeCCtx(c->cctx);
	free(c);
}

static struct sqk_compressor *zstd_create(const struct sqk_comp_config *cfg)
{
	struct zstd_comp *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->base.codec = &sqk_codec_zstd;
	c->base.decompress = zstd_decompress;
	c->base.compress = zstd_compress;
	c->base.destroy = zstd_destroy;
	c->level = cfg->level;
	c->dctx = ZSTD_createDCtx();
	if (!c->dctx) {
		zstd_destroy(&c->base);
		return NULL;
	}
	return &c->base;
}

const struct sqk_codec sqk_codec_zstd = {
	.id = SQK_COMP_ZSTD,
	.name = "zstd",
	.level_min = 1,
	.level_max = 22,
	.level_default = 15,
	.defaults = zstd_defaults,
	.set_option = zstd_set_option,
	.read_options = zstd_read_options,
	.write_options = zstd_write_options,
	.describe = zstd_describe,
	.create = zstd_create,
};
