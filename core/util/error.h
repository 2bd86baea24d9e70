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

/*
 * A failure as its one error line needs it: the code; the errno of the
 * system call that failed (0 when none did, or when it was the image's,
 * whose file keeps it); whether it was about the output being written (a
 * file or directory made, a write, a sync) rather than the image read;
 * and the path it concerns, "/a/b" inside the image or the tree ("" for
 * the output or image as a whole). Whoever sees the failure fills it; the
 * first one stays.
 */
#define SQK_FAULT_PATH_MAX (4096 + 256 + 2)
struct sqk_fault {
	int err;
	int errnum;
	int output;
	char path[SQK_FAULT_PATH_MAX];
	/* Words of its own when neither the code's nor the errno's say it (a library's). */
	char what[256];
};

/* Record a failure in f unless one is there; path is "a/b" (no leading '/') or "". */
void sqk_fault_set(struct sqk_fault *f, int err, int errnum, int output, const char *path);
/* Set f's path ("a/b", or "") whatever it was. */
void sqk_fault_path(struct sqk_fault *f, const char *path);

#endif
