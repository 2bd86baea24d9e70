/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_OCI_MANIFEST_H
#define SQK_OCI_MANIFEST_H

/*
 * Which image of an OCI layout to build, and its layers: index.json's
 * manifest named REF (the org.opencontainers.image.ref.name annotation),
 * or its only one; through image indexes (several platforms) by the
 * platform asked for, this machine's unless said. Docker's manifest and
 * manifest list media types are read as the OCI ones.
 */
#include <stddef.h>
#include <stdint.h>

#include "layers.h"
#include "oci_blob.h"

struct sqk_oci_layer_desc {
	char digest[140];
	uint64_t size;
	enum sqk_layer_filter filter;
};

struct sqk_oci_image {
	struct sqk_oci_layer_desc *layers; /* the lowest first */
	size_t n;
};

/*
 * The image of s named ref (NULL: the only one), for platform
 * "os/arch[/variant]" (NULL: this machine's). 0, or the error, said in c.
 */
int sqk_oci_image_find(struct sqk_oci_store *s, struct sqk_src_ctx *c, const char *ref,
		       const char *platform, struct sqk_oci_image *img);
void sqk_oci_image_release(struct sqk_oci_image *img);

/* Is "os/arch[/variant]" a platform as --platform takes it? */
int sqk_oci_platform_valid(const char *platform);
/* This machine's platform, as the OCI spec names it ("linux/amd64", "linux/arm/v7"). */
void sqk_oci_platform_native(char *buf, size_t cap);

#endif
