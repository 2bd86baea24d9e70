/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_ERROR_H
#define SQUASHKIT_ERROR_H

/**
 * @file squashkit/error.h
 * Errors: every function of libsquashkit that can fail returns 0 (or a count)
 * on success and one of the negative codes below on failure. The codes are
 * the library's one error enum; sqk_strerror() is the one place that turns a
 * code into words.
 *
 * A failed call also leaves, for the calling thread, what the squashkit
 * command would print after its name: the path it was about and the true
 * cause (the errno of the system call that failed, or the image structure
 * that is broken). Read it with sqk_error_message() before the next call
 * of the library in the same thread.
 */

#include "visibility.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The error codes. New codes may be added; existing values never change. */
enum sqk_error {
	SQK_OK = 0,
	SQK_ERR_NOMEM = -1,	  /**< out of memory */
	SQK_ERR_IO = -2,	  /**< a read or write failed (see sqk_error_errno()) */
	SQK_ERR_CORRUPT = -3,	  /**< the image's structure is invalid */
	SQK_ERR_UNSUPPORTED = -4, /**< valid, but not supported by this library */
	SQK_ERR_ARG = -5,	  /**< a bad argument or option value from the caller */
	SQK_ERR_NOENT = -6,	  /**< no such path in the image */
	SQK_ERR_NOTDIR = -7,	  /**< a path component is not a directory */
	SQK_ERR_COMPRESSOR = -8,  /**< a block failed to decompress */
	SQK_ERR_OVERFLOW = -9,	  /**< a size or count exceeds the format's limits */
	SQK_ERR_TRUNCATED = -10,  /**< the image ends before one of its structures does */
	SQK_ERR_EXIST = -11,	  /**< the target exists */
	SQK_ERR_NOSPACE = -12,	  /**< the device is full (or the quota) */
	SQK_ERR_INTR = -13,	  /**< interrupted by a signal */
	SQK_ERR_BADNAME = -14,	  /**< a directory entry's name is unsafe */
	SQK_ERR_LOOP = -15,	  /**< a directory loop */
	SQK_ERR_SEQUENCE = -16,	  /**< directory entries unsorted or duplicated */
	SQK_ERR_MAGIC = -17,	  /**< not a SquashFS image */
	SQK_ERR_VERSION = -18,	  /**< not SquashFS 4.0 */
	SQK_ERR_ARCHIVE = -19,	  /**< the archive could not be read or written */
	SQK_ERR_TIMEOUT = -20,	  /**< a bounded wait ran out */
	SQK_ERR_DEPTH = -21,	  /**< directories nested deeper than the walk allows */
	SQK_ERR_NOFILE = -22,	  /**< a file or directory named does not exist (errno ENOENT) */
};

/** The words for a code ("corrupt image", ...); never NULL. Thread-safe. */
SQK_API const char *sqk_strerror(int err);

/**
 * After a call of this library failed in this thread: one line saying where
 * and why ("/usr/bin/x: corrupt image: ...", "out.img: No space left on
 * device"), without a trailing newline; "" when the last call succeeded or
 * no call was made. The string stays valid until the next call of the
 * library in the same thread.
 */
SQK_API const char *sqk_error_message(void);

/** The errno of the system call behind the last failure in this thread, or 0. */
SQK_API int sqk_error_errno(void);

#ifdef __cplusplus
}
#endif

#endif
