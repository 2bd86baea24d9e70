/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_OUTFILE_H
#define SQK_OUTFILE_H

/*
 * The atomic output file. It is written under a temporary name in the
 * target's directory (so the rename stays in one filesystem) and renamed
 * into place only when complete: the target is the old file or the whole
 * new one, never a part. Until commit or abort, SIGINT, SIGTERM, SIGHUP
 * and SIGQUIT remove the temporary file, then take their default course.
 */
#include <stdint.h>

#include "file.h"

struct sqk_outfile;

/*
 * Create the temporary file for target, mode 0666 less the umask.
 * Returns 0, or:
 *   SQK_ERR_EXIST     the target exists and force is not set;
 *   SQK_ERR_ARG       the target is a directory (never replaced);
 *   SQK_ERR_OVERFLOW  the path is too long for a temporary name beside it;
 *   SQK_ERR_IO        the temporary file cannot be created (errno kept);
 *   SQK_ERR_UNSUPPORTED  too many output files at once (8);
 *   SQK_ERR_NOMEM.
 */
int sqk_outfile_create(const char *target, int force, struct sqk_outfile **out);

/* The file to write (a POSIX file: sqk_file_fd works), until commit or abort. */
struct sqk_file *sqk_outfile_file(struct sqk_outfile *of);

/*
 * The files a writer reading a tree must leave out, by device and inode:
 * the target it will replace, if there is one, then the temporary file.
 * Returns how many (0 to 2).
 */
unsigned sqk_outfile_ids(const struct sqk_outfile *of, uint64_t dev[2], uint64_t ino[2]);

/*
 * Flush the file to stable storage, close it and rename it over the
 * target; without force, never over a target that appeared meanwhile.
 * Frees of. On failure the temporary file is removed and the target left
 * as it was: SQK_ERR_NOSPACE or SQK_ERR_IO from the flush, SQK_ERR_IO
 * (errno kept) from the rename.
 */
int sqk_outfile_commit(struct sqk_outfile *of);

/*
 * The same, for one of several files that must appear together: once
 * renamed, the target itself is removed by a signal until the caller
 * forgets *slot (sqk_sig_forget), or removes it after a failure elsewhere.
 * *slot is -1 when no action could be registered (the target then stays).
 */
int sqk_outfile_place(struct sqk_outfile *of, int *slot);

/* Remove the temporary file and free of; NULL is allowed. */
void sqk_outfile_abort(struct sqk_outfile *of);

#endif
