/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_RESOLVE_H
#define SQK_RESOLVE_H

/* Image paths resolved as a mounted image would resolve them. */
struct sqk_image;
struct sqk_inode;

/* Symlinks followed while resolving one path, as Linux bounds them. */
#define SQK_RESOLVE_MAX_SYMLINKS 40

/*
 * Resolve path like the kernel would: symlinks met on the way are followed
 * inside the image (an absolute target starts again at the image root,
 * ".." stops at the root), and the last component is followed too when
 * follow_last is set or the path ends with "/". Returns 0 and *ino, or a
 * negative sqk_err (SQK_ERR_LOOP after too many symlinks, SQK_ERR_NOTDIR
 * when a component other than the last is not a directory).
 * sqk_resolve() (walk.h) is the plain form: no symlinks, no "." or "..".
 */
int sqk_resolve_follow(struct sqk_image *img, const char *path, int follow_last,
		       struct sqk_inode *ino);

#endif
