/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_APPEND_H
#define SQK_APPEND_H

/*
 * --append: read an image back into the writer's tree, before any source.
 * Its inodes keep every attribute (the nodes carry SQK_NODE_KEPT, which
 * the options that force owners, modes, times and xattrs leave alone);
 * its files keep their blocks and fragments where they are; the data
 * writer adopts its fragment table, and its files and tails for dedup.
 */
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct sqk_image;
struct sqk_tree;
struct sqk_xattrs;
struct sqk_data_writer;
struct sqk_mkfs_opts;
struct sqk_super;
struct sqk_file;

struct sqk_append_load {
	struct sqk_image *img;
	struct sqk_tree *tree; /* fresh: only the implicit root */
	struct sqk_xattrs *xattrs;
	struct sqk_data_writer *dw; /* before any file was handed in */
	struct sqk_spill *spill;
	int dedup;
	/* On failure: where (an image path, or "fragment N") and why. */
	char *where, *why;
	size_t where_len, why_len;
};

int sqk_append_load(const struct sqk_append_load *a);

/* Does path (an image path, no leading '/') name an inode of the image? */
int sqk_append_kept(struct sqk_tree *t, const char *path);

/* The new superblock's flags and time, from the old one's. */
void sqk_append_super(struct sqk_image *img, const struct sqk_mkfs_opts *o, struct sqk_super *sb);

/*
 * The roll-back of an append to the file fd (append_guard.c): its length
 * and superblock before, and the signal action that cuts it back.
 */
struct sqk_append_guard {
	int fd, armed;
	uint64_t size, offset;
	uint8_t super[SQK_SUPER_SIZE];
	int slot;
};

/*
 * Read the superblock at offset of fd (size bytes long) and, from now on
 * until the release, cut fd back to size on a signal while that
 * superblock stands. 0; 1 when the file ends before a superblock would;
 * SQK_ERR_IO (errno kept); SQK_ERR_UNSUPPORTED (too many signal actions).
 * Nothing is armed unless 0.
 */
int sqk_append_guard_arm(struct sqk_append_guard *g, int fd, uint64_t size, uint64_t offset);
/*
 * Disarm; after a failure (failed), first cut the file back while its old
 * superblock stands, putting it back if the new one took its place.
 * A guard never armed (zeroed) is allowed.
 */
void sqk_append_guard_release(struct sqk_append_guard *g, int failed);

/*
 * A test hook: with SQK_TEST_APPEND_KILL=stage in the environment the
 * process kills itself (SIGKILL) at that stage, to show that an append
 * interrupted there leaves the image readable.
 */
void sqk_append_stage(const char *stage);
/* Sync f to stable storage, between the stages before and after. */
int sqk_append_sync(struct sqk_file *f, const char *before, const char *after);

#endif
