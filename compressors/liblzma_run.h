/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_LIBLZMA_RUN_H
#define SQK_LIBLZMA_RUN_H

/*
 * What the lzma and xz codecs share: one block through a liblzma coder
 * that the caller has set up (lzma_alone_* or lzma_stream_*), and
 * liblzma's failures in the library's codes.
 */
#include <lzma.h>
#include <stddef.h>
#include <stdint.h>

/* SQK_ERR_NOMEM for liblzma's want of memory, else SQK_ERR_COMPRESSOR. */
int sqk_liblzma_err(lzma_ret r);
/*
 * Decode src into dst (cap bytes) with decoder s: 0 and *outlen, or
 * SQK_ERR_COMPRESSOR unless the stream ends exactly where src does.
 */
int sqk_liblzma_decode(lzma_stream *s, const uint8_t *src, size_t srclen, uint8_t *dst, size_t cap,
		       size_t *outlen);
/* Encode src into out with encoder s: 0 and *outlen, SQK_ERR_OVERFLOW past limit bytes. */
int sqk_liblzma_encode(lzma_stream *s, const uint8_t *src, size_t srclen, uint8_t *out,
		       size_t limit, size_t *outlen);

#endif
