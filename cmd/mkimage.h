/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_CMD_MKIMAGE_H
#define SQK_CMD_MKIMAGE_H

/* mkimage's command line (mkimage_args.c), shared with the build (mkimage.c). */
#include <stddef.h>
#include <stdint.h>

#include "attropt.h"
#include "format/format.h"
#include "mkfs/mkfs.h"
#include "source/pseudo.h"

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
	struct strv reuse;	  /* --reuse: earlier images */
	const char *reuse_offset; /* --reuse-offset N|auto, or NULL */
	int archive_mode, force, quiet, stats, json, named_sources, full_paths;
	uint64_t offset; /* --offset: bytes of the existing IMAGE kept in front */
	int append;	 /* --append: add to the existing IMAGE */
	int comp_given, block_given;
	struct sqk_attropt attr;
	/* Read whole while the options are, before anything is written. */
	struct sqk_pseudo *pseudo;
};

/*
 * Open IMAGE for --append (core/mkfs/mkfs_append.c) and take its compressor
 * settings and block size into a->o (options that contradict them are
 * usage errors). 0, or the exit status after saying why.
 */
int cli_mkimage_append_open(struct args *a, const char *image, struct sqk_mkfs_append **t);

/* One image of --reuse (mkimage_reuse.c). */
struct sqk_reuse_given {
	const char *path;
	struct sqk_image *img;		  /* NULL when it cannot serve */
	char why[128];			  /* why not, for a note */
	const struct sqk_reuse_stats *st; /* what it gave, once built */
};

struct sqk_reuse_set {
	struct sqk_reuse_given *v;
	size_t n;
	struct sqk_image **used; /* the images that can serve, for mkfs */
};

/*
 * Open the images of --reuse for a build with a->o's compressor and block
 * size; a note says why one cannot serve. Hands those that can to a->o.
 * 0, or the exit status after the error line (one that is no image: 1).
 */
int cli_mkimage_reuse_open(struct args *a, struct sqk_reuse_set *r);
/* The build is done: what each image gave (valid until m is destroyed). */
void cli_mkimage_reuse_done(struct sqk_reuse_set *r, const struct sqk_mkfs *m);
/* Once the image is in place (and the bar gone): a note for unreadable blocks. */
void cli_mkimage_reuse_notes(const struct sqk_reuse_set *r);
/* The --stats lines. */
void cli_mkimage_reuse_print(const struct sqk_reuse_set *r, const struct sqk_mkfs_stats *st);
void cli_mkimage_reuse_close(struct sqk_reuse_set *r);

/* 0 to go on, -1 after --help, or the exit status of a usage error. */
int cli_mkimage_parse_args(int argc, char **argv, struct args *a);
int cli_mkimage_parse_u32(const char *what, const char *s, uint32_t *out);
void cli_mkimage_args_free(struct args *a);

#endif
