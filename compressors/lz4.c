// SPDX-License-Identifier: BSD-2-Clause
/*
 * lz4: each block is one raw LZ4 block (no frame). The options block is
 * always written, as mksquashfs does; its version field names that block
 * layout, and readers refuse any other version.
 */
#include <limits.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "format/format.h"
#include "util/le.h"

#define LZ4_OPTS_SIZE	8
#define LZ4_OPT_VERSION 1
#define LZ4_FLAG_HC	0x1
#define LZ4_FLAGS_KNOWN LZ4_FLAG_HC

struct lz4_comp {
	struct sqk_compressor base;
	void *state; /* LZ4 or LZ4HC state, made on first compress */
	int level;
};

static void lz4_defaults(struct sqk_comp_config *cfg, uint32_t block_size)
{
	sqk_config_base(cfg, &sqk_codec_lz4, block_size);
	cfg->has_options = 1;
}

static int lz4_set_option(struct sqk_comp_config *cfg, const char *key, const char *value)
{
	if (!strcmp(key, "level"))
		return sqk_set_level(&sqk_codec_lz4, cfg, value);
	return SQK_ERR_ARG;
}

static int lz4_read_options(struct sqk_comp_config *cfg, const uint8_t *buf, size_t len)
{
	uint32_t version, flags;

	if (len != LZ4_OPTS_SIZE)
		return SQK_ERR_CORRUPT;
	version = get_le32(buf);
	flags = get_le32(buf + 4);
	if (version != LZ4_OPT_VERSION || (flags & ~(uint32_t)LZ4_FLAGS_KNOWN))
		return SQK_ERR_CORRUPT;
	/* The block says HC or not, never which HC level: take lz4's default. */
	if (!(flags & LZ4_FLAG_HC))
		cfg->level = 0;
	else if (cfg->level == 0)
		cfg->level = LZ4HC_CLEVEL_DEFAULT;
	cfg->has_options = 1;
	return 0;
}

static int lz4_write_options(const struct sqk_comp_config *cfg, uint8_t *buf, size_t cap,
			     size_t *len)
{
	*len = 0;
	if (cfg->level < sqk_codec_lz4.level_min || cfg->level > sqk_codec_lz4.level_max)
		return SQK_ERR_ARG;
	if (cap < LZ4_OPTS_SIZE)
		return SQK_ERR_ARG;
	put_le32(buf, LZ4_OPT_VERSION);
	put_le32(buf + 4, cfg->level > 0 ? LZ4_FLAG_HC : 0);
	*len = LZ4_OPTS_SIZE;
	return 0;
}

static int lz4_describe(const struct sqk_comp_config *cfg, struct sqk_comp_kv *kv, int max)
{
	int n = 0;

	sqk_kv_num(kv, max, &n, "version", LZ4_OPT_VERSION);
	sqk_kv_num(kv, max, &n, "hc", cfg->level > 0);
	return n;
}

static int lz4_decompress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			  uint8_t *dst, size_t cap, size_t *outlen)
{
	int r;

	if (srclen == 0 || srclen > INT_MAX)
		return SQK_ERR_COMPRESSOR;
	if (cap > INT_MAX)
		cap = INT_MAX;
	r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)srclen, (int)cap);
	if (r < 0)
		return SQK_ERR_COMPRESSOR;
	*outlen = (size_t)r;
	return 0;
}

static int lz4_compress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			uint8_t *dst, size_t cap, size_t *outlen)
{
	struct lz4_comp *c = (struct lz4_comp *)base;
	size_t limit = sqk_comp_limit(srclen, cap);
	int r;

	if (limit == 0)
		return SQK_ERR_OVERFLOW;
	if (srclen > LZ4_MAX_INPUT_SIZE)
		return SQK_ERR_ARG;
	if (limit > INT_MAX)
		limit = INT_MAX;
	if (!c->state) {
		c->state = malloc((size_t)(c->level ? LZ4_sizeofStateHC() : LZ4_sizeofState()));
		if (!c->state)
			return SQK_ERR_NOMEM;
	}
	if (c->level)
		r = LZ4_compress_HC_extStateHC(c->state, (const char *)src, (char *)dst,
					       (int)srclen, (int)limit, c->level);
	else
		r = LZ4_compress_fast_extState(c->state, (const char *)src, (char *)dst,
					       (int)srclen, (int)limit, 1);
	/* 0 means it did not fit in limit. */
	if (r <= 0)
		return SQK_ERR_OVERFLOW;
	*outlen = (size_t)r;
	return 0;
}

static void lz4_destroy(struct sqk_compressor *base)
{
	struct lz4_comp *c = (struct lz4_comp *)base;

	if (!c)
		return;
	free(c->state);
	free(c);
}

static struct sqk_compressor *lz4_create(const struct sqk_comp_config *cfg)
{
	struct lz4_comp *c;

	if (cfg->level < sqk_codec_lz4.level_min || cfg->level > sqk_codec_lz4.level_max)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->base.codec = &sqk_codec_lz4;
	c->base.decompress = lz4_decompress;
	c->base.compress = lz4_compress;
	c->base.destroy = lz4_destroy;
	c->level = cfg->level;
	return &c->base;
}

const struct sqk_codec sqk_codec_lz4 = {
	.id = SQK_COMP_LZ4,
	.name = "lz4",
	.level_min = 0,
	.level_max = LZ4HC_CLEVEL_MAX,
	.level_default = 0,
	.defaults = lz4_defaults,
	.set_option = lz4_set_option,
	.read_options = lz4_read_options,
	.write_options = lz4_write_options,
	.describe = lz4_describe,
	.create = lz4_create,
};
