/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_MKFS_INODES_H
#define SQK_MKFS_INODES_H

#include <stdint.h>

#include "meta_writer.h"
#include "mkfs_opts.h"
#include "table_writer.h"
#include "tree.h"
#include "xattr_writer.h"

/* Write the inodes of order[0..count) to imw and the directories to dmw, counting in st. */
int sqk_mkfs_write_inodes(struct sqk_node *const *order, uint32_t count, struct sqk_xattrs *xattrs,
			  struct sqk_id_table *ids, struct sqk_meta_writer *imw,
			  struct sqk_meta_writer *dmw, struct sqk_mkfs_stats *st);

#endif
