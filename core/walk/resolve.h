/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_RESOLVE_H
#define SQK_RESOLVE_H

/* Image paths resolved as a mounted image would resolve them. */
struct sqk_image;
struct sqk_inode;

/*
 * Resolve path like the kernel would (util/path_walk.h): symlinks met on
 * the way are followed inside the image (an absolute target starts again
 * at the image root, ".." stops at the root), and the last component is
 * followed too when follow_last is set or the path ends with "/". Returns
 * 0 and *ino, or a negative sqk_err (SQK_ERR_LOOP after too many symlinks,
 * SQK_ERR_NOTDIR when a component other than the last is not a directory).
 * sqk_resolve() (walk.h) is the plain form: no symlinks, no "." or "..".
 */
int sqk_resolve_follow(struct sqk_image *img, const char *path, int follow_last,
		       struct sqk_inode *ino);

/*
 * What a resolution went through, for a caller that must reproduce it
 * elsewhere (unsquashfs -follow-symlinks extracts everything a path needs).
 */
struct sqk_resolve_trace {
	/*
	 * Refuse, with SQK_ERR_UNSUPPORTED, a symlink with an absolute target
	 * and ".." in the root: the rules of unsquashfs, for which both lead
	 * out of the image.
	 */
	int relative_only;
	/*
	 * Called with the resolved image path ("a/b", no symlinks) of every
	 * symlink followed (is_link set) and of every directory left through
	 * ".."; a nonzero return ends the resolution with it. May be NULL.
	 */
	int (*visit)(void *ctx, const char *path, int is_link);
	void *ctx;
	/* Set on success: the resolved path of the result ("" for the root), malloc'd. */
	char *path;
};

/* sqk_resolve_follow(), reporting to and ruled by t. */
int sqk_resolve_trace(struct sqk_image *img, const char *path, int follow_last,
		      struct sqk_resolve_trace *t, struct sqk_inode *ino);

#endif
