/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_TREE_H
#define SQK_VERITY_TREE_H

/*
 * A tree from its data blocks' digests: the levels above them, the root,
 * and the hash area written out (superblock, then the levels top first).
 */
#include <stddef.h>
#include <stdint.h>

#include "verity_fmt.h"
#include "verity_hash.h"

struct sqk_file;

/*
 * The bytes a buffer of digests for data_blocks blocks takes when it is
 * level 0 as its hash blocks hold it: whole hash blocks.
 */
uint64_t sqk_verity_leaves_bytes(const struct sqk_verity_geo *g);

/*
 * The root of a tree whose level 0 is leaves (sqk_verity_leaves_bytes(),
 * the digest of data block i at i * slot, zero after the last), and, when
 * out is not NULL, its hash area written there at p->hash_offset (the
 * superblock first when p has one). 0, or the file's error, SQK_ERR_NOMEM.
 */
int sqk_verity_tree_write(const struct sqk_verity_params *p, const struct sqk_verity_geo *g,
			  const struct sqk_verity_hasher *h, const uint8_t *leaves,
			  struct sqk_file *out, uint8_t *root);

/* The superblock of p, and the other way: p from a superblock found at hash_offset. */
void sqk_verity_params_sb(const struct sqk_verity_params *p, struct sqk_verity_sb *sb);
void sqk_verity_sb_params(const struct sqk_verity_sb *sb, uint64_t hash_offset,
			  struct sqk_verity_params *p);

#endif
