/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_NAME_H
#define SQK_FMT_NAME_H

/*
 * Names in a directory: which are valid and in which order they stand.
 * The reader, fsck and the writer's tree all use these, so an image the
 * writer makes is one the reader takes.
 */
#include <stddef.h>

#include "fmt_check.h"

/* Order of names in a listing: bytewise, shorter first on a common prefix. */
int sqk_name_cmp(const char *a, size_t alen, const char *b, size_t blen);

/*
 * A name is 1..256 bytes, not "." or "..", without '/' or NUL. Returns 0,
 * or SQK_ERR_BADNAME after reporting the field "name" through r.
 */
int sqk_name_check(const char *name, size_t len, struct sqk_fmt_report *r);

/*
 * Each name comes strictly after the one before it (so none is listed
 * twice). Returns 0, or SQK_ERR_SEQUENCE after reporting "name".
 */
int sqk_name_check_order(const char *prev, size_t prev_len, const char *name, size_t len,
			 struct sqk_fmt_report *r);

#endif
