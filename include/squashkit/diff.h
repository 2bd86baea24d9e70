/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQUASHKIT_DIFF_H
#define SQUASHKIT_DIFF_H

/**
 * @file squashkit/diff.h
 * Comparing two trees, as `squashkit diff` does: each an open image or a
 * host directory. What is compared is what a mount shows: the entries,
 * type, permission bits, owner, mtime (on request), size and contents,
 * symlink targets, device numbers, xattrs, and which entries are hard
 * links of each other. Blocks two images store alike are equal without
 * being decompressed. Changes come in the order of the tree.
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqk_image;

/** One side: an open image, or (img NULL) the host directory dir. */
struct sqk_diff_side {
	struct sqk_image *img;
	const char *dir;
};

/** What a change is about. */
enum sqk_change_kind {
	SQK_CHANGE_SUPER,    /**< a superblock fact: name; a, b (or sa, sb) */
	SQK_CHANGE_ADDED,    /**< only in B */
	SQK_CHANGE_REMOVED,  /**< only in A */
	SQK_CHANGE_TYPE,     /**< a, b: the S_IFxxx types */
	SQK_CHANGE_MODE,     /**< a, b: permission bits */
	SQK_CHANGE_OWNER,    /**< a, b: uids; a2, b2: gids */
	SQK_CHANGE_MTIME,    /**< a, b: seconds */
	SQK_CHANGE_SIZE,     /**< a, b: bytes */
	SQK_CHANGE_CONTENTS, /**< offset: the first byte that differs */
	SQK_CHANGE_TARGET,   /**< sa, sb: the symlink targets */
	SQK_CHANGE_DEVICE,   /**< a, b: majors; a2, b2: minors */
	SQK_CHANGE_XATTR,    /**< name; sa, sb (la, lb bytes): the values, NULL for none */
	SQK_CHANGE_LINK,     /**< sa, sb: the path each side links the entry with, or NULL */
};

struct sqk_change {
	enum sqk_change_kind kind;
	const char *path; /**< "/a/b"; NULL for the superblock */
	uint64_t a, b, a2, b2, offset, size;
	const char *sa, *sb, *name;
	size_t la, lb;
};

/** Options: "no-contents", "no-owner", "no-permissions", "no-xattrs", "times",
 *  "super", "exclude" GLOB (repeatable), "threads" N; value NULL for a switch. */
struct sqk_diff_opts;
SQK_API struct sqk_diff_opts *sqk_diff_opts_create(void);
SQK_API void sqk_diff_opts_destroy(struct sqk_diff_opts *o);
SQK_API int sqk_diff_opts_set(struct sqk_diff_opts *o, const char *name, const char *value);
/** Compare only this subtree; may be called again. */
SQK_API int sqk_diff_opts_add_path(struct sqk_diff_opts *o, const char *path);

/** Called for each change; 0 goes on, 1 stops the comparison (it returns 0), <0 fails it. */
typedef int (*sqk_change_fn)(void *ctx, const struct sqk_change *c);

/**
 * Compare @p a with @p b. Returns 1 when they differ (the callback heard of
 * at least one change, or stopped the comparison at one), 0 when they are
 * the same, or a negative code when the comparison failed (a damaged image
 * is never called the same).
 */
SQK_API int sqk_diff_compare(const struct sqk_diff_side *a, const struct sqk_diff_side *b,
			     const struct sqk_diff_opts *o, sqk_change_fn change, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
