/* SPDX-License-Identifier: BSD-2-Clause */
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
 *  "super", "exclude" GLOB (repeatable), "threads" N, "memory" SIZE (what is
 *  kept about the whole trees, hard links, holds at most this much memory, K/M/G
 *  suffixes; default a quarter of RAM, at most 256M) and "tmpdir" DIR (where the
 *  rest goes, in unnamed temporary files; default $TMPDIR, else /tmp); value
 *  NULL for a switch. */
struct sqk_diff_opts;
SQK_API struct sqk_diff_opts *sqk_diff_opts_create(void);
SQK_API void sqk_diff_opts_destroy(struct sqk_diff_opts *o);
SQK_API int sqk_diff_opts_set(struct sqk_diff_opts *o, const char *name, const char *value);
/**
 * Compare only this subtree ("a/b": leading and doubled "/" do not count;
 * "/" is the whole tree); may be called again. Each side resolves @p path
 * on its own as lstat(2) resolves one in a mounted tree: symlinks on the
 * way followed inside it, the last one only when @p path ends with "/".
 * Changes below it are named under @p path as given.
 */
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
			     const struct sqk_diff_opts *o, sqk_change_fn change, void *ctx,
			     size_t struct_size);
#define sqk_diff_compare(...) sqk_diff_compare(__VA_ARGS__, sizeof(struct sqk_diff_side))

/**
 * A comparison as an object, for a caller that shows it as `squashkit
 * diff` does: each change with the facts struct sqk_change lacks, the
 * counts of the summary, and where a failure happened.
 *
 * sqk_diff_open() opens both sides' trees (an image side stays the
 * caller's and must stay open until sqk_diff_destroy()); sqk_diff_run()
 * compares them once; sqk_diff_count() and sqk_diff_failure() then say how
 * it went, also after a failed or stopped run. One thread at a time; the
 * comparison itself uses the threads the options ask for.
 */
struct sqk_diff;

/**
 * One change as sqk_diff_run() gives it. Filled by the library, valid
 * during the callback; fields may be added at the end, never moved.
 */
struct sqk_diff_entry {
	const struct sqk_change *change; /**< the change, as sqk_change_fn has it */
	/** The entry's S_IFxxx type: B's for SQK_CHANGE_ADDED, else A's; 0 for the superblock. */
	unsigned type;
	/** SQK_CHANGE_SUPER: a and b are a flag of the superblock, 0 (unset) or 1 (set). */
	int flag;
};

/**
 * Called for each change; 0 goes on, 1 stops the comparison there (the run
 * returns 1: they differ), <0 fails the run with that code.
 */
typedef int (*sqk_diff_entry_fn)(void *ctx, const struct sqk_diff_entry *e);

/**
 * Open the trees of @p a and @p b to compare with options @p o (copied;
 * NULL for the defaults: everything compared but mtimes, one thread).
 * 0 with the comparison in *out, or SQK_ERR_NOMEM, SQK_ERR_ARG for a side
 * with neither an image nor a directory, or the error of a host directory
 * that would not open (its errno in sqk_error_errno(), the message names
 * the directory), with *out NULL. The comparison may not outlive an image
 * side: destroy it first.
 */
SQK_API int sqk_diff_open(const struct sqk_diff_side *a, const struct sqk_diff_side *b,
			  const struct sqk_diff_opts *o, struct sqk_diff **out, size_t struct_size);
#define sqk_diff_open(...) sqk_diff_open(__VA_ARGS__, sizeof(struct sqk_diff_side))
/**
 * Compare, once: each change to @p fn in the order of the tree (fn may be
 * NULL). Returns as sqk_diff_compare() does: 1 different, 0 the same, or a
 * negative code (sqk_diff_failure() says where); SQK_ERR_ARG when run
 * again.
 */
SQK_API int sqk_diff_run(struct sqk_diff *d, sqk_diff_entry_fn fn, void *ctx);
/**
 * A count of the run so far, by name: "added", "removed", "changed"
 * (entries), "bytes_added", "bytes_removed", "bytes_changed" (B's size of
 * the files whose size or contents differ), "files_compared" (files whose
 * contents were compared), "blocks_stored_alike" (blocks and tails found
 * equal by their stored bytes alone), "bytes_read" (bytes of contents
 * decompressed or read and compared, per side). SQK_ERR_ARG for another
 * name.
 */
SQK_API int sqk_diff_count(const struct sqk_diff *d, const char *name, uint64_t *value);
/** Every name sqk_diff_count() takes, NULL-terminated, in the order of the summary. */
SQK_API const char *const *sqk_diff_count_names(void);
/**
 * Why the run failed: its code (0 when it did not), and where, each
 * pointer may be NULL: @p side 0 (A), 1 (B), 2 (both: a path given with
 * sqk_diff_opts_add_path() is in neither, SQK_ERR_NOENT) or -1 (neither:
 * memory, a temporary file, or the callback's code); @p path the entry,
 * "/a/b" ("/" for the root, "" when none; for a temporary file, the
 * directory it was in), valid until sqk_diff_destroy(); @p errnum the errno
 * of a failed read or write or of the callback's failure (0 when unknown).
 */
SQK_API int sqk_diff_failure(const struct sqk_diff *d, int *side, const char **path, int *errnum);
/** Close both trees and free the comparison. NULL is ignored. */
SQK_API void sqk_diff_destroy(struct sqk_diff *d);

#ifdef __cplusplus
}
#endif

#endif
