/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FS_INT_H
#define SQK_FS_INT_H

/* Shared by the parts of the file-system object (fs*.c). */
#include <pthread.h>
#include <stdint.h>

#include "format/format.h"
#include "fs.h"
#include "read/inode.h"

/*
 * The node table is split in shards, each behind its own lock, so that
 * lookups from many threads rarely meet on one lock. A shard is an array
 * of slots (open addressing): a node costs its slot, no allocation of its
 * own, and the array shrinks as forgets empty it, so that memory goes back
 * as the kernel lets nodes go. A node keeps its inode's reference, not the
 * inode: its attributes are read again when asked for (the kernel keeps
 * them meanwhile).
 */
#define FS_SHARDS 64

struct fs_extra;

struct fs_slot {
	uint64_t id; /* 0: empty (node ids start at 1) */
	uint64_t ref;
	uint64_t nlookup;
	uint32_t xattr_size;   /* bytes of its xattrs, which st_blocks counts */
	struct fs_extra *more; /* a file's blocks or a directory's listing, once read */
};

struct fs_shard {
	pthread_mutex_t lock;
	struct fs_slot *slot;
	size_t cap, count; /* cap: a power of two */
};

struct sqk_fs {
	struct sqk_image *img;
	const struct sqk_super *sb;
	uint32_t root_number;
	int exportable;
	uint8_t *zeros; /* one block of zeros, for holes */
	struct fs_shard shard[FS_SHARDS];
	uint64_t nodes, trimmed; /* nodes now; how many there were at the last trim */
};

/* Node id <-> inode number: the root and number 1 trade places. */
static inline uint64_t fs_swap(const struct sqk_fs *fs, uint64_t x)
{
	if (x == fs->root_number)
		return SQK_FS_ROOT;
	if (x == SQK_FS_ROOT)
		return fs->root_number;
	return x;
}

int sqk_fs_nodes_init(struct sqk_fs *fs);
void sqk_fs_nodes_destroy(struct sqk_fs *fs);
/*
 * The inode of node id, read again without its block list or target, and
 * its xattr size (xsize may be NULL); SQK_ERR_NOENT when the kernel cannot
 * know it.
 */
int sqk_fs_node_get(struct sqk_fs *fs, uint64_t id, struct sqk_inode *ino, uint32_t *xsize);
/*
 * The node id for ino, counted count times. An id already known with
 * another inode reference is corruption: two inodes with one number.
 */
int sqk_fs_node_add(struct sqk_fs *fs, const struct sqk_inode *ino, uint32_t xsize, uint64_t count);
/* 1 and the node's inode (as sqk_fs_node_get) if id is known at ref, 0 if not known. */
int sqk_fs_node_peek(struct sqk_fs *fs, uint64_t id, uint64_t ref, struct sqk_inode *ino,
		     uint32_t *xsize);
void sqk_fs_node_forget(struct sqk_fs *fs, uint64_t id, uint64_t count);
/* The node's file, or NULL. */
struct sqk_fs_file *sqk_fs_node_file(struct sqk_fs *fs, uint64_t id);
/*
 * Give the node the file f unless it has one already: the node's file
 * either way (f is closed if not kept), NULL when the node is unknown.
 */
struct sqk_fs_file *sqk_fs_node_keep_file(struct sqk_fs *fs, uint64_t id, struct sqk_fs_file *f);
/* The same for a directory's listing. */
struct sqk_fs_dir *sqk_fs_node_dir(struct sqk_fs *fs, uint64_t id);
struct sqk_fs_dir *sqk_fs_node_keep_dir(struct sqk_fs *fs, uint64_t id, struct sqk_fs_dir *d);

/* Drop what a node does not keep: the block list and the symlink target. */
void sqk_fs_strip(struct sqk_inode *ino);
/* Read the inode at ref and check it is the one a directory entry promised. */
int sqk_fs_read_inode(struct sqk_fs *fs, uint64_t ref, uint32_t number, unsigned basic,
		      struct sqk_inode *ino);
/* The size the xattr id table gives ino's xattrs (0 without any). */
int sqk_fs_xattr_size(struct sqk_fs *fs, const struct sqk_inode *ino, uint32_t *size);
void sqk_fs_fill_stat(const struct sqk_inode *ino, uint32_t xsize, struct stat *st);

#endif
