// SPDX-License-Identifier: BSD-2-Clause
/*
 * lzma: each block is in the legacy "lzma alone" form: a 13-byte header
 * (properties byte, u32 dictionary size, u64 uncompressed size) and the
 * raw LZMA data. mksquashfs stores the real uncompressed size in the
 * header, and its data still ends with an end marker; we write the same.
 * There is no options block: an image that has one is corrupt.
 */
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "format/format.h"
#include "liblzma_run.h"
#include "util/le.h"

#define LZMA_HEADER_SIZE   13
#define LZMA_SIZE_OFFSET   5
#define LZMA_SIZE_UNKNOWN  UINT64_MAX
#define LZMA_DEFAULT_LEVEL 6
/* See xz.c: far above any honest dictionary, and still cheap. */
#define LZMA_MEMLIMIT (64u << 20)

struct lzma_comp {
	struct sqk_compressor base;
	/* Kept across blocks so liblzma can reuse the coders' memory. */
	lzma_stream dec;
	lzma_stream enc;
	lzma_options_lzma opt;
};

static void lzma_defaults(struct sqk_comp_config *cfg, uint32_t block_size)
{
	sqk_config_base(cfg, &sqk_codec_lzma, block_size);
	cfg->dict_size = block_size;
}

static int lzma_set_option(struct sqk_comp_config *cfg, const char *key, const char *value)
{
	if (!strcmp(key, "level"))
		return sqk_set_level(&sqk_codec_lzma, cfg, value);
	return SQK_ERR_ARG;
}

static int lzma_read_options(struct sqk_comp_config *cfg, const uint8_t *buf, size_t len)
{
	return SQK_ERR_CORRUPT;
}

static int lzma_write_options(const struct sqk_comp_config *cfg, uint8_t *buf, size_t cap,
			      size_t *len)
{
	*len = 0;
	return 0;
}

static int lzma_describe(const struct sqk_comp_config *cfg, struct sqk_comp_kv *kv, int max)
{
	return 0;
}

static int lzma_decompress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			   uint8_t *dst, size_t cap, size_t *outlen)
{
	struct lzma_comp *c = (struct lzma_comp *)base;
	lzma_stream *s = &c->dec;
	uint64_t size;
	lzma_ret r;

	if (srclen <= LZMA_HEADER_SIZE)
		return SQK_ERR_COMPRESSOR;
	size = get_le64(src + LZMA_SIZE_OFFSET);
	if (size != LZMA_SIZE_UNKNOWN && size > cap)
		return SQK_ERR_COMPRESSOR;
	r = lzma_alone_decoder(s, LZMA_MEMLIMIT);
	if (r != LZMA_OK)
		return sqk_liblzma_err(r);
	if (sqk_liblzma_decode(s, src, srclen, dst, cap, outlen))
		return SQK_ERR_COMPRESSOR;
	if (size != LZMA_SIZE_UNKNOWN && s->total_out != size)
		return SQK_ERR_COMPRESSOR;
	return 0;
}

static int lzma_compress(struct sqk_compressor *base, const uint8_t *src, size_t srclen,
			 uint8_t *dst, size_t cap, size_t *outlen)
{
	struct lzma_comp *c = (struct lzma_comp *)base;
	size_t limit = sqk_comp_limit(srclen, cap);
	lzma_stream *s = &c->enc;
	lzma_ret r;

	if (limit <= LZMA_HEADER_SIZE)
		return SQK_ERR_OVERFLOW;
	r = lzma_alone_encoder(s, &c->opt);
	if (r != LZMA_OK)
		return sqk_liblzma_err(r);
	r = sqk_liblzma_encode(s, src, srclen, dst, limit, outlen);
	if (r)
		return r;
	/* The encoder wrote "size unknown"; state the real one, as mksquashfs does. */
	put_le64(dst + LZMA_SIZE_OFFSET, srclen);
	return 0;
}

static void lzma_destroy(struct sqk_compressor *base)
{
	struct lzma_comp *c = (struct lzma_comp *)base;

	if (!c)
		return;
	lzma_end(&c->dec);
	lzma_end(&c->enc);
	free(c);
}

static struct sqk_compressor *lzma_create(const struct sqk_comp_config *cfg)
{
	const lzma_stream init = LZMA_STREAM_INIT;
	struct lzma_comp *c;

	if (cfg->level < sqk_codec_lzma.level_min || cfg->level > sqk_codec_lzma.level_max)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->base.codec = &sqk_codec_lzma;
	c->base.decompress = lzma_decompress;
	c->base.compress = lzma_compress;
	c->base.destroy = lzma_destroy;
	c->dec = init;
	c->enc = init;
	if (lzma_lzma_preset(&c->opt, (uint32_t)cfg->level)) {
		free(c);
		return NULL;
	}
	/* The block size (at least liblzma's minimum), unless told otherwise. */
	c->opt.dict_size =
		cfg->dict_size > LZMA_DICT_SIZE_MIN ? cfg->dict_size : LZMA_DICT_SIZE_MIN;
	return &c->base;
}

const struct sqk_codec sqk_codec_lzma = {
	.id = SQK_COMP_LZMA,
	.name = "lzma",
	.level_min = 0,
	.level_max = 9,
	.level_default = LZMA_DEFAULT_LEVEL,
	.defaults = lzma_defaults,
	.set_option = lzma_set_option,
	.read_options = lzma_read_options,
	.write_options = lzma_write_options,
	.describe = lzma_describe,
	.create = lzma_create,
};
