/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_EXTRACT_H
#define SQK_EXTRACT_H

/*
 * The directory sink: recreates the walked tree under a destination
 * directory. Everything is created relative to directory descriptors with
 * O_NOFOLLOW, so nothing is ever written outside the destination and no
 * symlink (from the image or found in the destination) is followed. File
 * data is written by the worker pool, a chunk of blocks per task.
 */
#include "walk.h"

struct sqk_image;
struct sqk_pool;
struct sqk_xattr_filter;

struct sqk_extract_conf {
	int force; /* replace what is in the way */
	int no_xattrs;
	int no_owner; /* never chown (implied when not root) */
	/*
	 * A problem with one entry that does not stop the extraction (an
	 * owner, mode, time or attribute the destination refused): path is
	 * the entry's, inside the destination.
	 */
	void (*warn)(void *ctx, const char *path, const char *what);
	void *warn_ctx;
	/* Only the attributes that pass it are restored (NULL: all). */
	const struct sqk_xattr_filter *xattr_filter;
	/*
	 * unsquashfs's -ignore-errors: a file whose data cannot be written is
	 * reported to warn and removed at the end, and the extraction goes on.
	 */
	int ignore_errors;
};

struct sqk_extract;

/* dest_fd: an open directory the tree goes into; the sink does not close it. */
int sqk_extract_create(struct sqk_image *img, struct sqk_pool *pool, int dest_fd,
		       const struct sqk_extract_conf *opts, struct sqk_extract **out);
struct sqk_sink *sqk_extract_sink(struct sqk_extract *x);
/*
 * Wait for the workers; with --keep-going (the walk's lost callback),
 * remove the files whose data could not be read and the hard links to
 * them, each reported lost. Returns the first error met (the sink's fault
 * tells it) or 0; *warnings counts the entries that were warned about.
 */
int sqk_extract_finish(struct sqk_extract *x, unsigned *warnings);
void sqk_extract_destroy(struct sqk_extract *x);

/*
 * The failure the last callback returned, passed over by the caller
 * (unsquashfs's -ignore-errors): *f gets its story and the sink goes on.
 * Returns 0, or the error when the workers failed (it ends the extraction).
 */
int sqk_extract_pass_over(struct sqk_extract *x, struct sqk_fault *f);

/* Where sqk_xdir_run failed. */
enum sqk_xdir_stage {
	SQK_XDIR_DEST = 1, /* making or opening the destination (errno kept for SQK_ERR_IO) */
	SQK_XDIR_START,	   /* the workers or the sink */
	SQK_XDIR_WALK,	   /* the caller's walk: its failure is its own to tell */
	SQK_XDIR_FINISH,   /* the workers' or a late signal's: fault tells it */
};

struct sqk_xdir {
	const char *dest;
	int may_exist; /* an existing directory is filled; else SQK_ERR_EXIST */
	int undo;      /* a destination this run made goes after a failure or a signal */
	unsigned threads;
	const struct sqk_extract_conf *opts;
	/* Walk the image into x's sink (sqk_extract_sink). */
	int (*walk)(void *ctx, struct sqk_extract *x);
	void *ctx;
	/* What came of it. */
	int created; /* dest was made by this run */
	enum sqk_xdir_stage stage;
	struct sqk_fault fault; /* SQK_XDIR_FINISH's story */
	unsigned warnings;	/* entries warned about (sqk_extract_finish) */
};

/*
 * Extract img into the directory d->dest, made (mode 0755 less the umask)
 * unless it exists and may. Returns 0 or the first error, d->stage saying
 * where it came from.
 */
int sqk_xdir_run(struct sqk_image *img, struct sqk_xdir *d);

/* Remove name under dirfd and everything below it, following no symlink. */
int sqk_remove_tree(int dirfd, const char *name);

#endif
