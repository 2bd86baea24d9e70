/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_MKFS_H
#define SQK_MKFS_H

/*
 * Build an image: sources -> tree -> block pipeline -> metadata ->
 * superblock. The caller owns the output file (an sqk_outfile, which
 * syncs it and renames it into place) and prints; this only returns codes
 * and says where.
 */
#include <stdint.h>

#include "compressor.h"
#include "exclude.h"
#include "file.h"

struct sqk_image;
struct sqk_mode;
struct sqk_sort;
struct sqk_xattr_add;
struct sqk_xattr_filter;

/* Parts stored uncompressed (mksquashfs's -noI, -noD, -noF, -noX, -noId). */
enum {
	SQK_RAW_INODES = 1,    /* inode, directory, export and id tables */
	SQK_RAW_DATA = 2,      /* data blocks */
	SQK_RAW_FRAGMENTS = 4, /* fragment blocks and the fragment table */
	SQK_RAW_XATTRS = 8,    /* xattr pairs and the xattr id table */
	SQK_RAW_IDS = 16,      /* the id table */
};

struct sqk_mkfs_opts {
	const struct sqk_codec *codec;
	struct sqk_comp_config comp;
	uint32_t block_size;
	unsigned threads;
	int no_fragments, tail_ends, no_dedup, no_sparse, no_xattrs, no_hardlinks, no_export;
	int no_pad; /* end the image at its last byte, not at a multiple of 4 KiB */
	int force_uid, force_gid;
	unsigned raw; /* SQK_RAW_* */
	uint32_t uid, gid;
	int set_mtime, set_fstime, have_epoch;
	uint32_t mtime, fstime, epoch;
	const char *const *excludes;
	size_t nexcludes;
	enum sqk_exclude_style exclude_style;
	int one_file_system; /* never cross into another file system below a source */
	int pseudo_warn;     /* a pseudo definition that cannot be placed: warn, leave it out */
	/* Never include these (the image being written, the image it replaces). */
	uint64_t skip_dev[2], skip_ino[2];
	int nskip;
	/* Modes for non-directories, directories and the root (NULL: the source's). */
	const struct sqk_mode *file_mode, *dir_mode, *root_mode;
	/* The root's owner, over force_uid and force_gid. */
	int set_root_uid, set_root_gid;
	uint32_t root_uid, root_gid;
	/* Attributes read from sources pass this (NULL: all); every inode gets the adds. */
	const struct sqk_xattr_filter *xattr_filter;
	const struct sqk_xattr_add *xattr_adds;
	size_t nxattr_adds;
	/* The order of file data (NULL: inode order). */
	const struct sqk_sort *sort;
	/* A problem that does not stop the build (a sort line naming nothing, pseudo_warn). */
	void (*warn)(void *ctx, const char *where, const char *what);
	void *warn_ctx;
	/*
	 * --append: the image to add to (the caller's, open for reading); out
	 * is the same image open for writing. Its bytes are never written
	 * again: new data and every table go after its end, and the new
	 * superblock, one write at offset 0, comes last, after a sync. codec,
	 * comp and block_size must be the image's.
	 */
	struct sqk_image *append;
	/*
	 * --reuse: earlier images (the caller's, open for reading) whose stored
	 * blocks are copied where they hold the same bytes (reuse.h); one that
	 * sqk_reuse_check refuses fails the build (SQK_ERR_ARG), so the caller
	 * leaves those out. Per-image counts: sqk_mkfs_reuse().
	 */
	struct sqk_image *const *reuse;
	size_t nreuse;
	/* Called after each file's data is placed; bytes done of total. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct sqk_mkfs_stats {
	uint64_t bytes_used, image_size, uncompressed;
	uint64_t inodes, files, dirs, symlinks, blkdevs, chrdevs, fifos, sockets, hardlinks;
	uint64_t blocks, raw_blocks, fragments, ids, xattr_ids;
	uint64_t dedup_files, dedup_bytes, dedup_tails, dedup_tail_bytes;
	uint64_t sparse_blocks, sparse_bytes, lseeks, xattrs_skipped;
	uint64_t data_bytes, inode_table_bytes, dir_table_bytes;
	/* Data and fragment blocks compressed, and (--reuse) copied from earlier images. */
	uint64_t compressed_blocks, reused_blocks, reused_bytes;
	uint32_t mkfs_time;
};

struct sqk_mkfs;

int sqk_mkfs_create(const struct sqk_mkfs_opts *o, struct sqk_file *out, struct sqk_mkfs **m);
void sqk_mkfs_destroy(struct sqk_mkfs *m);

int sqk_mkfs_add_dir(struct sqk_mkfs *m, const char *path);
/* A file or directory as an entry of the root named after it (mksquashfs's several sources). */
int sqk_mkfs_add_entry(struct sqk_mkfs *m, const char *path);
/* A file or directory at its own path, leading directories kept (tar's way). */
int sqk_mkfs_add_full_path(struct sqk_mkfs *m, const char *path);
int sqk_mkfs_add_listing(struct sqk_mkfs *m, const char *path);
int sqk_mkfs_add_archive(struct sqk_mkfs *m, const char *path);
/* Pseudo definitions, on top of every source added before (see pseudo.h). */
struct sqk_pseudo;
int sqk_mkfs_add_pseudo(struct sqk_mkfs *m, struct sqk_pseudo *p);

/* Write everything after the sources: data, tables, superblock. */
int sqk_mkfs_finish(struct sqk_mkfs *m, struct sqk_mkfs_stats *st);

/* --reuse: what earlier image i (of o.reuse) gave; NULL outside 0..nreuse-1. */
struct sqk_reuse_stats;
const struct sqk_reuse_stats *sqk_mkfs_reuse(const struct sqk_mkfs *m, size_t i);

/* Where the last error happened (a path, may be "") and what it was ("" for the code's text). */
const char *sqk_mkfs_err_path(const struct sqk_mkfs *m);
const char *sqk_mkfs_err_msg(const struct sqk_mkfs *m);
int sqk_mkfs_err_errno(const struct sqk_mkfs *m);
/* The last SQK_ERR_EXIST was a name the image appended to has already. */
int sqk_mkfs_err_in_image(const struct sqk_mkfs *m);

#endif
