/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_BLOCKS_H
#define SQK_VERITY_BLOCKS_H

/*
 * Hashing a run of a file's blocks on worker threads: the data blocks of
 * an image to add a tree to, the blocks a build could not hash as they
 * were written, every block a check compares with its tree.
 */
#include <stdint.h>

#include "verity_hash.h"

struct sqk_file;

struct sqk_verity_run {
	const struct sqk_verity_hasher *h;
	struct sqk_file *f;
	uint32_t bs;	     /* block size */
	uint64_t first;	     /* the run's first block in f */
	uint64_t n;	     /* blocks in the run */
	const uint8_t *need; /* NULL, or n flags: hash only blocks whose flag is set */
	uint8_t *out;	     /* block first + i's digest at out + i * slot */
	uint32_t slot;
	unsigned threads; /* workers (1: this thread alone) */
	uint8_t *failed;  /* NULL, or n flags: set for each block that could not be read */
	/* Set on failure: the lowest block of the run that could not be read. */
	uint64_t failed_block;
};

/*
 * Hash the run: 0, or the file's error (SQK_ERR_TRUNCATED for blocks past
 * its end, SQK_ERR_IO with the file's errno) or SQK_ERR_NOMEM, with
 * failed_block set. The digests of every block read are in out either way.
 */
int sqk_verity_hash_run(struct sqk_verity_run *r);

#endif
