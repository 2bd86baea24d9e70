// SPDX-License-Identifier: BSD-2-Clause
/* Signing a root hash and checking a signature of one (verity_sign.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>

#include "util/error.h"
#include "util/json.h"
#include "verity_fmt.h"
#include "verity_sign.h"

struct sqk_verity_signer {
	EVP_PKEY *key;
	X509 *cert;
};

/* Never ask for a passphrase: an encrypted key does not load. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	return 0;
}

static int said(const char **why, const char *what, int err)
{
	if (why)
		*why = what;
	return err;
}

/* A PEM file's first object of the kind read takes: 0, SQK_ERR_IO or SQK_ERR_ARG. */
static int load_cert(const char *path, X509 **out, const char **why)
{
	FILE *f = fopen(path, "re");

	*out = NULL;
	if (!f)
		return said(why, NULL, SQK_ERR_IO);
	*out = PEM_read_X509(f, NULL, no_passphrase, NULL);
	fclose(f);
	ERR_clear_error();
	return *out ? 0 : said(why, "no PEM certificate in it", SQK_ERR_ARG);
}

int sqk_verity_signer_load(const char *key, const char *cert, struct sqk_verity_signer **out,
			   const char **why, int *which)
{
	struct sqk_verity_signer *s = calloc(1, sizeof(*s));
	FILE *f;
	int err;

	*out = NULL;
	*which = 0;
	if (!s)
		return SQK_ERR_NOMEM;
	f = fopen(key, "re");
	if (!f) {
		free(s);
		return said(why, NULL, SQK_ERR_IO);
	}
	s->key = PEM_read_PrivateKey(f, NULL, no_passphrase, NULL);
	fclose(f);
	ERR_clear_error();
	if (!s->key) {
		free(s);
		return said(why, "no PEM private key in it (an encrypted key is not read)",
			    SQK_ERR_ARG);
	}
	*which = 1;
	err = load_cert(cert, &s->cert, why);
	if (!err && X509_check_private_key(s->cert, s->key) != 1)
		err = said(why, "its key is not the one given to sign with", SQK_ERR_ARG);
	ERR_clear_error();
	if (err) {
		sqk_verity_signer_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void sqk_verity_signer_free(struct sqk_verity_signer *s)
{
	if (!s)
		return;
	EVP_PKEY_free(s->key);
	X509_free(s->cert);
	free(s);
}

/* The kernel's recipe: detached, the bytes as they are, no attributes, no certificates. */
#define SIGN_FLAGS (PKCS7_DETACHED | PKCS7_BINARY | PKCS7_NOATTR | PKCS7_NOCERTS)

int sqk_verity_sign(const struct sqk_verity_signer *s, const char *root_hex, uint8_t **der,
		    size_t *len)
{
	BIO *in = BIO_new_mem_buf(root_hex, (int)strlen(root_hex));
	PKCS7 *p7 = in ? PKCS7_sign(s->cert, s->key, NULL, in, SIGN_FLAGS) : NULL;
	unsigned char *buf = NULL;
	int n = p7 ? i2d_PKCS7(p7, &buf) : -1;

	*der = NULL;
	PKCS7_free(p7);
	BIO_free(in);
	ERR_clear_error();
	if (n <= 0)
		return SQK_ERR_NOMEM;
	*der = malloc((size_t)n);
	if (*der)
		memcpy(*der, buf, (size_t)n);
	OPENSSL_free(buf);
	*len = (size_t)n;
	return *der ? 0 : SQK_ERR_NOMEM;
}

void sqk_verity_signer_fingerprint(const struct sqk_verity_signer *s, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (X509_digest(s->cert, EVP_sha256(), md, &n) != 1 || n != 32)
		memset(md, 0, 32);
	sqk_verity_hex(md, 32, out);
}

int sqk_verity_sig_check(const char *root_hex, const uint8_t *sig, size_t len, const char *cert,
			 const char **why)
{
	const unsigned char *p = sig;
	STACK_OF(X509) *certs = NULL;
	PKCS7 *p7 = NULL;
	BIO *in = NULL;
	X509 *c;
	int err = load_cert(cert, &c, why), ok = 0;

	if (err)
		return err;
	p7 = len <= 0x7fffffff ? d2i_PKCS7(NULL, &p, (long)len) : NULL;
	if (!p7 || !PKCS7_type_is_signed(p7)) {
		err = said(why, "no PKCS#7 signature in DER", SQK_ERR_CORRUPT);
		goto out;
	}
	certs = sk_X509_new_null();
	in = BIO_new_mem_buf(root_hex, (int)strlen(root_hex));
	if (!certs || !in || !sk_X509_push(certs, c)) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	c = NULL;
	/* As systemd checks one: by the certificate given alone, not by a chain to trust. */
	ok = PKCS7_verify(p7, certs, NULL, in, NULL,
			  PKCS7_NOINTERN | PKCS7_NOVERIFY | PKCS7_BINARY) == 1;
	if (!ok)
		err = said(why, "the signature does not verify with the certificate",
			   SQK_ERR_CORRUPT);
out:
	ERR_clear_error();
	X509_free(c);
	sk_X509_pop_free(certs, X509_free);
	BIO_free(in);
	PKCS7_free(p7);
	return err;
}

int sqk_verity_sig_json(const char *root_hex, const char *fingerprint, const uint8_t *sig,
			size_t sig_len, uint8_t **out, size_t *len)
{
	char *b64 = malloc(4 * ((sig_len + 2) / 3) + 1);
	struct sqk_json j;
	const char *text;
	size_t n;
	int err;

	*out = NULL;
	if (!b64)
		return SQK_ERR_NOMEM;
	EVP_EncodeBlock((unsigned char *)b64, sig, (int)sig_len);
	sqk_json_init_buf(&j);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "rootHash", root_hex);
	sqk_json_key_string(&j, "certificateFingerprint", fingerprint);
	sqk_json_key_string(&j, "signature", b64);
	sqk_json_end_object(&j);
	err = sqk_json_finish(&j);
	free(b64);
	text = sqk_json_buffer(&j, &n);
	if (!err) {
		/* Padded with NULs to a multiple of 4096 bytes, as a partition holds it. */
		*len = (n + 4095) / 4096 * 4096;
		*out = calloc(1, *len);
		if (*out)
			memcpy(*out, text, n);
		else
			err = SQK_ERR_NOMEM;
	}
	sqk_json_release(&j);
	return err;
}
