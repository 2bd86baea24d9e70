/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_CODEC_H
#define SQK_CODEC_H

/*
 * Helpers shared by the codec files. Not part of the public interface:
 * only the files in compressors/ include this.
 */
#include <stddef.h>
#include <stdint.h>

#include "compressor.h"
#include "util/error.h"
#include "util/parse.h"

/* The six codecs, each in its own file. */
extern const struct sqk_codec sqk_codec_gzip;
extern const struct sqk_codec sqk_codec_lzma;
extern const struct sqk_codec sqk_codec_lzo;
extern const struct sqk_codec sqk_codec_xz;
extern const struct sqk_codec sqk_codec_lz4;
extern const struct sqk_codec sqk_codec_zstd;

/* A scratch buffer that only grows, so hot paths stop allocating. */
struct sqk_buf {
	uint8_t *p;
	size_t cap;
};

int sqk_buf_reserve(struct sqk_buf *b, size_t n);
void sqk_buf_free(struct sqk_buf *b);

/* A name for one bit (or one value) in an options block. */
struct sqk_name {
	const char *name;
	uint32_t bit;
};

/* "level=N" for every codec: range-checked against the codec's limits. */
int sqk_set_level(const struct sqk_codec *codec, struct sqk_comp_config *cfg, const char *value);
/* A comma list of names into bits; SQK_ERR_ARG for an unknown or empty name. */
int sqk_names_to_bits(const char *list, const struct sqk_name *names, uint32_t *bits);
/* The names of the set bits, comma separated, or "none". */
void sqk_bits_to_names(uint32_t bits, const struct sqk_name *names, char *out, size_t cap);

/* describe() helpers: fill kv[*n] if there is room, then count it. */
void sqk_kv_num(struct sqk_comp_kv *kv, int max, int *n, const char *key, unsigned long v);
void sqk_kv_str(struct sqk_comp_kv *kv, int max, int *n, const char *key, const char *v);

/*
 * The most a compressed block may take: it must be smaller than its
 * input, or the caller stores the input raw.
 */
static inline size_t sqk_comp_limit(size_t srclen, size_t cap)
{
	if (srclen == 0)
		return 0;
	return cap < srclen - 1 ? cap : srclen - 1;
}

/* Every codec starts from a zeroed config with these filled in. */
void sqk_config_base(struct sqk_comp_config *cfg, const struct sqk_codec *codec,
		     uint32_t block_size);

#endif
