/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_IMAGEOPT_H
#define SQK_IMAGEOPT_H

/* Options that open an image, shared by unimage, fsck, bench and the inspectors. */
#include <stdint.h>
#include <stdio.h>

#include <squashkit/squashkit.h>

#include "fe.h"

/*
 * How a front end opens its images: what its options asked, set into the
 * public open options at each open. The values of --cache and
 * --cache-policy are the library's to check (sqk_open_opts_set).
 */
struct cli_image_opts {
	/*
	 * Workers reading at once (0: one reader, the kernel's cache sizes):
	 * a decompressor each and one more, and, without --cache, enough
	 * cache entries that workers never queue for one.
	 */
	unsigned threads;
	/*
	 * Extraction's too (unimage, squashkit unsquashfs): fragment blocks
	 * for 4 MiB, so that tails of duplicate files, and of files packed a
	 * little out of the order of the tree, need no second decompression.
	 */
	int extract;
	const char *cache;  /* --cache SIZES, as given */
	const char *policy; /* --cache-policy NAME, as given */
	uint64_t memory;    /* --memory SIZE (0: the library's default) */
	const char *tmpdir; /* --tmpdir DIR (NULL: $TMPDIR, else /tmp) */
};

/* --cache SIZES into o: 0, or -1 after printing the usage error (the library's words). */
int cli_cache_option(const char *arg, struct cli_image_opts *o);
/* --cache-policy NAME into o: 0, or -1 after printing the usage error. */
int cli_policy_option(const char *arg, struct cli_image_opts *o);

/*
 * --memory SIZE and --tmpdir DIR into o, for the commands that go over a
 * whole image (unimage, ls, fsck, diff): 0, or -1 after printing the
 * usage error. The directory must be one.
 */
int cli_memory_option(const char *arg, struct cli_image_opts *o);
int cli_tmpdir_option(const char *arg, struct cli_image_opts *o);
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
 * The error line for an image at path that would not open with err. A bad
 * magic without --offset, where an image starts further in (an AppImage, a
 * firmware blob), says where and that --offset auto (or the offset's own
 * option) finds it.
 */
void cli_image_error(const char *path, int err);
/* The same hint alone, when path is no image at byte 0 (fsck, which reads any file). */
void cli_image_hint(const char *path);

/*
 * Open path as an image, through the public API, as o asks (NULL: one
 * reader, the kernel's cache sizes). Prints the error line and returns
 * NULL on failure.
 */
struct sqk_image *cli_open_image(const char *path, const struct cli_image_opts *o);
/* The same with an offset of its own (o learns where auto found the image). */
struct sqk_image *cli_open_image_at(const char *path, struct sqk_offset *o,
				    const struct cli_image_opts *io);
/* The --offset setting of the command running. */
struct sqk_offset *cli_offset_setting(void);
/*
 * Where --offset auto finds the one image in path: o is then at it, no
 * longer auto. 0, or -1 after saying why.
 */
int cli_offset_find(const char *path, struct sqk_offset *o);

/* The caches by enum sqk_cache_kind, as --stats names them. */
#define CLI_CACHES 4
extern const char *const cli_cache_keys[CLI_CACHES];
/* The counters of every cache, as text. */
void cli_print_stats(FILE *out, struct sqk_image *img);
/* The same counters as one JSON object (a value: the caller places it). */
void cli_print_stats_json(struct sqk_json *j, struct sqk_image *img);
/* Its members alone, into an object the caller has opened. */
void cli_print_stats_members(struct sqk_json *j, struct sqk_image *img);
/* The cache counters as text, or as one JSON document. */
void cli_print_stats_as(FILE *out, struct sqk_image *img, int json);

/* Where the image starts in the file after --offset (auto: once it has been found). */
uint64_t cli_offset_value(void);

/*
 * The default case of a reading command's getopt loop: a remote option
 * (remoteopt.h, numbered after the verity ones) or a verity option
 * (verityopt.h, from verity_base). 0 when taken, else the usage status
 * (the bad value or option already said).
 */
int cli_image_option_default(int c, int verity_base, const char *arg);

#endif
