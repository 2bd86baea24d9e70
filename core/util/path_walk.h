/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_PATH_WALK_H
#define SQK_PATH_WALK_H

/*
 * A path resolved as the kernel resolves one in a mounted file system,
 * over whatever tree the caller walks (an image, a host directory taken as
 * a root): "." stays, ".." goes up and stops at the root, a symlink met on
 * the way is followed (an absolute target starts again at the root), and
 * the last component too when asked or when the path ends with "/"; at most
 * SQK_PATH_MAX_SYMLINKS symlinks on one path, as Linux bounds them.
 */
#include <stddef.h>

#define SQK_PATH_MAX_SYMLINKS 40

/* What an entry is, to a path. */
enum sqk_path_kind { SQK_PATH_OTHER, SQK_PATH_DIR, SQK_PATH_SYMLINK };

/* What the walk asks of the tree; each returns 0 or a negative sqk_err. */
struct sqk_path_ops {
	/*
	 * Look name (len bytes) up in the current directory; it becomes the
	 * pending entry. A symlink's target in *target (NUL-terminated, the
	 * tree's until the next call).
	 */
	int (*lookup)(void *ctx, const char *name, size_t len, enum sqk_path_kind *kind,
		      const char **target);
	/* Make the pending entry, a directory, the current directory. */
	int (*enter)(void *ctx);
	/* Back to the parent of the current directory, whose resolved path is done ("a/b"). */
	int (*up)(void *ctx, const char *done);
	/* Back to the root. */
	int (*root)(void *ctx);
};

/* What a walk went through, for a caller that must reproduce it (or refuse it). */
struct sqk_path_trace {
	/*
	 * Refuse, with SQK_ERR_UNSUPPORTED, a symlink with an absolute target
	 * and ".." in the root: both would leave a copy of the tree.
	 */
	int relative_only;
	/*
	 * Called with the resolved path ("a/b", no symlinks) of every symlink
	 * followed (is_link set) and of every directory left through ".."; a
	 * nonzero return ends the walk with it. May be NULL.
	 */
	int (*visit)(void *ctx, const char *path, int is_link);
	void *ctx;
};

/*
 * Resolve path from the root (the caller has the tree there). On success
 * *pending says where the result is: 1, the pending entry (the last one
 * looked up, in the current directory); 0, the current directory itself
 * (the root, or a path ending in "." or ".."). *resolved, when not NULL,
 * gets the result's path ("a/b", "" for the root; malloc'd). Errors:
 * SQK_ERR_LOOP after too many symlinks, SQK_ERR_NOTDIR when a component
 * before the last, or the last with a "/" after it, is not a directory,
 * and the tree's own. t may be NULL.
 */
int sqk_path_walk(const char *path, int follow_last, const struct sqk_path_ops *ops, void *ctx,
		  const struct sqk_path_trace *t, int *pending, char **resolved);

#endif
