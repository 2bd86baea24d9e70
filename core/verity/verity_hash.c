// SPDX-License-Identifier: BSD-2-Clause
/* Hashing a block as dm-verity does (verity_hash.h). */
#include <string.h>

#include <openssl/evp.h>

#include "util/error.h"
#include "verity_hash.h"

struct sqk_verity_ctx {
	EVP_MD_CTX *md;
};

/* The algorithms a hash area may name; libcrypto has each under the same name. */
static const char *const algorithms[] = {"sha1", "sha256", "sha384", "sha512"};

static const EVP_MD *md_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(algorithms) / sizeof(algorithms[0]); i++)
		if (!strcmp(name, algorithms[i]))
			return EVP_get_digestbyname(name);
	return NULL;
}

struct sqk_verity_ctx *sqk_verity_ctx_new(void)
{
	struct sqk_verity_ctx *c = OPENSSL_zalloc(sizeof(*c));

	if (c && !(c->md = EVP_MD_CTX_new())) {
		OPENSSL_free(c);
		c = NULL;
	}
	return c;
}

void sqk_verity_ctx_free(struct sqk_verity_ctx *c)
{
	if (!c)
		return;
	EVP_MD_CTX_free(c->md);
	OPENSSL_free(c);
}

uint32_t sqk_verity_digest_size(const char *algorithm)
{
	const EVP_MD *md = md_of(algorithm);

	return md ? (uint32_t)EVP_MD_get_size(md) : 0;
}

int sqk_verity_hasher_init(struct sqk_verity_hasher *h, const struct sqk_verity_params *p)
{
	memset(h, 0, sizeof(*h));
	h->md = md_of(p->algorithm);
	if (!h->md || p->hash_type > 1 || p->salt_size > SQK_VERITY_SALT_MAX)
		return SQK_ERR_UNSUPPORTED;
	h->digest = (uint32_t)EVP_MD_get_size(h->md);
	h->hash_type = p->hash_type;
	h->salt_size = p->salt_size;
	memcpy(h->salt, p->salt, p->salt_size);
	return 0;
}

int sqk_verity_hash(const struct sqk_verity_hasher *h, struct sqk_verity_ctx *c, const void *block,
		    size_t len, uint8_t *out)
{
	EVP_MD_CTX *x = c->md;
	int ok = EVP_DigestInit_ex(x, h->md, NULL);

	/* Version 1 puts the salt first; Chrome OS's version 0 puts it last. */
	if (ok && h->hash_type == 1 && h->salt_size)
		ok = EVP_DigestUpdate(x, h->salt, h->salt_size);
	if (ok)
		ok = EVP_DigestUpdate(x, block, len);
	if (ok && h->hash_type == 0 && h->salt_size)
		ok = EVP_DigestUpdate(x, h->salt, h->salt_size);
	if (ok)
		ok = EVP_DigestFinal_ex(x, out, NULL);
	return ok ? 0 : SQK_ERR_NOMEM;
}

int sqk_verity_digest(const char *algorithm, const void *data, size_t len, uint8_t *out)
{
	const EVP_MD *md = md_of(algorithm);

	if (!md)
		return SQK_ERR_UNSUPPORTED;
	return EVP_Digest(data, len, out, NULL, md, NULL) ? 0 : SQK_ERR_NOMEM;
}
