// SPDX-License-Identifier: BSD-2-Clause
/*
 * mkimage's options of container pipelines and labels: --whiteouts,
 * --oci, --platform, --oci-layers (one image per layer, made one after the
 * other), --file-contexts, --selinux-root, --keep-source-labels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "mkimage.h"

int cli_mkimage_input_opt(struct args *a, int which, const char *name, const char *arg)
{
	switch (which) {
	case 0:
		a->whiteouts = 1;
		break;
	case 1:
		a->oci = arg;
		break;
	case 2:
		a->platform = 1;
		break;
	case 3:
		/* Each layer's build names its layer ("oci-layer"). */
		a->oci_layers = 1;
		return 0;
	case 4:
		a->labels = 1;
		break;
	default:
		a->label_opts = 1;
		break;
	}
	return cli_mkimage_set(a, name, arg);
}

int cli_mkimage_input_check(const struct args *a, int nsrc, const char *image)
{
	if (a->whiteouts && !a->archive_mode && !a->archives.n)
		return cli_usage_error("--whiteouts applies to archives (--archive)");
	if (a->append && (a->oci || a->whiteouts))
		return cli_usage_error("--append and %s exclude each other",
				       a->oci ? "--oci" : "--whiteouts");
	if (a->platform && !a->oci)
		return cli_usage_error("--platform needs --oci");
	if (a->labels && a->no_xattrs)
		return cli_usage_error("--file-contexts and --no-xattrs exclude each other");
	if (a->label_opts && !a->labels)
		return cli_usage_error(
			"--selinux-root and --keep-source-labels need --file-contexts");
	if (!a->oci_layers)
		return 0;
	if (!a->oci)
		return cli_usage_error("--oci-layers needs --oci");
	if (nsrc > 0 || a->archives.n || a->listings.n || a->has_pseudo)
		return cli_usage_error("--oci-layers makes each layer's image of that layer "
				       "alone: no SOURCE, --archive, --listing or --pseudo");
	if (!strcmp(image, "-") || a->append || a->offset_arg || a->verity || a->json)
		return cli_usage_error("--oci-layers makes several images: it excludes %s",
				       !strcmp(image, "-") ? "IMAGE '-'"
				       : a->append	   ? "--append"
				       : a->offset_arg	   ? "--offset"
				       : a->verity	   ? "--verity"
							   : "--json");
	if (a->no_xattrs)
		return cli_usage_error("--oci-layers keeps opaque directories as the xattr "
				       "trusted.overlay.opaque: it excludes --no-xattrs");
	return 0;
}

int cli_mkimage_oci_layers(struct args *a, const char *image, cli_mkimage_build_fn build, void *ctx)
{
	unsigned layer = 1, layers = 0;
	size_t len = strlen(image) + 16;
	char *name = malloc(len), n[16];
	int rc = 0;

	if (!name) {
		cli_error(NULL, "out of memory");
		return EXIT_FAIL;
	}
	/* The count is the first build's: the image it read says how many there are. */
	do {
		snprintf(name, len, "%s.%u", image, layer);
		snprintf(n, sizeof(n), "%u", layer);
		rc = cli_mkimage_set(a, "oci-layer", n);
		if (!rc)
			rc = build(a, name, ctx, layer == 1 ? &layers : NULL);
	} while (!rc && layer++ < layers);
	free(name);
	return rc;
}
