/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_IMAGEOPT_H
#define SQK_IMAGEOPT_H

/* Options that open an image, shared by unimage, fsck, bench and the inspectors. */
#include <stdint.h>
#include <stdio.h>

#include "read/image.h"
#include "util/json.h"

/*
 * The cache sizes extraction wants (unimage, squashkit unsquashfs) with
 * threads workers: enough entries that workers never queue for one, and
 * fragment blocks for 4 MiB: tails of duplicate files, and of files packed
 * a little out of the order of the tree, then need no second decompression.
 */
void cli_extract_cache_sizes(struct sqk_image_opts *o, unsigned threads);

/* Parse "meta=N,frag=N,data=N,comp=N" (any subset) into o; 0 or -1. */
int cli_parse_cache_opt(const char *s, struct sqk_image_opts *o);
/* --cache SIZES into o: 0, or -1 after printing the usage error. */
int cli_cache_option(const char *arg, struct sqk_image_opts *o);
/* --cache-policy NAME into o: 0, or -1 after printing the usage error. */
int cli_policy_option(const char *arg, struct sqk_image_opts *o);

/*
 * --memory SIZE and --tmpdir DIR into o, for the commands that go over a
 * whole image (unimage, ls, fsck, diff): 0, or -1 after printing the
 * usage error. The directory must be one.
 */
int cli_memory_option(const char *arg, struct sqk_image_opts *o);
int cli_tmpdir_option(const char *arg, struct sqk_image_opts *o);
/*
 * --offset N|auto, for every command that reads an image: where the image
 * starts in the file. 0, or -1 after printing the usage error line.
 */
int cli_offset_option(const char *arg);
/* Where an image starts in its file: N bytes in, or wherever auto finds it. */
struct sqk_offset {
	uint64_t at;
	int is_auto;
	int given;	    /* set by an --offset option: no hint of images further in */
	const char *option; /* its name in messages ("--reuse-offset"); NULL: --offset */
};
/* An --offset value into o: 0, or -1 after printing the usage error line. */
int cli_offset_parse(const char *arg, struct sqk_offset *o);

/* Do not say on stderr where --offset auto found the image (-q). */
void cli_offset_quiet(int quiet);

/*
 * Open path and, after --offset, the window over it that starts at the
 * superblock; prints the error line and returns NULL on failure.
 */
struct sqk_file *cli_open_image_file(const char *path);

/*
 * The error line for an image at path that would not open with err. A bad
 * magic without --offset, where an image starts further in (an AppImage, a
 * firmware blob), says where and that --offset auto (or the offset's own
 * option) finds it.
 */
void cli_image_error(const char *path, int err);
/* The same hint alone, when path is no image at byte 0 (fsck, which reads any file). */
void cli_image_hint(const char *path);

/*
 * Open path as an image, through the public API: of o (NULL: the reader's
 * defaults, the kernel's cache sizes) it takes what the API sets: the
 * cache entries and fragment bytes, the policy, the decompressors, strict.
 * Prints the error line and returns NULL on failure.
 */
struct sqk_image *cli_open_image(const char *path, const struct sqk_image_opts *o);
/*
 * The same with every setting of o, those the public API has not too (the
 * cache lookup bench compares, the block cache limit of mount).
 */
struct sqk_image *cli_open_image_reader(const char *path, const struct sqk_image_opts *o);
/* The same two with an offset of their own (o learns where auto found the image). */
struct sqk_file *cli_open_image_file_at(const char *path, struct sqk_offset *o);
struct sqk_image *cli_open_image_at(const char *path, struct sqk_offset *o,
				    const struct sqk_image_opts *io);

struct sqk_fault;
/* A code of a read of img, in words: an I/O error in those of the image file's errno. */
const char *cli_image_err_text(struct sqk_image *img, int err);
/* What went wrong in f, in words (the image file's errno for its I/O errors). */
const char *cli_fault_text(const struct sqk_fault *f, struct sqk_image *img);

/* The counters of every cache, as text. */
void cli_print_stats(FILE *out, struct sqk_image *img);
/* The same counters as one JSON object (a value: the caller places it). */
void cli_print_stats_json(struct sqk_json *j, struct sqk_image *img);
/* Its members alone, into an object the caller has opened. */
void cli_print_stats_members(struct sqk_json *j, struct sqk_image *img);
/* The cache counters as text, or as one JSON document. */
void cli_print_stats_as(FILE *out, struct sqk_image *img, int json);

/* The counters cli_print_stats() wrote, read back (bench reads a mount daemon's). */
struct sqk_stats_read {
	uint64_t decompressions, vcsw, ivcsw;
	int present[SQK_CACHE_COUNT];
	struct sqk_cache_stats cache[SQK_CACHE_COUNT];
};

/* 0, or -1 when in holds no counters in that form. */
int cli_read_stats(FILE *in, struct sqk_stats_read *out);

/* Where the image starts in the file after --offset (auto: once it has been found). */
uint64_t cli_offset_value(void);

#endif
