/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_CMD_MKIMAGE_H
#define SQK_CMD_MKIMAGE_H

/* mkimage's command line (mkimage_args.c), shared with the build (mkimage.c). */
#include <stddef.h>
#include <stdint.h>

#include "attropt.h"
#include "mkfs.h"
#include "pseudo.h"

/* A growing list of strings (patterns, listings, archives, comp options). */
struct strv {
	char **v;
	size_t n, cap;
};

struct args {
	struct sqk_mkfs_opts o;
	const char *comp_name;
	int level;
	struct strv comp_opts, excludes, listings, archives;
	int archive_mode, force, quiet, stats, json, named_sources;
	uint64_t offset; /* --offset: bytes of the existing IMAGE kept in front */
	struct sqk_attropt attr;
	/* Read whole while the options are, before anything is written. */
	struct sqk_pseudo *pseudo;
};

/* 0 to go on, -1 after --help, or the exit status of a usage error. */
int sqk_mkimage_parse_args(int argc, char **argv, struct args *a);
int sqk_mkimage_parse_u32(const char *what, const char *s, uint32_t *out);
void sqk_mkimage_args_free(struct args *a);

#endif
