/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FSCK_H
#define SQK_FSCK_H

/*
 * fsck: check every structure of an image and decompress every block.
 *
 * The checker never stops at the first problem: each one is reported with
 * the image path it concerns (or the name of the table, for problems of a
 * whole table), a stable check name and a sentence, and the check goes on
 * wherever that is safe. Only an operational failure (the file cannot be
 * read, memory runs out) ends a run early; it is returned as an error code.
 *
 * Check names (stable, used by `fsck --json`): superblock, compressor,
 * metadata, inode, inode-number, orphan, nlink, dir-header, dir-name,
 * dir-order, dir-entry, dir-type, dir-size, dir-parent, dir-loop,
 * dir-index, data, fragment, sparse, id, xattr, export, kernel-decode, verity.
 *
 * Blocks are decoded as the kernel decodes them (sqk_image_opts.strict), so
 * an image called clean reads in the kernel as with every reader here. A
 * block the kernel's decoder refuses but the readers' decoder reads, its
 * checksum matching, is a kernel-decode problem, named for every file (or
 * table) it holds data of; the rest of the check reads it as readers do.
 */
#include <stdint.h>

#include "read/image.h"

struct sqk_file;
struct sqk_fault;

/* Called once per problem, in a deterministic order, at the end of the run. */
typedef void (*sqk_fsck_report_fn)(void *ctx, const char *path, const char *check,
				   const char *detail);

/*
 * A stretch of the image's bytes [start, end) that a dm-verity check found
 * bad (core/verity), and why in words: every file, fragment and table with
 * bytes in it is named (check "verity").
 */
struct sqk_fsck_bad {
	uint64_t start, end;
	char why[200];
};

struct sqk_fsck_opts {
	/* Worker threads for data and fragment blocks; 0 checks them in the calling thread. */
	unsigned threads;
	/* Problems reported per check before the rest are only counted; 0 = 100. */
	unsigned max_per_check;
	/* Cache policy and sizes; NULL = sizes that suit the thread count. */
	const struct sqk_image_opts *image;
	sqk_fsck_report_fn report;
	void *ctx;
	/* Bad stretches, sorted and apart (none: NULL, 0). */
	const struct sqk_fsck_bad *verity_bad;
	size_t nverity_bad;
};

/* What was looked at. */
struct sqk_fsck_counts {
	uint64_t inodes;      /* inodes decoded */
	uint64_t directories; /* listings checked */
	uint64_t blocks;      /* data blocks decompressed (sparse blocks are not counted) */
	uint64_t fragments;   /* fragment blocks decompressed */
	uint64_t bytes;	      /* bytes those blocks decompressed to */
	uint64_t errors;      /* problems found, reported or not */
};

struct sqk_fsck;

/* A checker for the image read through file, which it then owns. */
int sqk_fsck_create(struct sqk_file *file, const struct sqk_fsck_opts *opts, struct sqk_fsck **out);
/*
 * Run every check. Returns 0 when the image was checked (problems, if any,
 * went to the report function and are counted), or SQK_ERR_IO or
 * SQK_ERR_NOMEM when the checker itself could not go on.
 */
int sqk_fsck_run(struct sqk_fsck *f);
void sqk_fsck_counts(const struct sqk_fsck *f, struct sqk_fsck_counts *out);
/*
 * Take the image the check opened (NULL when it could not be) and the file
 * under it, for a caller that looks at them after the checker is gone: it
 * closes the image, then destroys the file.
 */
void sqk_fsck_take_image(struct sqk_fsck *f, struct sqk_image **img, struct sqk_file **file);
/*
 * After sqk_fsck_run() failed with err: was it a temporary file of the
 * records' stores? Then fault (when not NULL) says which, and why.
 */
int sqk_fsck_temp_failed(const struct sqk_fsck *f, int err, struct sqk_fault *fault);
void sqk_fsck_destroy(struct sqk_fsck *f);

#endif
