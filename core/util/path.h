/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_PATH_H
#define SQK_PATH_H

#include <stddef.h>

/*
 * The absolute path of a host path with its last component not followed
 * or even looked at: a sort file names symlinks as themselves, and a mount
 * point whose daemon died answers every stat with ENOTCONN. "/", "." and
 * ".." are resolved whole. Returns a malloc'd string, or NULL when the
 * directory part does not resolve (errno set) or memory runs out.
 */
char *sqk_path_abs_nofollow(const char *path);

/*
 * The path as tar keeps it in an archive, and mkimage --full-paths in an
 * image: no leading "/" or "./", no doubled or trailing slash. Writes at
 * most cap bytes with the terminator; returns the length it needed.
 */
size_t sqk_path_kept(const char *path, char *out, size_t cap);

#endif
