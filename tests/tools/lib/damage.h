/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TOOLS_DAMAGE_H
#define SQK_TOOLS_DAMAGE_H

/*
 * The seeded damage of the corruption tests, shared by corrupt (one case
 * to a file) and damage-run (many cases in one process), so that a SEED
 * and a CASE name the same damage in both.
 *
 * Cases below flips flip one bit, the others cut the image short; where
 * comes from a generator seeded by seed and index, inside the bytes the
 * superblock says are used (bytes_used), so every case hits something a
 * reader looks at. Odd flips land in the tables (from the inode table on),
 * even ones anywhere: data blocks are most of an image, and a flip in a
 * compressed block mostly makes it fail to decompress, while the tables
 * hold the structure worth damaging.
 */
#include <stddef.h>
#include <stdint.h>

/* The image at path, whole, if it holds at least a superblock (malloc'd); or NULL. */
uint8_t *damage_load(const char *path, size_t *size);

/*
 * Damage buf (an image damage_load() took, size bytes) in place as case
 * index of seed; return its new length. what gets "flip POS bit BIT" or
 * "truncate POS".
 */
size_t damage_apply(uint8_t *buf, size_t size, uint64_t seed, uint64_t index, uint64_t flips,
		    char *what, size_t what_len);

#endif
