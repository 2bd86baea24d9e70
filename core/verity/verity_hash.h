/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_HASH_H
#define SQK_VERITY_HASH_H

/*
 * How a block is hashed (libcrypto's EVP: SHA-NI and the like where the
 * CPU has them). A hasher holds the algorithm, the salt and the hash type;
 * it is read-only once made, so threads share it, each with a context of
 * its own.
 */
#include <stddef.h>
#include <stdint.h>

#include "verity_fmt.h"

struct sqk_verity_hasher {
	const void *md; /* EVP_MD */
	uint32_t digest;
	uint32_t hash_type;
	uint16_t salt_size;
	uint8_t salt[SQK_VERITY_SALT_MAX];
};

/* A context for one thread's hashing; NULL without memory. */
struct sqk_verity_ctx;
struct sqk_verity_ctx *sqk_verity_ctx_new(void);
void sqk_verity_ctx_free(struct sqk_verity_ctx *c);

/*
 * The digest's size for an algorithm name, 0 for one this library does
 * not hash with (sha1, sha256, sha384 and sha512 it does).
 */
uint32_t sqk_verity_digest_size(const char *algorithm);
/* Set h up for p's algorithm, salt and hash type: 0, or SQK_ERR_UNSUPPORTED. */
int sqk_verity_hasher_init(struct sqk_verity_hasher *h, const struct sqk_verity_params *p);
/* The hash of a block of len bytes into out (h->digest bytes): 0, or SQK_ERR_NOMEM. */
int sqk_verity_hash(const struct sqk_verity_hasher *h, struct sqk_verity_ctx *c, const void *block,
		    size_t len, uint8_t *out);
/* A plain digest of len bytes, no salt (fingerprints, derived salts): 0 or SQK_ERR_NOMEM. */
int sqk_verity_digest(const char *algorithm, const void *data, size_t len, uint8_t *out);

#endif
