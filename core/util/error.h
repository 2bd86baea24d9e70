/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_ERROR_H
#define SQK_ERROR_H

/*
 * Every core/ function returns 0 or one of the negative codes of enum
 * sqk_error, the public API's (<squashkit/error.h>): the library has one
 * enum. sqk_strerror() is the one place that turns a code into text; only
 * cmd/ prints it.
 */
#include <squashkit/error.h>

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

/*
 * f's cause in the words its one line says: its own, its errno's, ENOSPC's
 * for a full device, EIO's for the output's other I/O errors and, for the
 * image's, those of image_errnum (what its file kept; 0: EIO's).
 */
const char *sqk_fault_text(const struct sqk_fault *f, int image_errnum);
/*
 * The errno a line names for a call that just failed with err: errno for
 * an I/O error or a full device (EIO or ENOSPC when it is 0), else 0.
 */
int sqk_err_errnum(int err);

#endif
