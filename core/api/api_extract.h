/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_API_EXTRACT_H
#define SQK_API_EXTRACT_H

/* An extraction's options (api_extract_opts.c), used by api_extract.c. */
#include "api_int.h"
#include "util/xattr_filter.h"

struct sqk_extract_opts {
	int force, keep_going, no_xattrs, no_owner;
	int signals; /* a directory extraction holds the signals (util/signals.h) */
	sqk_failure_fn fail;
	void *fail_ctx;
	unsigned threads;
	char format[8];
	struct sqk_xattr_filter filter;
	struct sqk_api_strv paths; /* the selection: no leading or trailing '/' */
};

#endif
