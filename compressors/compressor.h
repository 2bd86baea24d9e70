/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_COMPRESSOR_H
#define SQK_COMPRESSOR_H

/*
 * One small interface for the six codecs.
 *
 * A struct sqk_comp_config says which codec and with what settings; it is
 * plain data, filled from defaults, from -X KEY=VALUE options or from the
 * options block an image carries after its superblock. A struct
 * sqk_compressor is a working instance made from a config: it owns the
 * codec's scratch state and is used by one thread at a time (the reader
 * and writer keep one per worker, or one behind a lock).
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_comp_config {
	int id;		     /* enum sqk_compressor_id */
	int level;	     /* codec level; lz4: 0 fast, 1..12 HC */
	uint32_t block_size; /* the image's block size (xz/lzma dictionary default) */
	uint32_t dict_size;  /* xz, lzma */
	uint32_t filters;    /* xz: BCJ filter bits, SQK_XZ_* */
	/*
	 * xz: the extreme preset and LZMA2's literal context, literal position
	 * and position bits. They live in each stream, not in the options block.
	 */
	uint8_t extreme;
	uint8_t lzma_set; /* SQK_XZ_SET_* of the three below that were given */
	uint8_t lc, lp, pb;
	int window;	     /* gzip: window bits 8..15 */
	uint16_t strategies; /* gzip: SQK_GZIP_* bits */
	int algorithm;	     /* lzo: SQK_LZO_* */
	/* Set when the config came from (or must produce) an options block. */
	int has_options;
};

/* xz BCJ filters, as the options block stores them. */
enum {
	SQK_XZ_X86 = 0x01,
	SQK_XZ_POWERPC = 0x02,
	SQK_XZ_IA64 = 0x04,
	SQK_XZ_ARM = 0x08,
	SQK_XZ_ARMTHUMB = 0x10,
	SQK_XZ_SPARC = 0x20,
};

enum { SQK_XZ_SET_LC = 1, SQK_XZ_SET_LP = 2, SQK_XZ_SET_PB = 4 };

/* gzip strategies, as the options block stores them. */
enum {
	SQK_GZIP_DEFAULT = 0x01,
	SQK_GZIP_FILTERED = 0x02,
	SQK_GZIP_HUFFMAN = 0x04,
	SQK_GZIP_RLE = 0x08,
	SQK_GZIP_FIXED = 0x10,
};

/* lzo algorithms, as the options block stores them. */
enum {
	SQK_LZO1X_1 = 0,
	SQK_LZO1X_1_11 = 1,
	SQK_LZO1X_1_12 = 2,
	SQK_LZO1X_1_15 = 3,
	SQK_LZO1X_999 = 4,
};

/* One option for display (inspect): numbers print as numbers. */
struct sqk_comp_kv {
	const char *key;
	char value[64];
	int is_number;
};

struct sqk_compressor;

struct sqk_codec {
	int id;
	const char *name;
	int level_min, level_max, level_default;

	/* Fill cfg with this codec's defaults for block_size. */
	void (*defaults)(struct sqk_comp_config *cfg, uint32_t block_size);
	/* Apply -X KEY=VALUE; SQK_ERR_ARG for an unknown key or bad value. */
	int (*set_option)(struct sqk_comp_config *cfg, const char *key, const char *value);
	/*
	 * Parse and validate an image's options block (len bytes), over a
	 * config from sqk_comp_config_init() with the image's block size.
	 * Call it only when the superblock has SQK_FLAG_COMPRESSOR_OPTIONS;
	 * without that flag the defaults stand. SQK_ERR_CORRUPT for a wrong
	 * length, a bad value or an unknown bit (lzma: for any block at all).
	 */
	int (*read_options)(struct sqk_comp_config *cfg, const uint8_t *buf, size_t len);
	/*
	 * Encode the options block; *len = 0 when no block is needed. Set
	 * SQK_FLAG_COMPRESSOR_OPTIONS exactly when *len > 0 (lz4 always
	 * writes one, as mksquashfs does). 64 bytes of room are plenty.
	 */
	int (*write_options)(const struct sqk_comp_config *cfg, uint8_t *buf, size_t cap,
			     size_t *len);
	/* List the settings for display; returns how many were written to kv. */
	int (*describe)(const struct sqk_comp_config *cfg, struct sqk_comp_kv *kv, int max);
	/*
	 * A working instance, or NULL when out of memory (or cfg is out of
	 * range). Decoding does not depend on cfg: any instance of a codec
	 * reads every block of that codec.
	 */
	struct sqk_compressor *(*create)(const struct sqk_comp_config *cfg);
};

struct sqk_compressor {
	const struct sqk_codec *codec;
	/*
	 * Decompress exactly srclen bytes into at most cap bytes.
	 * 0 and *outlen on success; SQK_ERR_COMPRESSOR when the input is not a
	 * valid stream or its output does not fit. Never writes past cap.
	 * Check *outlen against the size you expect: a raw LZ4 block has no
	 * end marker, so a truncated one can decode, shorter.
	 */
	int (*decompress)(struct sqk_compressor *c, const uint8_t *src, size_t srclen, uint8_t *dst,
			  size_t cap, size_t *outlen);
	/*
	 * The decoder the kernel runs, where decompress is another, faster one
	 * (gzip: zlib's inflate, where decompress is libdeflate's); NULL when
	 * decompress is the kernel's decoder already. Same contract as
	 * decompress. What it reads, decompress reads to the same bytes;
	 * decompress also reads some damaged streams it refuses, but only where
	 * the stream's own checksum vouches for the output. Readers use
	 * decompress; fsck uses this one, so that its verdict is the kernel's.
	 */
	int (*decompress_kernel)(struct sqk_compressor *c, const uint8_t *src, size_t srclen,
				 uint8_t *dst, size_t cap, size_t *outlen);
	/*
	 * Compress srclen bytes into at most cap bytes. 0 and *outlen on
	 * success; SQK_ERR_OVERFLOW when the output would not be smaller than
	 * srclen (the caller then stores the block raw). cap = srclen is
	 * always enough: no worst-case bound beyond it, the codecs use their
	 * own scratch. SQK_ERR_NOMEM when lazily made coder state fails.
	 */
	int (*compress)(struct sqk_compressor *c, const uint8_t *src, size_t srclen, uint8_t *dst,
			size_t cap, size_t *outlen);
	void (*destroy)(struct sqk_compressor *c);
};

/* The registry (compressors/registry.c). */
const struct sqk_codec *sqk_codec_by_id(int id);
const struct sqk_codec *sqk_codec_by_name(const char *name);
/* All codecs, terminated by NULL. */
extern const struct sqk_codec *const sqk_codecs[];

/*
 * Convenience over the registry: the codec's defaults for block_size.
 * SQK_ERR_UNSUPPORTED for an unknown id. Call it before read_options (xz
 * checks its dictionary against block_size) and before set_option (xz
 * dict-size=50% is a share of block_size).
 */
int sqk_comp_config_init(struct sqk_comp_config *cfg, int id, uint32_t block_size);

/* Apply one -X KEY=VALUE string to cfg's codec; SQK_ERR_ARG when malformed. */
int sqk_comp_config_option(struct sqk_comp_config *cfg, const char *key_value);

/* cfg's codec->create(cfg); NULL for an unknown id or out of memory. */
/*
 * A writer's config: codec's defaults for block_size, level (-1: the
 * default), then the KEY=VALUE options kvs[0..n). SQK_ERR_ARG for a level
 * out of range, a bad option (*bad is its index; n when none is) or options
 * that do not go together.
 */
int sqk_comp_config_setup(struct sqk_comp_config *cfg, const struct sqk_codec *codec,
			  uint32_t block_size, int level, const char *const *kvs, size_t n,
			  size_t *bad);

struct sqk_compressor *sqk_comp_create(const struct sqk_comp_config *cfg);

#endif
