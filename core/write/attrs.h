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
 * The attributes of --xattrs-add, given to each inode once: user. ones to
 * regular files and directories only (the kernel allows them nowhere
 * else), the others to every inode; an image appended to keeps its own.
 * *out is NULL when there is nothing to add.
 */
struct sqk_xattr_adder;
int sqk_attrs_adder_create(const struct sqk_mkfs_opts *o, struct sqk_xattrs *x,
			   struct sqk_xattr_adder **out);
void sqk_attrs_adder_destroy(struct sqk_xattr_adder *a);
/*
 * The adds onto n. An inode that has one of those names already is an
 * error (SQK_ERR_EXIST, *dup the name), as in mksquashfs:
 * --xattrs-exclude can drop the old one first.
 */
int sqk_attrs_adder_apply(struct sqk_xattr_adder *a, struct sqk_node *n, const char **dup);

#endif
