/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_LABEL_H
#define SQK_LABEL_H

/*
 * SELinux labels from a policy's file_contexts, through libselinux's
 * file-contexts backend: each inode of the finished tree gets the
 * security.selinux that restorecon would set on it, looked up by its path
 * (under the root the image is matched at) and its type.
 */
#include <stddef.h>

struct sqk_tree;
struct sqk_xattrs;
struct sqk_labels;

/*
 * Open file (and what libselinux reads beside it: .local, .homedirs,
 * .subs), every line checked: its regular expression, its file type, the
 * form of its context, no line given twice. 0; SQK_ERR_IO with errno;
 * SQK_ERR_CORRUPT with why, libselinux's words (which line, what is wrong).
 */
int sqk_labels_open(const char *file, struct sqk_labels **out, char *why, size_t why_len);
void sqk_labels_close(struct sqk_labels *l);

/*
 * Label every inode of t: its path is root (NULL or "": "/") followed by
 * its image path; an inode with several paths takes the label of the
 * first in the image's order. A path the file names <<none>>, or no
 * entry matches, gets no label. With keep_source, a security.selinux the
 * sources gave stays as it is. 0, or the error with where and why.
 */
int sqk_labels_apply(struct sqk_labels *l, struct sqk_tree *t, struct sqk_xattrs *x,
		     const char *root, int keep_source, char *where, size_t where_len, char *why,
		     size_t why_len);

#endif
