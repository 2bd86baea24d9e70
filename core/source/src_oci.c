// SPDX-License-Identifier: BSD-2-Clause
/*
 * An OCI image as a source: the layout (a directory, or oci-archive:FILE),
 * its image chosen by REF and platform (oci_manifest.c), its layers read
 * from their blobs (oci_blob.c) and applied in order (src_layers.c), or
 * one layer alone as overlayfs keeps it. The image's configuration (its
 * entrypoint, environment, ...) is no part of a file system and is not read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "layers.h"
#include "oci_blob.h"
#include "oci_manifest.h"
#include "src.h"
#include "util/error.h"

static const char ARCHIVE_PREFIX[] = "oci-archive:";

/*
 * LAYOUT[:REF] into *path (malloc'd) and *ref (in spec, or NULL): REF
 * follows the first ':' before which the path exists, so that both a
 * layout's path and a REF may hold ':'.
 */
static int split(const char *spec, char **path, const char **ref)
{
	const char *colon;
	struct stat st;

	*ref = NULL;
	for (colon = strchr(spec, ':'); colon; colon = strchr(colon + 1, ':')) {
		char *p = strndup(spec, (size_t)(colon - spec));

		if (!p)
			return SQK_ERR_NOMEM;
		if (*p && stat(p, &st) == 0) {
			*path = p;
			*ref = colon + 1;
			return 0;
		}
		free(p);
	}
	*path = strdup(spec);
	return *path ? 0 : SQK_ERR_NOMEM;
}

int sqk_src_oci(struct sqk_src_ctx *c, const char *spec, const char *platform, unsigned layer,
		unsigned *nlayers)
{
	int archive = !strncmp(spec, ARCHIVE_PREFIX, sizeof(ARCHIVE_PREFIX) - 1);
	struct sqk_oci_image img = {0};
	struct sqk_oci_store *s = NULL;
	struct sqk_oci_blob **blobs = NULL;
	struct sqk_layer *layers = NULL;
	size_t i, first = 0, n;
	const char *ref;
	char *path = NULL;
	int err;

	*nlayers = 0;
	err = split(archive ? spec + sizeof(ARCHIVE_PREFIX) - 1 : spec, &path, &ref);
	if (!err && ref && !*ref)
		ref = NULL;
	if (!err)
		err = sqk_oci_store_open(c, path, archive, &s);
	if (!err)
		err = sqk_oci_image_find(s, c, ref, platform, &img);
	if (err)
		goto out;
	*nlayers = (unsigned)img.n;
	n = img.n;
	if (layer) {
		if (layer > img.n) {
			errno = 0;
			sqk_src_fail(c, path, "the image has %zu layer%s, no layer %u", img.n,
				     img.n == 1 ? "" : "s", layer);
			err = SQK_ERR_NOENT;
			goto out;
		}
		first = layer - 1;
		n = 1;
	}
	blobs = calloc(n + 1, sizeof(*blobs));
	layers = calloc(n + 1, sizeof(*layers));
	if (!blobs || !layers) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < n && !err; i++) {
		const struct sqk_oci_layer_desc *d = &img.layers[first + i];

		err = sqk_oci_blob_create(s, c, d->digest, d->size, &blobs[i]);
		if (!err)
			sqk_oci_blob_layer(blobs[i], sqk_oci_blob_where(blobs[i]), d->filter,
					   &layers[i]);
	}
	if (!err)
		err = sqk_src_layers(c, layers, n, layer ? SQK_LAYERS_OVERLAY : SQK_LAYERS_APPLY);
out:
	for (i = 0; blobs && blobs[i]; i++)
		sqk_oci_blob_destroy(blobs[i]);
	free(blobs);
	free(layers);
	sqk_oci_image_release(&img);
	sqk_oci_store_close(s);
	free(path);
	return err;
}
