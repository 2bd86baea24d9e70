/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_IMAGEOPT_H
#define SQK_IMAGEOPT_H

/* Options that open an image, shared by unimage, fsck, bench and the inspectors. */
#include <stdio.h>

#include "image.h"
#include "json.h"

/* Parse "meta=N,frag=N,data=N,comp=N" (any subset) into o; 0 or -1. */
int sqk_parse_cache_opt(const char *s, struct sqk_image_opts *o);
/* --cache SIZES into o: 0, or -1 after printing the usage error. */
int sqk_cache_option(const char *arg, struct sqk_image_opts *o);
/* --cache-policy NAME into o: 0, or -1 after printing the usage error. */
int sqk_policy_option(const char *arg, struct sqk_image_opts *o);

/*
 * --offset N|auto, for every command that reads an image: where the image
 * starts in the file. 0, or -1 after printing the usage error line.
 */
int sqk_offset_option(const char *arg);
/* Do not say on stderr where --offset auto found the image (-q). */
void sqk_offset_quiet(int quiet);

/*
 * Open path and, after --offset, the window over it that starts at the
 * superblock; prints the error line and returns NULL on failure.
 */
struct sqk_file *sqk_open_image_file(const char *path);

/* Open path as an image; prints the error line and returns NULL on failure. */
struct sqk_image *sqk_open_image(const char *path, const struct sqk_image_opts *o);

struct sqk_fault;
/*
 * The one line for a failure f while reading IMAGE (img, NULL if not open)
 * into out: when it was the output's, "OUT/path: errno text" (out is the
 * destination directory, the path inside it joined; or the archive, "-"
 * said as "stdout"); else the image's, "IMAGE: /path: what", an I/O
 * error in the words of the image file's errno.
 */
void sqk_report_fault(const char *image, struct sqk_image *img, const char *out, int out_is_dir,
		      const struct sqk_fault *f);
/* A code of a read of img, in words: an I/O error in those of the image file's errno. */
const char *sqk_image_err_text(struct sqk_image *img, int err);
/* What went wrong in f, in words (the image file's errno for its I/O errors). */
const char *sqk_fault_text(const struct sqk_fault *f, struct sqk_image *img);

/* The counters of every cache, as text. */
void sqk_print_stats(FILE *out, struct sqk_image *img);
/* The same counters as one JSON object (a value: the caller places it). */
void sqk_print_stats_json(struct sqk_json *j, struct sqk_image *img);
/* The cache counters as text, or as one JSON document. */
void sqk_print_stats_as(FILE *out, struct sqk_image *img, int json);

#endif
