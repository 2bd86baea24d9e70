/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_CHECK_H
#define SQK_VERITY_CHECK_H

/*
 * Checking a whole image against its hash tree, as `veritysetup verify`
 * does: every data block against its digest, every hash block against
 * the level above and the root, and the bytes of hash blocks no digest
 * uses, which must be zero. Data blocks are hashed on worker threads.
 *
 * A block is reported only where the blocks above it are sound: a hash
 * block that does not match stands for every block under it, which
 * cannot then be checked (nor read, in the kernel).
 */
#include <stdint.h>

#include "verity_area.h"

struct sqk_file;

typedef void (*sqk_verity_bad_fn)(void *ctx, const struct sqk_verity_bad *b);

/*
 * Check image (its data blocks from 0) against a, with threads workers;
 * each bad block to fn: hash blocks from the top down, then data blocks
 * in order. 0 when the check was made, whatever it found (*nbad: how
 * many); SQK_ERR_IO (the hash file's errno) or SQK_ERR_NOMEM when it
 * could not be.
 */
int sqk_verity_check(const struct sqk_verity_area *a, struct sqk_file *image, unsigned threads,
		     sqk_verity_bad_fn fn, void *ctx, uint64_t *nbad);

#endif
