/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_READER_H
#define SQK_READER_H

/*
 * The binary's own readers (mount, bench), which the public API does not
 * serve: the reader's every setting, and its cache counters. Only the
 * front ends of bincmd/ include this; cmd/ cannot.
 */
#include <stdint.h>
#include <stdio.h>

#include "cache/cache.h"
#include "imageopt.h"
#include "read/image.h"

/* --cache SIZES and --cache-policy NAME into o: 0, or -1 after printing the usage error. */
int cli_reader_cache_option(const char *arg, struct sqk_image_opts *o);
int cli_reader_policy_option(const char *arg, struct sqk_image_opts *o);

/*
 * Open path after o's offset (auto: where it finds the image), the window
 * over it that starts at the superblock; prints the error line and returns
 * NULL on failure.
 */
struct sqk_file *cli_open_image_file_at(const char *path, struct sqk_offset *o);
/*
 * Open path (after --offset, through --root-hash's tree) on the reader
 * with every setting of o. Prints the error line and returns NULL on
 * failure.
 */
struct sqk_image *cli_open_image_reader(const char *path, const struct sqk_image_opts *o);
/* The image file through the tree --root-hash names: 0, or -1 after the error line. */
int cli_verity_wrap(struct sqk_file **f, const char *path);

/* A code of a read of img, in words: an I/O error in those of the image file's errno. */
const char *cli_image_err_text(struct sqk_image *img, int err);

/* The counters cli_print_stats() wrote, read back (bench reads a mount daemon's). */
struct sqk_stats_read {
	uint64_t decompressions, vcsw, ivcsw;
	int present[SQK_CACHE_COUNT];
	struct sqk_cache_stats cache[SQK_CACHE_COUNT];
};

/* 0, or -1 when in holds no counters in that form. */
int cli_read_stats(FILE *in, struct sqk_stats_read *out);

#endif
