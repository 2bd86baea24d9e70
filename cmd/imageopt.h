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

/* The counters of every cache, as text. */
void sqk_print_stats(FILE *out, struct sqk_image *img);
/* The same counters as one JSON object (a value: the caller places it). */
void sqk_print_stats_json(struct sqk_json *j, struct sqk_image *img);
/* Its members alone, into an object the caller has opened. */
void sqk_print_stats_members(struct sqk_json *j, struct sqk_image *img);
/* The cache counters as text, or as one JSON document. */
void sqk_print_stats_as(FILE *out, struct sqk_image *img, int json);

#endif
