// SPDX-License-Identifier: BSD-2-Clause
/* SHA-256 (FIPS 180-4), see sha256.h. */
#include <math.h>
#include <string.h>

#include "sha256.h"

static uint32_t sha_k[64];
static uint32_t sha_h0[8];

/* The constants are the fractional bits of square and cube roots of primes. */
void sha256_constants(void)
{
	unsigned found = 0, n;

	for (n = 2; found < 64; n++) {
		unsigned d, prime = 1;
		double r;

		for (d = 2; d * d <= n; d++) {
			if (n % d == 0) {
				prime = 0;
				break;
			}
		}
		if (!prime)
			continue;
		r = cbrt((double)n);
		sha_k[found] = (uint32_t)((r - floor(r)) * 4294967296.0);
		if (found < 8) {
			r = sqrt((double)n);
			sha_h0[found] = (uint32_t)((r - floor(r)) * 4294967296.0);
		}
		found++;
	}
}

static uint32_t ror32(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

void sha256_init(struct sha256 *c)
{
	memcpy(c->h, sha_h0, sizeof(c->h));
	c->total = 0;
	c->fill = 0;
}

static void sha256_block(struct sha256 *c, const unsigned char *p)
{
	uint32_t w[64], a, b, d, e, f, g, h, cc, t1, t2;
	unsigned i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	/* The eight working variables in registers: shifting an array of them
	 * each round made the hash several times slower. */
	a = c->h[0];
	b = c->h[1];
	cc = c->h[2];
	d = c->h[3];
	e = c->h[4];
	f = c->h[5];
	g = c->h[6];
	h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) +
		     sha_k[i] + w[i];
		t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = cc;
		cc = b;
		b = a;
		a = t1 + t2;
	}
	c->h[0] += a;
	c->h[1] += b;
	c->h[2] += cc;
	c->h[3] += d;
	c->h[4] += e;
	c->h[5] += f;
	c->h[6] += g;
	c->h[7] += h;
}

void sha256_update(struct sha256 *c, const unsigned char *p, size_t len)
{
	c->total += len;
	while (len) {
		size_t n = 64 - c->fill;

		if (c->fill == 0 && len >= 64) { /* whole blocks straight from p */
			sha256_block(c, p);
			p += 64;
			len -= 64;
			continue;
		}

		if (n > len)
			n = len;
		memcpy(c->block + c->fill, p, n);
		c->fill += n;
		p += n;
		len -= n;
		if (c->fill == 64) {
			sha256_block(c, c->block);
			c->fill = 0;
		}
	}
}

void sha256_final(struct sha256 *c, unsigned char out[32])
{
	uint64_t bits = c->total * 8;
	unsigned char pad[72];
	size_t padlen = (c->fill < 56 ? 56 : 120) - c->fill;
	unsigned i;

	memset(pad, 0, sizeof(pad));
	pad[0] = 0x80;
	for (i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(c, pad, padlen + 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
}
