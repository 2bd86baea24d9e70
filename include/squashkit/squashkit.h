/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_SQUASHKIT_H
#define SQUASHKIT_SQUASHKIT_H

/**
 * @file squashkit/squashkit.h
 * libsquashkit: read, extract (to a directory or an archive), verify, compare and build
 * SquashFS 4.0 images, with all six compressors (gzip, lzma, lzo, xz, lz4, zstd).
 *
 * Include this header and link with `pkg-config --cflags --libs squashkit`.
 * Every function returns 0 (or a count) or a negative code of enum
 * sqk_error, with sqk_error_message() saying where and why. Nothing here
 * prints; only an open build (build.h) handles signals, to remove its
 * temporary file. What is not in these headers is private to the library.
 *
 * Structs grow at their end, never change what they hold, and keep the
 * soname: a call that fills or reads a struct the caller allocates
 * (struct sqk_stat, sqk_image_info, sqk_attr, sqk_io, ...) is a macro
 * passing sizeof(struct ...) as the program was compiled, as its last
 * argument. The library fills that many bytes (a program built against an
 * older header gets the fields it knows), reads fields a caller's smaller
 * struct lacks as 0, refuses a struct smaller than the first version
 * (SQK_ERR_ARG) and a newer one that sets a field it does not know
 * (SQK_ERR_UNSUPPORTED). Structs the library hands out by pointer (a
 * callback's struct sqk_stat, struct sqk_entry, struct sqk_change, the
 * survey's figures) may also grow: read the fields your header has.
 * An object a call makes (_create, _open) ends with its _destroy; one the
 * library lends (the image of sqk_report_image()) is not destroyed by the
 * caller. After a failure, each *out of a call is NULL; a struct it was to
 * fill holds nothing to rely on. What each object may outlive is said in
 * its header (an inode may outlive its image; a listing may not).
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
