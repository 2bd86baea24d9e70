/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_ATTRS_H
#define SQK_ATTRS_H

/*
 * What options impose on the inodes once the tree is complete: owners and
 * modes (--uid, --gid, --file-mode, --dir-mode, and --root-uid, --root-gid
 * and --root-mode, which win for the root), and the attributes of
 * --xattrs-add.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_mkfs_opts;
struct sqk_node;
struct sqk_xattrs;

/* Owner and mode of one inode, as the options want them. */
void sqk_attrs_force(const struct sqk_mkfs_opts *o, struct sqk_node *n, int is_root);

/*
 * Give every inode of order[0..count) the attributes of --xattrs-add:
 * user. ones to regular files and directories only (the kernel allows
 * them nowhere else), the others to every inode. An inode that has one of
 * those names already is an error (SQK_ERR_EXIST, with where and why), as
 * in mksquashfs: --xattrs-exclude can drop the old one first.
 */
int sqk_attrs_add_xattrs(const struct sqk_mkfs_opts *o, struct sqk_xattrs *x,
			 struct sqk_node *const *order, uint32_t count, char *where,
			 size_t where_len, char *why, size_t why_len);

#endif
