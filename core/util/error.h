/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_ERROR_H
#define SQK_ERROR_H

/*
 * Every core/ function returns 0 or one of these negative codes.
 * sqk_strerror() is the one place that turns a code into text; only
 * cmd/ prints it.
 */
enum sqk_err {
	SQK_OK = 0,
	SQK_ERR_NOMEM = -1,	  /* out of memory */
	SQK_ERR_IO = -2,	  /* read or write failed (errno kept by caller) */
	SQK_ERR_CORRUPT = -3,	  /* image structure is invalid */
	SQK_ERR_UNSUPPORTED = -4, /* valid but not supported here */
	SQK_ERR_ARG = -5,	  /* bad argument from the caller */
	SQK_ERR_NOENT = -6,	  /* no such path in the image */
	SQK_ERR_NOTDIR = -7,	  /* path component is not a directory */
	SQK_ERR_COMPRESSOR = -8,  /* a block failed to decompress */
	SQK_ERR_OVERFLOW = -9,	  /* a size or count exceeds the format's limits */
	SQK_ERR_TRUNCATED = -10,  /* the image ends before a structure does */
	SQK_ERR_EXIST = -11,	  /* the target exists */
	SQK_ERR_NOSPACE = -12,	  /* the device is full */
	SQK_ERR_INTR = -13,	  /* interrupted by a signal */
	SQK_ERR_BADNAME = -14,	  /* a directory entry name is unsafe */
	SQK_ERR_LOOP = -15,	  /* a directory loop */
	SQK_ERR_SEQUENCE = -16,	  /* directory entries unsorted or duplicated */
	SQK_ERR_MAGIC = -17,	  /* not a squashfs image */
	SQK_ERR_VERSION = -18,	  /* not version 4.0 */
	SQK_ERR_ARCHIVE = -19,	  /* the archive library failed */
	SQK_ERR_TIMEOUT = -20,	  /* a bounded wait ran out */
	SQK_ERR_DEPTH = -21,	  /* directories nested deeper than SQK_WALK_MAX_DEPTH */
};

const char *sqk_strerror(int err);
/* The code for a failed system call's errno: a full device, or an I/O error. */
int sqk_err_from_errno(void);

#endif
