/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_EXTRACT_H
#define SQUASHKIT_EXTRACT_H

/**
 * @file squashkit/extract.h
 * Extracting an image: into a directory, or as an archive (pax, gnu,
 * ustar, cpio, zip), as `squashkit unimage` does, through the same code.
 *
 * Nothing is ever written outside the destination: names are checked,
 * symlinks from the image are made but never followed, and what is found in
 * the destination is replaced, never followed. Without "keep-going", an
 * extraction is all or nothing: after a failure, what it made is removed
 * (a directory it created, or the temporary file of an archive). An
 * archive written to a path handles signals as an open build does (its
 * temporary file goes before the signal takes its default course); a
 * directory extraction leaves signals alone unless "signals" is set.
 *
 * A failure leaves sqk_error_message() naming the path (the destination's
 * entry or the image's) and the cause, and sqk_error_errno() the errno of
 * the call that failed, if one did.
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqk_image;

/** Options: an opaque set, at their defaults when made. */
struct sqk_extract_opts;

SQK_API struct sqk_extract_opts *sqk_extract_opts_create(void);
/** NULL is ignored. */
SQK_API void sqk_extract_opts_destroy(struct sqk_extract_opts *o);
/**
 * Set an option by the name `squashkit unimage` gives it, without the
 * dashes; @p value is NULL for a switch. SQK_ERR_ARG (and a message) for an
 * unknown name or a bad value:
 * - "force": replace what is in the way (the destination may exist);
 * - "keep-going": extract every entry that can be read; each one that
 *   cannot goes to the problem callback, and the call returns the first
 *   such entry's error at the end, keeping what was made;
 * - "no-xattrs", "no-owner" (owners are restored only as root anyway);
 * - "xattrs-include" REGEX, "xattrs-exclude" REGEX (POSIX extended);
 * - "threads" N (default: online CPUs);
 * - "format" pax|gnu|ustar|cpio|zip (archives; default pax);
 * - "signals": a directory extraction holds SIGINT, SIGTERM, SIGHUP and
 *   SIGQUIT while it runs; one that comes stops it, what it made goes (as
 *   after a failure; with "keep-going" it stays), and the process then
 *   dies of the signal inside the call, as a command would. For programs
 *   that leave these signals at their default dispositions;
 * - "fill": a directory extraction fills a destination that exists
 *   (without "force", what is in the way of an entry is an error);
 * - "keep-made": what a directory extraction made before a failure
 *   stays, as unsquashfs leaves it (a file whose data was not all written
 *   goes);
 * - "pass-over": unsquashfs's -ignore-errors: an entry that cannot be
 *   made in the destination (it exists, an I/O error, no space) goes to
 *   the entry callback (SQK_ENTRY_PASSED_OVER) and is left out, a
 *   directory with everything below it, and a file whose data cannot be
 *   written goes to the problem callback and is removed at the end.
 */
SQK_API int sqk_extract_opts_set(struct sqk_extract_opts *o, const char *name, const char *value);
/**
 * Extract only the entry at @p path ("a/b" or "/a/b"), what is below it
 * and its parents; may be called again. @p path resolves as lstat(2)
 * resolves one in the mounted image: symlinks on the way are followed
 * inside it, and extracted as symlinks with the directories the path left
 * by "..", so that it resolves the same way in what is made; the last
 * component is followed only when @p path ends with "/". A path the image
 * lacks fails the extraction (SQK_ERR_NOENT; SQK_ERR_LOOP after 40
 * symlinks) before anything is written.
 */
SQK_API int sqk_extract_opts_add_path(struct sqk_extract_opts *o, const char *path);

/** Where an extraction failed: struct sqk_extract_failure's stage. */
enum sqk_extract_stage {
	/**
	 * The destination could not be made or opened: SQK_ERR_EXIST (it
	 * exists, without "force"), SQK_ERR_ARG (an archive's path is a
	 * directory), or the errno of the call that failed.
	 */
	SQK_EXTRACT_DEST = 1,
	/** The extraction could not start: its workers, the archive's writer. */
	SQK_EXTRACT_START = 2,
	/** An entry: reading it from the image, or (output set) writing it. */
	SQK_EXTRACT_ENTRY = 3,
	/** The finished archive or description could not be put in place. */
	SQK_EXTRACT_COMMIT = 4,
	/**
	 * A description: the extended attributes of count entries, which a
	 * pseudo file cannot hold.
	 */
	SQK_EXTRACT_XATTRS = 5,
};

/**
 * A failed extraction as data, for a caller that words its own message
 * (sqk_error_message() says the same in the library's words).
 */
struct sqk_extract_failure {
	int err;		      /**< the code the call returns */
	int errnum;		      /**< the errno of the call that failed, or 0 */
	enum sqk_extract_stage stage; /**< where */
	/**
	 * SQK_EXTRACT_ENTRY: the failure was the destination's (path is
	 * inside it), not the image's.
	 */
	int output;
	/**
	 * The entry, "/a/b" (in the image, or from the destination directory's
	 * root); "" when the failure is about no one entry. A path too long to
	 * keep is "..." and its end.
	 */
	const char *path;
	/**
	 * The cause in words: the errno's (an I/O error reading the image: the
	 * image file's), the code's, or those of the part that refused
	 * ("Unsupported file type" from the archive writer).
	 */
	const char *what;
	uint64_t count; /**< SQK_EXTRACT_XATTRS: the entries */
};

/**
 * Hears of the failure of an extraction once, before the call returns it
 * (and, with "signals", before a signal held meanwhile ends the process);
 * not for SQK_ERR_INTR. From the calling thread; @p f lives for the call.
 */
typedef void (*sqk_failure_fn)(void *ctx, const struct sqk_extract_failure *f);

/** Set (or, with NULL, clear) the failure callback of the extractions run with @p o. */
SQK_API int sqk_extract_opts_set_failure(struct sqk_extract_opts *o, sqk_failure_fn fn, void *ctx);

/**
 * A notice about the output itself, not about an entry: @p path is a host
 * path, @p message the words. Today one kind: a stale temporary file of
 * the output's (left by a writer killed before it finished; its lock
 * says it is gone) removed, "removed a stale temporary file (its writer
 * is gone)".
 */
typedef void (*sqk_notice_fn)(void *ctx, const char *path, const char *message);

/** Set (or, with NULL, clear) the notice callback of the extractions run with @p o. */
SQK_API int sqk_extract_opts_set_notice(struct sqk_extract_opts *o, sqk_notice_fn fn, void *ctx);

/**
 * An entry that was left out ("keep-going": @p err is its error), or a
 * warning about one that was extracted (@p err is 0: an owner, mode, time
 * or attribute the destination refused, a socket an archive cannot hold).
 * @p path is the entry's path in the image ("/a/b"), @p message the words.
 * Called from the calling thread or the workers, one call at a time.
 */
typedef void (*sqk_problem_fn)(void *ctx, const char *path, int err, const char *message);

struct sqk_stat;

/** What an entry callback is told of: struct sqk_entry's event. */
enum sqk_entry_event {
	/**
	 * An entry, in the walk's order (a directory before what is below
	 * it), before it is made: the callback returns SQK_ENTRY_EXTRACT,
	 * SQK_ENTRY_SKIP (this entry and, a directory, everything below it;
	 * the callback hears of none of them), or a negative code that stops
	 * the extraction with it.
	 */
	SQK_ENTRY_BEGIN = 1,
	/** It was made (a file's data may still be being written). */
	SQK_ENTRY_MADE = 2,
	/** A directory that was made, after everything below it. */
	SQK_ENTRY_END = 3,
	/**
	 * With "pass-over": it could not be made (failure says why) and was
	 * left out, a directory with everything below it.
	 */
	SQK_ENTRY_PASSED_OVER = 4,
};
/** SQK_ENTRY_BEGIN's answers. */
#define SQK_ENTRY_EXTRACT 0
#define SQK_ENTRY_SKIP	  1

/** One entry, as an entry callback is told of it; it lives for the call. */
struct sqk_entry {
	enum sqk_entry_event event;
	const char *path;	   /**< "/a/b"; "/" for the root */
	const struct sqk_stat *st; /**< its inode (squashkit/inode.h) */
	/**
	 * A hard link: the path ("/a/b") of the name it is made as a link to, or
	 * NULL. When the first name of an inode is skipped, the first of its
	 * names that is extracted is made whole and the later ones link to it.
	 */
	const char *link_to;
	const char *target; /**< a symlink's target; NULL for another type */
	/** Its size as a mounted image reports it (a directory's listing counts 3 more). */
	uint64_t size_mounted;
	/** SQK_ENTRY_PASSED_OVER: why it could not be made; else NULL. */
	const struct sqk_extract_failure *failure;
};

/**
 * Hears of each entry of an extraction or a listing (sqk_extract_list()),
 * from the calling thread, one at a time. Its return matters for
 * SQK_ENTRY_BEGIN (see there); for the other events a negative code stops
 * the extraction with it, anything else goes on.
 */
typedef int (*sqk_entry_fn)(void *ctx, const struct sqk_entry *e);

/**
 * Set (or, with NULL, clear) the entry callback of the extractions and
 * listings run with @p o: sqk_extract_dir() and sqk_extract_list(). An
 * archive or a description has none (its runs ignore it).
 */
SQK_API int sqk_extract_opts_set_entry(struct sqk_extract_opts *o, sqk_entry_fn fn, void *ctx);

/**
 * Walk the tree (or the selection) as sqk_extract_dir() would, making
 * nothing: the entry callback is told of each entry as if it were made
 * (SQK_ENTRY_BEGIN, SQK_ENTRY_MADE, SQK_ENTRY_END). With "keep-going", an
 * entry that cannot be read goes to @p problem and is left out, and the
 * call returns the first such entry's error at the end. Returns 0 or the
 * first error (told to the failure callback).
 */
SQK_API int sqk_extract_list(struct sqk_image *img, const struct sqk_extract_opts *o,
			     sqk_problem_fn problem, void *ctx);

/**
 * Extract into the directory @p dest, made (0755 less the umask) unless
 * it exists; an existing one is SQK_ERR_EXIST unless "force".
 * @p problem (may be NULL) hears of every entry left out or warned about.
 * Returns 0, or the first error; after warnings alone, 0.
 */
SQK_API int sqk_extract_dir(struct sqk_image *img, const char *dest,
			    const struct sqk_extract_opts *o, sqk_problem_fn problem, void *ctx);
/**
 * Write the tree as an archive to @p path, as what the path holds says:
 * nothing or a regular file, written beside it and renamed into place
 * when complete (a symlink is followed, and where it leads written so; a
 * dangling one gets its target made); a block device, written in place
 * and synced (the four signals are held meanwhile: one stops the run,
 * told to the failure callback as for any failure, before the process
 * dies of it; a failure leaves a partial archive there, and its words say
 * so); a fifo or character device, written as a stream. Anything existing
 * is SQK_ERR_EXIST unless "force"; a directory is never replaced
 * (SQK_ERR_ARG).
 */
SQK_API int sqk_extract_archive(struct sqk_image *img, const char *path,
				const struct sqk_extract_opts *o, sqk_problem_fn problem,
				void *ctx);
/** The same, written to @p fd (a pipe will do); the caller closes it. */
SQK_API int sqk_extract_archive_fd(struct sqk_image *img, int fd, const struct sqk_extract_opts *o,
				   sqk_problem_fn problem, void *ctx);

/**
 * Describe the tree (or the selection) as a pseudo file in mksquashfs's
 * syntax, file data included, that `squashkit mkimage --pseudo-file` and
 * `mksquashfs -pf` build the same tree from, written to @p path as an
 * archive is (beside it, renamed into place when complete; "force" to
 * replace a file). Extended attributes have no place in that syntax: an
 * image that has some is SQK_ERR_UNSUPPORTED (stage SQK_EXTRACT_XATTRS)
 * unless "no-xattrs" leaves them out. "keep-going" is SQK_ERR_ARG: a
 * description is of the whole tree. A name or target the syntax cannot
 * hold is SQK_ERR_UNSUPPORTED.
 */
SQK_API int sqk_extract_describe(struct sqk_image *img, const char *path,
				 const struct sqk_extract_opts *o, sqk_problem_fn problem,
				 void *ctx);
/** The same, written to @p fd (a pipe will do); the caller closes it. */
SQK_API int sqk_extract_describe_fd(struct sqk_image *img, int fd, const struct sqk_extract_opts *o,
				    sqk_problem_fn problem, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
