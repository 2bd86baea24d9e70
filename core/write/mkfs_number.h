/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MKFS_NUMBER_H
#define SQK_MKFS_NUMBER_H

/*
 * The first pass over the finished tree, in tree order (tree.h): inode
 * numbers, depth first, children before their directory, root last (a
 * hard link's node at its first name); and, as each inode is numbered,
 * what the options impose (owners, modes, times: attrs.h), its owner and
 * group in the id table, the --xattrs-add attributes, the codec's rules
 * (tree_check.h). On the way down: a file's path key for --reuse and its
 * --sort priority. Nothing is written yet: a refusal comes before any data.
 */
#include <stddef.h>
#include <stdint.h>

#include "mkfs_opts.h"
#include "table_writer.h"
#include "tree.h"
#include "util/spool.h"

struct sqk_xattrs;

struct sqk_number {
	const struct sqk_mkfs_opts *o;
	struct sqk_tree *t;
	struct sqk_xattrs *xattrs;
	struct sqk_id_table *ids;
	int reuse_keys; /* give files their path keys */
	/* What it found. */
	struct sqk_spool order; /* the nodes in inode order (sqk_nid each) */
	uint32_t count;
	uint32_t newest; /* the newest inode time, the root's when it has none */
	uint64_t total;	 /* bytes of the files whose data is still to be read */
	/* Where a refusal was and why. */
	char *where, *why;
	size_t where_len, why_len;
};

/* Number the tree (nb's inputs set, its spool initialised by the call). */
int sqk_mkfs_number(struct sqk_number *nb, struct sqk_spill *sp);
void sqk_mkfs_number_release(struct sqk_number *nb);

#endif
