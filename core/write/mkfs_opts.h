/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MKFS_OPTS_H
#define SQK_MKFS_OPTS_H

/*
 * What a build is asked for and what it counted: the options the mkfs
 * driver (mkfs/mkfs.h) takes and the parts of the writer it hands them to
 * (the append, the attributes, the inode tables) read.
 */
#include <stdint.h>

#include "compressors/compressor.h"
#include "util/file.h"

struct sqk_image;
struct sqk_mode;
struct sqk_sort;
struct sqk_verity_build;
struct sqk_xattr_add;
struct sqk_xattr_filter;

/* How --exclude patterns match an image path (src_file.c, src_exclude.c). */
enum sqk_exclude_style {
	SQK_EXCLUDE_GLOB,      /* fnmatch(3) on the whole path, or on the base name */
	SQK_EXCLUDE_WILDCARDS, /* a glob per component, with mksquashfs's fnmatch flags */
	SQK_EXCLUDE_REGEX,     /* a regular expression per component */
};

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
	 * A dm-verity tree made as the image is written (core/verity): out is
	 * the build's file, and its hash area is written just before the
	 * superblock, so that an append's new superblock points at an image
	 * whose tree is in place. An append writes after every byte the file
	 * has, an earlier hash area included: killed at any moment, even by
	 * SIGKILL, the file holds the old image and its tree, or the new ones.
	 */
	struct sqk_verity_build *verity;
	/*
	 * --reuse: earlier images (the caller's, open for reading) whose stored
	 * blocks are copied where they hold the same bytes (reuse.h); one that
	 * sqk_reuse_check refuses fails the build (SQK_ERR_ARG), so the caller
	 * leaves those out. Per-image counts: sqk_mkfs_reuse().
	 */
	struct sqk_image *const *reuse;
	size_t nreuse;
	/*
	 * Memory the build may hold (0: sqk_mkfs_default_memory), and the
	 * directory its temporaries go to (NULL: TMPDIR or /tmp; util/spill.h).
	 * spill_tiny keeps the least in memory that works at all: every
	 * structure spills (tests).
	 */
	uint64_t memory;
	const char *tmpdir;
	int spill_tiny;
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
	/* The budget, and what went to temporaries: bytes, files, sorted runs, merges of runs. */
	uint64_t memory, spill_bytes, spill_files, spill_runs, spill_merges;
	uint32_t mkfs_time;
};

#endif
