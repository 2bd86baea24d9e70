/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_API_EXTRACT_H
#define SQK_API_EXTRACT_H

/* An extraction's options (api_extract_opts.c), used by api_extract.c. */
#include "api_int.h"
#include "util/xattr_filter.h"

struct sqk_extract_opts {
	int force, keep_going, no_xattrs, no_owner;
	int signals; /* a directory extraction holds the signals (util/signals.h) */
	int fill, keep_made, pass_over; /* unsquashfs's ways with a destination */
	sqk_entry_fn entry;
	void *entry_ctx;
	sqk_failure_fn fail;
	void *fail_ctx;
	sqk_notice_fn notice;
	void *notice_ctx;
	unsigned threads;
	char format[8];
	struct sqk_xattr_filter filter;
	struct sqk_api_strv paths; /* the selection: no leading or trailing '/' */
};

struct sqk_fault;
struct sqk_walk;
struct sqk_sink;
struct sqk_extract;

/* A failure at an entry told by a fault, as data (its strings: f's, path's, or static). */
void sqk_api_failure_of(struct sqk_image *img, const struct sqk_fault *f,
			struct sqk_extract_failure *x, struct sqk_api_abs *path);
/*
 * Walk w (its image, selection and lost set) into inner (NULL: a listing)
 * through o's entry callback; x passes over what cannot be made.
 */
int sqk_api_entry_walk(struct sqk_walk *w, struct sqk_sink *inner, struct sqk_extract *x,
		       const struct sqk_extract_opts *o);

#endif
