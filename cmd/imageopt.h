/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_IMAGEOPT_H
#define SQK_IMAGEOPT_H

/* Options that open an image, shared by unimage, fsck, bench and the inspectors. */
#include <stdio.h>

#include "image.h"

/* Parse "meta=N,frag=N,data=N,comp=N" (any subset) into o; 0 or -1. */
int sqk_parse_cache_opt(const char *s, struct sqk_image_opts *o);

/* Open path as an image; prints the error line and returns NULL on failure. */
struct sqk_image *sqk_open_image(const char *path, const struct sqk_image_opts *o);

/* The counters of every cache, as text or as one JSON object. */
void sqk_print_stats(FILE *out, struct sqk_image *img, int json);

/* Print s with unsafe bytes escaped (for one-line messages and listings). */
void sqk_print_escaped(FILE *out, const char *s);
/* Print s as a JSON string, quotes included. */
void sqk_print_json_string(FILE *out, const char *s, size_t len);

#endif
