/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TREE_CHECK_H
#define SQK_TREE_CHECK_H

/*
 * The codec's rules on what the sources put in the tree, run before a byte
 * of the image is written: a symlink's target (1..4096 bytes), a device
 * number the encoding holds, a file no larger than an inode can list, and
 * every extended attribute (names of 1..255 bytes, values of at most
 * 64 KiB). A source that hands in something the format cannot hold gets a
 * refusal naming the path and the rule, never an image the reader refuses.
 * Names are checked as they are added (sqk_tree_add), owners as the id
 * table grows.
 */
#include <stddef.h>
#include <stdint.h>

#include "tree.h"

/*
 * Check node n (once, when numbered). 0, or SQK_ERR_OVERFLOW with the
 * broken rule in why ("symlink target_len 5000 ...: the format cannot hold
 * it"); the caller says where.
 */
int sqk_tree_check_node(const struct sqk_node *n, uint32_t block_size, char *why, size_t why_len);

#endif
