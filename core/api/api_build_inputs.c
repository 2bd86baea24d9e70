// SPDX-License-Identifier: BSD-2-Clause
/*
 * The build options of container pipelines: an OCI image as the first
 * source ("oci", "platform", "oci-layer"), archives applied as layers
 * ("whiteouts"), and SELinux labels ("file-contexts", "selinux-root",
 * "keep-source-labels"). The driver does the work (mkfs_inputs.c); this
 * holds the options and says when each runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api_build.h"
#include "mkfs/mkfs.h"
#include "source/oci_manifest.h"
#include "util/parse.h"
#include "write/label.h"

/* file_contexts opened as the build will open it: its errors said where the option stands. */
static int open_labels(const char *file, struct sqk_labels **l)
{
	char why[512];
	int err = sqk_labels_open(file, l, why, sizeof(why));

	if (err == SQK_ERR_CORRUPT)
		return sqk_api_fail(err, 0, file, "%s", why);
	if (err == SQK_ERR_IO)
		return sqk_api_fail(err, errno, file, NULL);
	return err ? sqk_api_fail(err, 0, file, NULL) : 0;
}

int sqk_api_inputs_set(struct sqk_build_opts *o, const char *name, const char *value)
{
	static const char *const switches[] = {"whiteouts", "keep-source-labels"};
	static const char *const valued[] = {"oci", "platform", "oci-layer", "file-contexts",
					     "selinux-root"};
	struct sqk_api_inputs *in = &o->in;
	struct sqk_labels *l = NULL;
	size_t i;
	uint64_t n;
	int err;

	for (i = 0; i < sizeof(switches) / sizeof(switches[0]); i++)
		if (!strcmp(name, switches[i])) {
			if (value)
				return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "%s takes no value",
						    name);
			*(i ? &in->keep_labels : &in->whiteouts) = 1;
			return 0;
		}
	for (i = 0; i < sizeof(valued) / sizeof(valued[0]); i++)
		if (!strcmp(name, valued[i]))
			break;
	if (i == sizeof(valued) / sizeof(valued[0]))
		return 1;
	if (!value || !*value)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "%s needs a value", name);
	switch (i) {
	case 0:
		return sqk_api_set_string(&in->oci, value);
	case 1:
		if (!sqk_oci_platform_valid(value))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "invalid platform '%s' (os/arch[/variant], as "
					    "linux/arm64 or linux/arm/v7)",
					    value);
		return sqk_api_set_string(&in->platform, value);
	case 2:
		if (sqk_parse_uint(value, UINT32_MAX, &n) || !n)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "invalid oci-layer '%s' (a layer's number, from 1)",
					    value);
		in->oci_layer = (unsigned)n;
		return 0;
	case 3:
		err = open_labels(value, &l);
		sqk_labels_close(l);
		return err ? err : sqk_api_set_string(&in->file_contexts, value);
	default:
		if (value[0] != '/')
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "invalid selinux-root '%s' (an absolute path)", value);
		return sqk_api_set_string(&in->selinux_root, value);
	}
}

void sqk_api_inputs_free(struct sqk_api_inputs *in)
{
	free(in->oci);
	free(in->platform);
	free(in->file_contexts);
	free(in->selinux_root);
	memset(in, 0, sizeof(*in));
}

int sqk_api_inputs_refuse(const struct sqk_build_opts *o, const char *path)
{
	const struct sqk_api_inputs *in = &o->in;
	const char *why = NULL;

	if ((in->oci_layer || in->platform) && !in->oci)
		why = in->platform ? "platform needs oci" : "oci-layer needs oci";
	else if (o->append && (in->oci || in->whiteouts))
		why = in->oci ? "append and oci exclude each other"
			      : "append and whiteouts exclude each other";
	else if (in->oci_layer && o->mo.no_xattrs)
		why = "oci-layer keeps opaque directories as xattrs: no-xattrs excludes it";
	else if (in->file_contexts && o->mo.no_xattrs)
		why = "file-contexts and no-xattrs exclude each other";
	else if ((in->selinux_root || in->keep_labels) && !in->file_contexts)
		why = in->selinux_root ? "selinux-root needs file-contexts"
				       : "keep-source-labels needs file-contexts";
	return why ? sqk_api_fail(SQK_ERR_ARG, 0, path, "%s", why) : 0;
}

int sqk_api_inputs_take(struct sqk_build *b, const struct sqk_build_opts *o)
{
	const struct sqk_api_inputs *in = &o->in;

	b->in.oci_layer = in->oci_layer;
	b->in.whiteouts = in->whiteouts;
	b->in.keep_labels = in->keep_labels;
	if ((in->oci && sqk_api_set_string(&b->in.oci, in->oci)) ||
	    (in->platform && sqk_api_set_string(&b->in.platform, in->platform)) ||
	    (in->selinux_root && sqk_api_set_string(&b->in.selinux_root, in->selinux_root)))
		return SQK_ERR_NOMEM;
	return in->file_contexts ? open_labels(in->file_contexts, &b->labels) : 0;
}

int sqk_api_inputs_settle(struct sqk_build *b)
{
	int err = 0;

	if (b->in.oci && !b->oci_done) {
		b->oci_done = 1;
		err = sqk_mkfs_add_oci(b->m, b->in.oci, b->in.platform, b->in.oci_layer,
				       &b->oci_layers);
	}
	if (!err && b->layers.n)
		err = sqk_mkfs_add_layers(b->m, (const char *const *)b->layers.v, b->layers.n);
	sqk_api_strv_free(&b->layers);
	return err;
}

int sqk_api_inputs_queue(struct sqk_build *b, const char *path)
{
	if (!b->in.whiteouts)
		return 1;
	return sqk_api_strv_add(&b->layers, path) ? SQK_ERR_NOMEM : 0;
}

int sqk_api_inputs_label(struct sqk_build *b)
{
	if (!b->labels)
		return 0;
	return sqk_mkfs_label(b->m, b->labels, b->in.selinux_root, b->in.keep_labels);
}

void sqk_api_inputs_release(struct sqk_build *b)
{
	sqk_api_inputs_free(&b->in);
	sqk_api_strv_free(&b->layers);
	sqk_labels_close(b->labels);
	b->labels = NULL;
}
