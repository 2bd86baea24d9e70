/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_SIGN_H
#define SQK_VERITY_SIGN_H

/*
 * Signatures of a root hash, as the kernel's dm-verity checks them
 * (root_hash_sig_key_desc, drivers/md/dm-verity-verify-sig.c) and systemd
 * reads them (IMAGE.roothash.p7s, and its userspace check): PKCS#7 in DER,
 * detached, over the root hash's lowercase hex string without a newline,
 * with no signed attributes and no certificate in it, as `openssl smime
 * -sign -nocerts -noattr -binary -outform der` makes them. And the content
 * of a verity signature partition (the Discoverable Partitions
 * Specification): {"rootHash", "certificateFingerprint", "signature"}.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_verity_signer;

/*
 * The key (PEM, unencrypted) and the certificate (PEM) to sign with: 0, or
 * SQK_ERR_IO (errno kept) for a file that cannot be read, SQK_ERR_ARG for
 * one that holds no key or certificate or a key that is not the
 * certificate's; *why says which (may be NULL), *which the file (0 key, 1
 * certificate).
 */
int sqk_verity_signer_load(const char *key, const char *cert, struct sqk_verity_signer **out,
			   const char **why, int *which);
void sqk_verity_signer_free(struct sqk_verity_signer *s);

/* The signature of root_hex: 0 and *der (malloc'd, *len bytes), or SQK_ERR_NOMEM. */
int sqk_verity_sign(const struct sqk_verity_signer *s, const char *root_hex, uint8_t **der,
		    size_t *len);
/* The SHA-256 of the certificate's DER, lowercase hex (65 bytes with the NUL). */
void sqk_verity_signer_fingerprint(const struct sqk_verity_signer *s, char out[65]);

/*
 * Does sig (DER) sign root_hex by the key of the certificate in the PEM
 * file cert? 0 when it does; SQK_ERR_IO (errno kept) when cert cannot be
 * read; SQK_ERR_ARG when it holds no certificate; SQK_ERR_CORRUPT when sig
 * is no PKCS#7 signature or does not verify (*why says which).
 */
int sqk_verity_sig_check(const char *root_hex, const uint8_t *sig, size_t len, const char *cert,
			 const char **why);

/*
 * A verity signature partition's content for root_hex signed by sig:
 * the JSON object on one line, then NULs to a multiple of 4096 bytes.
 * 0 and *out (malloc'd, *len bytes), or SQK_ERR_NOMEM.
 */
int sqk_verity_sig_json(const char *root_hex, const char *fingerprint, const uint8_t *sig,
			size_t sig_len, uint8_t **out, size_t *len);

#endif
