/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_OCI_BLOB_H
#define SQK_OCI_BLOB_H

/*
 * An OCI image layout's files and blobs: a directory (oci-layout,
 * index.json, blobs/ALG/HEX), or a tar of one (oci-archive), read where it
 * lies without unpacking it. A blob is read through the digest that names
 * it: its bytes are hashed as they stream (sha256, sha512), counted
 * against the size its descriptor gives, and the read that ends it fails
 * when either differs.
 */
#include <stddef.h>
#include <stdint.h>

#include "layers.h"
#include "src.h"

struct sqk_oci_store;
struct sqk_oci_blob;

/* The layout at path: a directory, or with archive set a tar of one. 0, or the error, said. */
int sqk_oci_store_open(struct sqk_src_ctx *c, const char *path, int archive,
		       struct sqk_oci_store **out);
void sqk_oci_store_close(struct sqk_oci_store *s);
/* The path it was opened at, for messages. */
const char *sqk_oci_store_path(const struct sqk_oci_store *s);

/*
 * The layout's file name ("oci-layout", "index.json"), whole, of at most
 * max bytes (malloc'd, NUL-terminated). SQK_ERR_NOENT when there is none
 * (not said), or the error, said.
 */
int sqk_oci_store_file(struct sqk_oci_store *s, struct sqk_src_ctx *c, const char *name, size_t max,
		       char **data, size_t *len);

/* Is digest "ALG:HEX" one this reader checks (sha256, sha512, lowercase hex)? */
int sqk_oci_digest_valid(const char *digest);

/* The blob digest of size bytes: 0, or the error (a digest it does not check), said. */
int sqk_oci_blob_create(struct sqk_oci_store *s, struct sqk_src_ctx *c, const char *digest,
			uint64_t size, struct sqk_oci_blob **out);
void sqk_oci_blob_destroy(struct sqk_oci_blob *b);
/* Where the blob is, for messages: LAYOUT/blobs/ALG/HEX, or FILE: blobs/ALG/HEX. */
const char *sqk_oci_blob_where(const struct sqk_oci_blob *b);
/* The whole blob, checked, of at most max bytes (malloc'd, NUL-terminated). */
int sqk_oci_blob_slurp(struct sqk_oci_blob *b, struct sqk_src_ctx *c, size_t max, char **data,
		       size_t *len);
/* l reads the blob as a layer of compression f, checked as it streams; name in messages. */
void sqk_oci_blob_layer(struct sqk_oci_blob *b, const char *name, enum sqk_layer_filter f,
			struct sqk_layer *l);

#endif
