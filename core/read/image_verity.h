/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_IMAGE_VERITY_H
#define SQK_IMAGE_VERITY_H

/*
 * An image file and its dm-verity hash area (core/verity): where the area
 * is when it follows the image (at its padded end, by the superblock's
 * bytes_used), and the file that reads the image through the tree.
 */
#include <stdint.h>

#include "verity/verity_area.h"

struct sqk_file;

/*
 * The area w says for the image in f (from its start; f stays the
 * caller's): 0, or SQK_ERR_MAGIC when f holds no SquashFS superblock where
 * the area must be found after it, or sqk_verity_area_open's codes; *why
 * says what (NULL: the code's words, or errno's for SQK_ERR_IO).
 */
int sqk_image_verity_area(struct sqk_file *f, const struct sqk_verity_where *w,
			  struct sqk_verity_area **out, const char **why);
/* The image in f (taken) read through that area's tree: every read checked. */
int sqk_image_verity_file(struct sqk_file *f, const struct sqk_verity_where *w,
			  struct sqk_file **out, const char **why);
/*
 * The parameters in the verity superblock at the padded end of the image
 * in f, if there is one: 0; SQK_ERR_NOENT when there is none there.
 */
int sqk_image_verity_find(struct sqk_file *f, struct sqk_verity_params *p);

#endif
