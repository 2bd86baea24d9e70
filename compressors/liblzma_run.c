// SPDX-License-Identifier: BSD-2-Clause
/* One block through a liblzma coder, for the lzma and xz codecs (liblzma_run.h). */
#include "liblzma_run.h"
#include "codec.h"

int sqk_liblzma_err(lzma_ret r)
{
	return r == LZMA_MEM_ERROR ? SQK_ERR_NOMEM : SQK_ERR_COMPRESSOR;
}

/*
 * Run s over src into out (cap bytes) to the end of the stream; an
 * encoder also stops when out is full. liblzma's last word, *outlen set.
 */
static lzma_ret run(lzma_stream *s, const uint8_t *src, size_t srclen, uint8_t *out, size_t cap,
		    int encoding, size_t *outlen)
{
	lzma_ret r;

	s->next_in = src;
	s->avail_in = srclen;
	s->next_out = out;
	s->avail_out = cap;
	do
		r = lzma_code(s, LZMA_FINISH);
	while (r == LZMA_OK && (!encoding || s->avail_out > 0));
	*outlen = cap - s->avail_out;
	return r;
}

int sqk_liblzma_decode(lzma_stream *s, const uint8_t *src, size_t srclen, uint8_t *dst, size_t cap,
		       size_t *outlen)
{
	size_t len;

	if (run(s, src, srclen, dst, cap, 0, &len) != LZMA_STREAM_END || s->avail_in != 0)
		return SQK_ERR_COMPRESSOR;
	*outlen = len;
	return 0;
}

int sqk_liblzma_encode(lzma_stream *s, const uint8_t *src, size_t srclen, uint8_t *out,
		       size_t limit, size_t *outlen)
{
	size_t len;
	lzma_ret r = run(s, src, srclen, out, limit, 1, &len);

	if (r == LZMA_STREAM_END) {
		*outlen = len;
		return 0;
	}
	if (r == LZMA_OK || r == LZMA_BUF_ERROR)
		return SQK_ERR_OVERFLOW;
	return sqk_liblzma_err(r);
}
