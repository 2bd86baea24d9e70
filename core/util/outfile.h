/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_OUTFILE_H
#define SQK_OUTFILE_H

/*
 * The output file, and the one place that decides how an output path is
 * written (an image, an archive, a description), by what the path holds:
 *
 * - nothing, or a regular file: written under a temporary name in the
 *   same directory (".NAME.squashkit-XXXXXX") and renamed into place when
 *   complete, so the path holds the old file or the whole new one, never
 *   a part. Until commit or abort, SIGINT, SIGTERM, SIGHUP and SIGQUIT
 *   remove the temporary file, then take their default course. The
 *   temporary file is locked (flock) while its writer lives: one whose
 *   writer is gone (killed by SIGKILL, a crash) is stale, and the next
 *   output to the same path removes it and says so;
 * - a symlink: followed to where its links lead, and that path written as
 *   above (a dangling link gets its target made); the link stays;
 * - a block device: written in place from its start and synced at
 *   commit. No temporary file is possible there: after a failure the
 *   device holds a partial image (SQK_OUT_DEVICE tells the caller so).
 *   The four signals are held meanwhile (signals.h, sqk_sig_hold): one
 *   makes the work that polls sqk_sig_caught() fail, and the commit or
 *   abort then dies of it, once the caller has said what it left;
 * - a fifo, a character device (or a socket, which open refuses): opened
 *   for writing and written as a stream, as standard output is; a writer
 *   that seeks and reads back ("seek") writes to a spool file, an
 *   unlinked temporary file in $TMPDIR (default /tmp), copied out in one
 *   pass at commit;
 * - a directory: never.
 *
 * Without force, a path that holds anything (but a dangling symlink) is
 * refused. A descriptor the caller opened (standard output) is decided
 * the same way by sqk_outfile_fd.
 */
#include <stdint.h>

#include "file.h"

struct sqk_outfile;

enum sqk_out_kind {
	SQK_OUT_FILE,	    /* a regular file, written beside and renamed */
	SQK_OUT_DEVICE,	    /* a block device, written in place */
	SQK_OUT_STREAM,	    /* a fifo or character device, or a descriptor that is one */
	SQK_OUT_DESCRIPTOR, /* the caller's regular file, at its start, written in place */
};

struct sqk_outfile_how {
	int force; /* an existing path may be written */
	int seek;  /* the writer seeks and reads back: a stream is spooled */
	/* A stale temporary file of the same path, removed (path: its own). */
	void (*stale)(void *ctx, const char *path);
	void *stale_ctx;
};

/*
 * Open target for writing as its kind says. Returns 0, or:
 *   SQK_ERR_EXIST     the path holds something and force is not set;
 *   SQK_ERR_ARG       it is a directory (never replaced);
 *   SQK_ERR_OVERFLOW  the path is too long for a temporary name beside it;
 *   SQK_ERR_IO        errno kept: with *opened 1, the path (its symlinks
 *                     followed, a device or fifo opened) failed; 2, the
 *                     spool file in $TMPDIR could not be made; 0, the
 *                     temporary file beside the path;
 *   SQK_ERR_UNSUPPORTED  too many output files at once (8);
 *   SQK_ERR_NOMEM.
 * opened may be NULL.
 */
int sqk_outfile_create(const char *target, const struct sqk_outfile_how *how,
		       struct sqk_outfile **out, int *opened);

/*
 * The caller's descriptor fd (it stays the caller's): a regular file open
 * at its start and not for appending is written in place (it must be open
 * for reading too when how->seek); anything else as a stream at its
 * position. force and stale are not used.
 */
int sqk_outfile_fd(int fd, const struct sqk_outfile_how *how, struct sqk_outfile **out);

enum sqk_out_kind sqk_outfile_kind(const struct sqk_outfile *of);

/* The file to write (a POSIX file: sqk_file_fd works), until commit or abort. */
struct sqk_file *sqk_outfile_file(struct sqk_outfile *of);

/*
 * The files a writer reading a tree must leave out, by device and inode:
 * the target it will replace, if there is one, then the temporary file.
 * Returns how many (0 to 2).
 */
unsigned sqk_outfile_ids(const struct sqk_outfile *of, uint64_t dev[2], uint64_t ino[2]);

/*
 * Put the output in place: a file is synced, closed and renamed over the
 * target (without force, never over a target that appeared meanwhile); a
 * device or the caller's file synced; a spooled stream copied out (a
 * reader that went is EPIPE, never SIGPIPE). Frees of. On failure the
 * temporary file is removed and a file's target left as it was:
 * SQK_ERR_NOSPACE or SQK_ERR_IO (errno kept).
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

/*
 * In the directory dir ("" for the current one), remove the temporary
 * files of name whose writers are gone (their lock is free), but own;
 * stale(ctx, path) hears of each. Used by sqk_outfile_create.
 */
void sqk_outfile_sweep(const char *dir, const char *name, const char *own,
		       void (*stale)(void *ctx, const char *path), void *ctx);

#endif
