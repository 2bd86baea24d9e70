/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_ATTROPT_H
#define SQK_ATTROPT_H

/*
 * The options of mkimage and unimage that set what the library does with
 * attributes: xattr filters and additions, forced modes and root owner,
 * and the sort file. Their values are checked here, as they are given, so
 * that a bad one is a usage error before anything is written.
 */
#include <stdint.h>

#include "util/mode.h"
#include "util/xattr_filter.h"
#include "write/sort.h"

struct sqk_mkfs_opts;

/* Codes for getopt_long, clear of the ones each command numbers from 256. */
enum {
	OPT_XATTRS_INCLUDE = 0x1000,
	OPT_XATTRS_EXCLUDE,
	OPT_XATTRS_ADD,
	OPT_ROOT_MODE,
	OPT_ROOT_UID,
	OPT_ROOT_GID,
	OPT_FILE_MODE,
	OPT_DIR_MODE,
	OPT_SORT,
};

struct sqk_attropt {
	struct sqk_xattr_filter filter;
	struct sqk_xattr_add *adds;
	size_t nadds;
	struct sqk_mode file_mode, dir_mode, root_mode;
	int has_file_mode, has_dir_mode, has_root_mode;
	int set_root_uid, set_root_gid;
	uint32_t root_uid, root_gid;
	struct sqk_sort *sort;
};

/* Take one of the options above: 0, or the exit code for a bad value. */
int cli_attropt_take(struct sqk_attropt *a, int opt, const char *arg);
/* The filter, or NULL when no pattern was given. */
const struct sqk_xattr_filter *cli_attropt_filter(const struct sqk_attropt *a);
void cli_attropt_release(struct sqk_attropt *a);
/* What does not stop a build (a sort line naming nothing), said over the bar ctx. */
void cli_attropt_warn(void *ctx, const char *where, const char *what);

#endif
