/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TEST_META_STREAM_H
#define SQK_TEST_META_STREAM_H

/* The uncompressed stream of stored metadata blocks: each block header dropped. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/format.h"
#include "util/le.h"

static inline size_t meta_stream_of(const uint8_t *raw, size_t len, uint8_t *out)
{
	size_t n = 0;

	while (len >= 2) {
		size_t sz = get_le16(raw) & SQK_META_SIZE_MASK;

		memcpy(out + n, raw + 2, sz);
		n += sz;
		raw += 2 + sz;
		len -= 2 + sz;
	}
	return n;
}

#endif
