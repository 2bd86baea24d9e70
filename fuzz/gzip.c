// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the gzip codec's two decoders against each other
 * (compressor.h): decompress, libdeflate's, which readers use, and
 * decompress_kernel, zlib's inflate, which the kernel runs and fsck uses.
 *
 * The first byte says what the rest is. Even: a zlib stream, decoded as it
 * is (the seeds are real blocks cut from images). Odd: plain data, which is
 * compressed here with the level (first byte), window and strategies
 * (second byte) it picks, then damaged by up to four bit flips (third byte:
 * how many; three bytes each: position, bit). Each stream is decoded by
 * both into room for ROOM bytes and, when zlib read it, again into exactly
 * its length and into one byte less. It aborts when
 *   - zlib reads a stream libdeflate refuses: a reader would then fail on a
 *     block the kernel reads (and fsck calls clean);
 *   - both read a stream to different bytes;
 *   - a stream compressed here and not damaged does not read back;
 *   - either claims more bytes than its room, reads a stream into less room
 *     than its length, or fails with anything but SQK_ERR_COMPRESSOR.
 * libdeflate reading what zlib refuses is allowed: that is the point of
 * having both (fsck reports it as kernel-decode).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressors/compressor.h"
#include "format/format.h"
#include "util/error.h"

#define ROOM	  (256u * 1024)
#define MAX_PLAIN (128u * 1024)

static struct sqk_compressor *dec;		/* decodes every stream */
static struct sqk_compressor *enc_level[10];	/* per level: window 15, no strategy */
static uint8_t *out_fast, *out_kernel, *stream; /* ROOM, ROOM, MAX_PLAIN */

static void setup(void)
{
	struct sqk_comp_config cfg;

	sqk_comp_config_init(&cfg, SQK_COMP_GZIP, MAX_PLAIN);
	dec = sqk_comp_create(&cfg);
	out_fast = malloc(ROOM);
	out_kernel = malloc(ROOM);
	stream = malloc(MAX_PLAIN);
	if (!dec || !dec->decompress_kernel || !out_fast || !out_kernel || !stream)
		abort();
}

static void claim(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "gzip: %s\n", what);
		abort();
	}
}

/* Decode into a heap buffer of exactly room bytes (ASan sees overruns). */
static int decode_exact(int kernel, const uint8_t *s, size_t n, size_t room, uint8_t *want,
			size_t want_len)
{
	uint8_t *buf = malloc(room ? room : 1);
	size_t len = 0;
	int r;

	claim(buf != NULL, "out of memory");
	if (kernel)
		r = dec->decompress_kernel(dec, s, n, buf, room, &len);
	else
		r = dec->decompress(dec, s, n, buf, room, &len);
	claim(r == 0 || r == SQK_ERR_COMPRESSOR, "a decoder failed with another error");
	if (r == 0 && want)
		claim(len == want_len && !memcmp(buf, want, len),
		      "a decoder read a stream into exact room to other bytes");
	free(buf);
	return r;
}

/* Both decoders on one stream; plain is what it must read back to, or NULL. */
static void check(const uint8_t *s, size_t n, const uint8_t *plain, size_t plain_len)
{
	size_t len_fast = 0, len_kernel = 0;
	int rf, rk;

	rf = dec->decompress(dec, s, n, out_fast, ROOM, &len_fast);
	rk = dec->decompress_kernel(dec, s, n, out_kernel, ROOM, &len_kernel);
	claim(rf == 0 || rf == SQK_ERR_COMPRESSOR, "libdeflate failed with another error");
	claim(rk == 0 || rk == SQK_ERR_COMPRESSOR, "zlib failed with another error");
	claim(rf || len_fast <= ROOM, "libdeflate claims more than its room");
	claim(rk || len_kernel <= ROOM, "zlib claims more than its room");
	if (plain)
		claim(!rk && len_kernel == plain_len && !memcmp(out_kernel, plain, plain_len),
		      "a sound stream does not read back");
	if (rk)
		return;
	claim(!rf, "zlib reads a stream libdeflate refuses");
	claim(len_fast == len_kernel && !memcmp(out_fast, out_kernel, len_kernel),
	      "libdeflate and zlib read a stream to different bytes");
	claim(!decode_exact(0, s, n, len_kernel, out_kernel, len_kernel),
	      "libdeflate refuses a stream in exactly its room");
	claim(!decode_exact(1, s, n, len_kernel, out_kernel, len_kernel),
	      "zlib refuses a stream in exactly its room");
	if (len_kernel > 0) {
		claim(decode_exact(0, s, n, len_kernel - 1, NULL, 0) == SQK_ERR_COMPRESSOR,
		      "libdeflate reads a stream into less room than its length");
		claim(decode_exact(1, s, n, len_kernel - 1, NULL, 0) == SQK_ERR_COMPRESSOR,
		      "zlib reads a stream into less room than its length");
	}
}

/* An encoder for level, window and strategy bits; *owned when the caller frees it. */
static struct sqk_compressor *encoder(unsigned level, unsigned window, unsigned strategies,
				      int *owned)
{
	static const char *const names[5] = {"default", "filtered", "huffman_only",
					     "run_length_encoded", "fixed"};
	struct sqk_comp_config cfg;
	char opt[128];
	size_t n;

	*owned = window != 15 || strategies;
	if (!*owned && enc_level[level])
		return enc_level[level];
	sqk_comp_config_init(&cfg, SQK_COMP_GZIP, MAX_PLAIN);
	snprintf(opt, sizeof(opt), "level=%u", level);
	sqk_comp_config_option(&cfg, opt);
	snprintf(opt, sizeof(opt), "window=%u", window);
	sqk_comp_config_option(&cfg, opt);
	if (strategies) {
		n = snprintf(opt, sizeof(opt), "strategy=");
		for (int i = 0; i < 5; i++)
			if (strategies & (1u << i))
				n += snprintf(opt + n, sizeof(opt) - n, "%s%s",
					      strategies & ((1u << i) - 1) ? "," : "", names[i]);
		sqk_comp_config_option(&cfg, opt);
	}
	if (!*owned)
		return enc_level[level] = sqk_comp_create(&cfg);
	return sqk_comp_create(&cfg);
}

static void compress_and_damage(const uint8_t *data, size_t size)
{
	unsigned level, window, strategies, flips;
	const uint8_t *plain;
	size_t plain_len, len = 0;
	struct sqk_compressor *c;
	int owned, r;

	if (size < 3)
		return;
	level = 1 + (data[0] >> 1) % 9;
	window = 8 + data[1] % 8;
	strategies = (data[1] >> 3) & 0x1f;
	flips = data[2] % 5;
	if (size < 3 + 3 * (size_t)flips + 1)
		return;
	plain = data + 3 + 3 * flips;
	plain_len = size - 3 - 3 * flips;
	if (plain_len > MAX_PLAIN)
		plain_len = MAX_PLAIN;
	c = encoder(level, window, strategies, &owned);
	claim(c != NULL, "out of memory");
	r = c->compress(c, plain, plain_len, stream, plain_len, &len);
	if (owned)
		c->destroy(c);
	if (r == SQK_ERR_OVERFLOW)
		return; /* does not compress: it would be stored raw */
	claim(r == 0 && len > 0 && len < plain_len, "compressing failed");
	for (unsigned i = 0; i < flips; i++) {
		const uint8_t *f = data + 3 + 3 * i;

		stream[(f[0] | (size_t)f[1] << 8) % len] ^= (uint8_t)(1u << (f[2] % 8));
	}
	check(stream, len, flips ? NULL : plain, plain_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dec)
		setup();
	if (size < 1)
		return 0;
	if (data[0] & 1)
		compress_and_damage(data, size);
	else
		check(data + 1, size - 1, NULL, 0);
	return 0;
}
