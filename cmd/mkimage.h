/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_CMD_MKIMAGE_H
#define SQK_CMD_MKIMAGE_H

/* mkimage's command line (mkimage_args.c), shared with the build (mkimage.c). */
#include <stddef.h>
#include <stdint.h>

#include <squashkit/squashkit.h>

#include "attropt.h"

/* A growing list of strings (listings, archives, earlier images). */
struct strv {
	char **v;
	size_t n, cap;
};

struct args {
	struct sqk_build_opts *bo; /* what the library builds with */
	const char *comp_name;
	int level, ncomp_opts;
	struct strv listings, archives;
	struct strv reuse;	  /* --reuse: earlier images */
	const char *reuse_offset; /* --reuse-offset N|auto, or NULL */
	const char *offset_arg;	  /* --offset as given */
	int archive_mode, force, quiet, stats, json, named_sources, full_paths;
	uint64_t offset;     /* --offset: bytes of the existing IMAGE kept in front */
	uint64_t block_size; /* -b as given */
	int append;	     /* --append: add to the existing IMAGE */
	int comp_given, block_given;
	int tail_ends, no_fragments, no_xattrs, no_pad, exclude_style, has_pseudo;
	/* Checked here for their usage lines, then handed to the library. */
	struct sqk_attropt attr;
	const char *oci;      /* --oci LAYOUT[:REF] */
	int oci_layers;	      /* --oci-layers */
	int platform;	      /* --platform */
	int whiteouts;	      /* --whiteouts */
	int labels;	      /* --file-contexts */
	int label_opts;	      /* --selinux-root, --keep-source-labels */
	int verity;	      /* --verity */
	unsigned verity_opts; /* the other --verity-* options given, a bit each, in mkimage_args.c's order */
};

/* The bits of verity_opts (the order of mkimage_args.c's options). */
enum {
	CLI_VERITY_SALT = 1,
	CLI_VERITY_HASH = 2,
	CLI_VERITY_NO_SUPERBLOCK = 4,
	CLI_VERITY_ROOT_HASH_FILE = 8,
	CLI_VERITY_SIGN = 16,
	CLI_VERITY_CERT = 32,
	CLI_VERITY_SIG = 64,
	CLI_VERITY_SIG_JSON = 128,
};
/* The --verity options against each other and IMAGE: 0, or the exit status after saying why. */
int cli_mkimage_verity_check(const struct args *a, const char *image);
/* Once the image is in place: the root hash on stdout, unless a file or --json takes it. */
int cli_mkimage_verity_print(const struct args *a, const struct sqk_build *b);
/* The --stats line of the tree. */
void cli_mkimage_verity_stats(const struct sqk_build *b);
struct sqk_json;
/* The "verity" member of --json. */
void cli_mkimage_verity_json(struct sqk_json *j, const struct sqk_build *b);

/*
 * --append's refusals of the command line, before the build opens IMAGE:
 * 0, or the exit status after saying why.
 */
int cli_mkimage_append_check(const struct args *a, const char *image);
/* Why the build could not start on IMAGE to append to it, in mkimage's words: the exit status. */
int cli_mkimage_append_error(const struct args *a, const char *image, int err);

/*
 * The images of --reuse opened before anything is written, for the lines
 * --reuse-offset gives and to refuse one that is no image (exit 1). 0, or
 * the exit status after the error line.
 */
int cli_mkimage_reuse_check(const struct args *a);
/* Once the build is created: a note for each image that cannot serve it. */
void cli_mkimage_reuse_refused(const struct args *a, const struct sqk_build *b);
/* Once the image is in place (and the bar gone): a note for unreadable blocks. */
void cli_mkimage_reuse_notes(const struct args *a, const struct sqk_build *b);
/* The --stats lines. */
void cli_mkimage_reuse_print(const struct args *a, const struct sqk_build *b);

/* A finished build's figure by name (0 when it has none). */
uint64_t cli_mkimage_stat(const struct sqk_build *b, const char *name);
/* The --stats summary as one JSON object. */
void cli_mkimage_stats_json(const struct args *a, const struct sqk_build *b, const char *image);

/*
 * The container and label options: which (0: --whiteouts, then --oci,
 * --platform, --oci-layers, --file-contexts, --selinux-root,
 * --keep-source-labels), its long name and value. 0, or the exit status.
 */
int cli_mkimage_input_opt(struct args *a, int which, const char *name, const char *arg);
/* Those options against the others and the operands: 0, or the exit status after why. */
int cli_mkimage_input_check(const struct args *a, int nsrc, const char *image);
/*
 * --oci-layers: build(a, name, ctx, &layers) for IMAGE.1, then as many
 * more as the image has layers; 0, or the first failure's exit status.
 */
typedef int (*cli_mkimage_build_fn)(struct args *a, const char *image, void *ctx, unsigned *layers);
int cli_mkimage_oci_layers(struct args *a, const char *image, cli_mkimage_build_fn build,
			   void *ctx);

/* 0 to go on, -1 after --help, or the exit status of a usage error. */
int cli_mkimage_parse_args(int argc, char **argv, struct args *a);
int cli_mkimage_parse_u32(const char *what, const char *s, uint32_t *out);
/* Set a build option the command line has checked already: 0, or the exit status. */
int cli_mkimage_set(struct args *a, const char *name, const char *value);
void cli_mkimage_args_free(struct args *a);

#endif
