/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MKFS_INODES_H
#define SQK_MKFS_INODES_H

#include <stddef.h>
#include <stdint.h>

#include "meta_writer.h"
#include "mkfs_opts.h"
#include "table_writer.h"
#include "tree.h"
#include "xattr_writer.h"

/*
 * Write the inodes of order[0..count) to imw and the directories to dmw,
 * counting in st. Each inode and listing first passes the reader's rules
 * for an image of the counts lim gives; one that would not is
 * SQK_ERR_OVERFLOW, with its path in where and the rule in why.
 */
struct sqk_fmt_limits;
int sqk_mkfs_write_inodes(struct sqk_node *const *order, uint32_t count, struct sqk_xattrs *xattrs,
			  struct sqk_id_table *ids, const struct sqk_fmt_limits *lim,
			  struct sqk_meta_writer *imw, struct sqk_meta_writer *dmw,
			  struct sqk_mkfs_stats *st, char *where, size_t where_len, char *why,
			  size_t why_len);

#endif
