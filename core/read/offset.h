/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_OFFSET_H
#define SQK_OFFSET_H

/*
 * Images inside another file (an AppImage's ELF runtime, a SIF container,
 * a firmware blob): the search for where one starts (the window over the
 * file from there is util/file.h's sqk_file_window).
 */
#include <stddef.h>
#include <stdint.h>

#include "util/file.h"

/*
 * Look through f for superblocks that pass every check against the bytes
 * after them: *count of them, the first two at found[0] and found[1].
 * 0, or the read error.
 */
int sqk_find_images(struct sqk_file *f, uint64_t found[2], unsigned *count);
/*
 * The same for superblocks that start before byte limit only, the first
 * max of them in found.
 */
int sqk_find_images_before(struct sqk_file *f, uint64_t limit, uint64_t *found, size_t max,
			   unsigned *count);

#endif
