/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_API_BUILD_H
#define SQK_API_BUILD_H

/* A build's options (api_build_opts.c), used by the build (api_build.c). */
#include <stddef.h>

#include "api_int.h"
#include "compressors/compressor.h"
#include "write/mkfs_opts.h"

struct sqk_build_opts {
	struct sqk_mkfs_opts mo; /* without the codec's config, excludes and skips */
	const struct sqk_codec *codec;
	int level; /* -1: the codec's default */
	struct sqk_api_strv comp_opts, excludes;
	int force;
};

#endif
