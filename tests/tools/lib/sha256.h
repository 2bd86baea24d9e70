/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TOOLS_SHA256_H
#define SQK_TOOLS_SHA256_H

/*
 * SHA-256 (FIPS 180-4) for the test tools, so that a tree's description
 * names file contents by digest without a crypto library.
 */
#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t total;
	unsigned char block[64];
	size_t fill;
};

/* Once, before the first digest: the round constants are computed. */
void sha256_constants(void);
void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const unsigned char *p, size_t len);
void sha256_final(struct sha256 *c, unsigned char out[32]);

#endif
