/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_SQUASHKIT_H
#define SQUASHKIT_SQUASHKIT_H

/**
 * @file squashkit/squashkit.h
 * libsquashkit: read, extract (to a directory or an archive), verify, compare and build SquashFS 4.0
 * images, with all six compressors (gzip, lzma, lzo, xz, lz4, zstd).
 *
 * Include this header and link with `pkg-config --cflags --libs squashkit`.
 * Every function returns 0 (or a count) or a negative code of enum
 * sqk_error, with sqk_error_message() saying where and why. Nothing here
 * prints; only an open build (build.h) handles signals, to remove its
 * temporary file. What is not in these headers is private to the library.
 */
#include "build.h"
#include "check.h"
#include "diff.h"
#include "error.h"
#include "extract.h"
#include "image.h"
#include "inode.h"
#include "remote.h"
#include "survey.h"
#include "verity.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SQK_VERSION_MAJOR 0
#define SQK_VERSION_MINOR 1
#define SQK_VERSION_PATCH 0

/** The library's version, "X.Y.Z" (that of the shared library loaded, not of the header). */
SQK_API const char *sqk_version(void);

#ifdef __cplusplus
}
#endif

#endif
