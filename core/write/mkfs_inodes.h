/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MKFS_INODES_H
#define SQK_MKFS_INODES_H

/*
 * The inode and directory tables of mkfs: the numbered tree walked in
 * order once more, each inode written when it was numbered (a node at its
 * first name, a directory when all below it is written), so the inode
 * table comes out in inode order. Each open directory's listing waits on
 * a stack that spills (util/spool.h) and is written, just before its
 * inode, when the directory closes: one directory of ten million entries
 * costs the stack's share of the budget, not its size. Each inode passes
 * the reader's rules for an image of the counts lim gives; one that would
 * not is SQK_ERR_OVERFLOW, with its path in where and the rule in why.
 */
#include <stddef.h>
#include <stdint.h>

#include "meta_writer.h"
#include "mkfs_opts.h"
#include "table_writer.h"
#include "tree.h"
#include "xattr_writer.h"

struct sqk_data_writer;
struct sqk_fmt_limits;
struct sqk_spill;

struct sqk_inodes {
	struct sqk_tree *t;
	struct sqk_data_writer *dw; /* the files' results */
	struct sqk_xattrs *xattrs;
	struct sqk_id_table *ids;
	const struct sqk_fmt_limits *lim;
	struct sqk_meta_writer *imw, *dmw;
	struct sqk_spool *export; /* each inode's reference in inode order, or NULL */
	uint32_t count;		  /* inodes numbered */
	struct sqk_mkfs_stats *st;
	char *where, *why;
	size_t where_len, why_len;
};

int sqk_mkfs_write_inodes(struct sqk_inodes *in, struct sqk_spill *sp);

#endif
