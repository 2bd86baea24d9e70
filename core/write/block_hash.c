// SPDX-License-Identifier: BSD-2-Clause
/* What a block is: the hash dedup keys on, and whether it is all zero (sparse). */
#include "data_int.h"

uint64_t sqk_hash64(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t a = HM1 ^ len, b = HM2, c = HM3, d = HM1 + HM2, h;

	while (len >= 32) {
		a = rotl64(a + rd64(p) * HM2, 31) * HM1;
		b = rotl64(b + rd64(p + 8) * HM2, 31) * HM1;
		c = rotl64(c + rd64(p + 16) * HM2, 31) * HM1;
		d = rotl64(d + rd64(p + 24) * HM2, 31) * HM1;
		p += 32;
		len -= 32;
	}
	h = rotl64(a, 1) + rotl64(b, 7) + rotl64(c, 12) + rotl64(d, 18);
	while (len >= 8) {
		h = rotl64(h ^ (rd64(p) * HM2), 27) * HM1 + HM3;
		p += 8;
		len -= 8;
	}
	while (len--)
		h = rotl64(h ^ (*p++ * HM3), 11) * HM1;
	return fmix(h);
}

int sqk_dw_all_zero(const uint8_t *p, size_t len)
{
	size_t i = 0;

	for (; i + 32 <= len; i += 32)
		if (rd64(p + i) | rd64(p + i + 8) | rd64(p + i + 16) | rd64(p + i + 24))
			return 0;
	for (; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

uint64_t sqk_dw_zero_hash(uint32_t len)
{
	return fmix(0x5a5a5a5a00000000ull ^ len);
}
