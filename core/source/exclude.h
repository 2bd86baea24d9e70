/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_EXCLUDE_H
#define SQK_EXCLUDE_H

/* How --exclude patterns match an image path (src_file.c, src_exclude.c). */
enum sqk_exclude_style {
	SQK_EXCLUDE_GLOB,      /* fnmatch(3) on the whole path, or on the base name */
	SQK_EXCLUDE_WILDCARDS, /* a glob per component, with mksquashfs's fnmatch flags */
	SQK_EXCLUDE_REGEX,     /* a regular expression per component */
};

#endif
