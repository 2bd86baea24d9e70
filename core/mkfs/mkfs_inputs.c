// SPDX-License-Identifier: BSD-2-Clause
/*
 * The inputs of container pipelines: layers (archives with whiteouts, an
 * OCI image's) into the tree, and SELinux labels on the finished tree.
 */
#include <errno.h>
#include <stdio.h>

#include "mkfs.h"
#include "mkfs_int.h"
#include "util/error.h"
#include "write/label.h"

int sqk_mkfs_add_layers(struct sqk_mkfs *m, const char *const *paths, size_t n)
{
	return sqk_src_layer_files(&m->src, paths, n);
}

int sqk_mkfs_add_oci(struct sqk_mkfs *m, const char *spec, const char *platform, unsigned layer,
		     unsigned *nlayers)
{
	return sqk_src_oci(&m->src, spec, platform, layer, nlayers);
}

int sqk_mkfs_label(struct sqk_mkfs *m, struct sqk_labels *l, const char *root, int keep_source)
{
	if (!m->xattrs || !m->src.xattrs) {
		errno = 0;
		sqk_src_fail(&m->src, "", "labels are xattrs, and xattrs are left out");
		return SQK_ERR_ARG;
	}
	errno = 0;
	return sqk_labels_apply(l, m->tree, m->xattrs, root, keep_source, m->src.err_path,
				sizeof(m->src.err_path), m->src.err_msg, sizeof(m->src.err_msg));
}
