/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_CHECK_H
#define SQUASHKIT_CHECK_H

/**
 * @file squashkit/check.h
 * Verifying an image, as `squashkit fsck` does: every structure is checked
 * and every block decompressed, as the Linux kernel decompresses it. An
 * image with no problem reads whole in the kernel and in every reader of
 * this library. The problems come back as data.
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One problem: where, which check (a stable name), and what. */
struct sqk_problem {
	/** "/a/b" for an entry, or the name of a table ("fragment table", "superblock"). */
	const char *path;
	/**
	 * superblock, compressor, metadata, inode, inode-number, orphan, nlink,
	 * dir-header, dir-name, dir-order, dir-entry, dir-type, dir-size,
	 * dir-parent, dir-loop, dir-index, data, fragment, sparse, id, xattr,
	 * export, kernel-decode (more may be added).
	 */
	const char *check;
	const char *detail; /**< a sentence */
};

/** What the check looked at. */
struct sqk_check_counts {
	uint64_t inodes, directories, blocks, fragments, bytes;
	uint64_t problems; /**< found, listed or not (at most 100 per check are listed) */
};

struct sqk_report;

/**
 * Check the image at @p path (opts: offset, caches; may be NULL) with
 * @p threads workers (0: online CPUs). Returns 0 when the image was
 * checked, clean or not (see sqk_report_clean()); an error only when the
 * check could not be made (the file cannot be read, memory), with *out NULL.
 */
SQK_API int sqk_check_path(const char *path, const struct sqk_open_opts *opts, unsigned threads,
			   struct sqk_report **out);
/** The same for an image read through callbacks (see sqk_image_open_io()). */
SQK_API int sqk_check_io(const struct sqk_io *io, const struct sqk_open_opts *opts,
			 unsigned threads, struct sqk_report **out, size_t struct_size);
#define sqk_check_io(...) sqk_check_io(__VA_ARGS__, sizeof(struct sqk_io))

/** 1 when no problem was found. */
SQK_API int sqk_report_clean(const struct sqk_report *r);
/** How many problems are listed, and the i-th (in a stable order), valid until freed. */
SQK_API size_t sqk_report_count(const struct sqk_report *r);
SQK_API const struct sqk_problem *sqk_report_problem(const struct sqk_report *r, size_t i);
SQK_API int sqk_report_counts(const struct sqk_report *r, struct sqk_check_counts *c,
			      size_t struct_size);
#define sqk_report_counts(...) sqk_report_counts(__VA_ARGS__, sizeof(struct sqk_check_counts))
/**
 * The image the check read, with its cache counters (sqk_image_counter())
 * as the check left them, and its facts; it may be read. NULL when it could
 * not be opened (the superblock's problem says why). It stays open, with
 * its caches and its file, until sqk_report_destroy(), which closes it: the
 * caller does not destroy it.
 */
SQK_API struct sqk_image *sqk_report_image(const struct sqk_report *r);
/** Free the report and the image it lent. NULL is ignored. */
SQK_API void sqk_report_destroy(struct sqk_report *r);

#ifdef __cplusplus
}
#endif

#endif
