/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_OFFSET_H
#define SQK_OFFSET_H

/*
 * Images inside another file (an AppImage's ELF runtime, a SIF container,
 * a firmware blob): a window over the file that starts where the image
 * does, and a search for where that is.
 */
#include <stdint.h>

#include "file.h"

/* A read-only view of inner from base on; it owns inner. NULL without memory. */
struct sqk_file *sqk_file_window(struct sqk_file *inner, uint64_t base);
/*
 * A read-write view of inner from base on, for writing an image after
 * bytes kept in front of it; inner stays the caller's. NULL without memory.
 */
struct sqk_file *sqk_file_window_rw(struct sqk_file *inner, uint64_t base);

/*
 * Look through f for superblocks that pass every check against the bytes
 * after them: *count of them, the first two at found[0] and found[1].
 * 0, or the read error.
 */
int sqk_find_images(struct sqk_file *f, uint64_t found[2], unsigned *count);
/* The same for superblocks that start before byte limit only. */
int sqk_find_images_before(struct sqk_file *f, uint64_t limit, uint64_t found[2], unsigned *count);

#endif
