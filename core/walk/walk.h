/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_WALK_H
#define SQK_WALK_H

/*
 * A depth-first walk of an image's tree, in directory order, feeding a
 * sink. A directory's listing is checked whole before the sink hears of it,
 * then visited a piece at a time (read/dir.h), each piece's metadata block
 * released before its entries are visited, so the walk never holds metadata
 * blocks across levels and a directory of millions of entries costs a
 * piece's memory. The walk finds hard links (the same inode number reached
 * again), refuses directory loops and bounds the depth.
 */
#include <stdint.h>

#include "read/inode.h"
#include "util/error.h"

struct sqk_image;

/*
 * An entry that cannot be read (--keep-going): f says which (its path) and
 * why. Returns 0 to leave it out and go on, or f->err to end the walk with
 * it. Called from the walk and from a sink's workers, one call at a time.
 */
typedef int (*sqk_lost_fn)(void *ctx, const struct sqk_fault *f);

struct sqk_sink {
	/* A directory, before its children. */
	int (*dir_begin)(struct sqk_sink *s, const char *path, struct sqk_inode *ino);
	/* The same directory, after its children. */
	int (*dir_end)(struct sqk_sink *s, const char *path, struct sqk_inode *ino);
	/*
	 * Anything else. link_to is the path of an earlier entry with the same
	 * inode (a hard link), or NULL. The sink may keep ino->blocks and
	 * ino->target by setting them to NULL.
	 */
	int (*node)(struct sqk_sink *s, const char *path, struct sqk_inode *ino,
		    const char *link_to);
	/*
	 * The sink's own story of a failure it returned (an output's errno, a
	 * worker's path); the walk takes it over when it is filled.
	 */
	struct sqk_fault fault;
	/*
	 * Set from the walk's: when not NULL, a file whose data cannot be read
	 * is reported here and left out, and the callbacks return 0 for it.
	 */
	sqk_lost_fn lost;
	void *lost_ctx;
};

/*
 * Directories below the root, at most. The kernel and squashfs-tools set no
 * limit; this one bounds the walk's recursion: about 400 bytes of stack a
 * level (1 KB under AddressSanitizer), well inside the usual 8 MB, and far
 * deeper than mksquashfs can build from a directory (paths stop at 4096
 * bytes: 2048 levels of one-letter names).
 */
#define SQK_WALK_MAX_DEPTH 4096

struct sqk_walk {
	struct sqk_image *img;
	struct sqk_sink *sink;
	/* Selected paths (no leading or trailing "/"); none = everything. */
	char **select;
	unsigned nselect;
	/*
	 * With a selection: entries wanted without what is below them (a
	 * symlink a selected path went through, a directory it left by
	 * ".."), and so their parents.
	 */
	char **way;
	unsigned nway;
	/*
	 * --keep-going when not NULL: an entry that cannot be read (its inode,
	 * a directory's listing, a file's data) is reported here and left out,
	 * with what is below it, and the walk goes on. A failure of the sink's
	 * output, running out of memory or a signal still end it.
	 */
	sqk_lost_fn lost;
	void *lost_ctx;
	/* After a failure: what it was and where (the sink's story when it has one). */
	struct sqk_fault fault;
	/* Counters. */
	uint64_t dirs, files, others, links;
};

/*
 * Where path (len bytes, no leading "/") stands to the selected paths: inside
 * one (or the selection is empty: everything), on the way to one (a parent,
 * and the root), or neither.
 */
enum { SQK_SEL_NONE, SQK_SEL_WAY, SQK_SEL_INSIDE };
int sqk_walk_selected(char *const *select, unsigned nselect, const char *path, size_t len);

/*
 * Walk from the root. Returns 0 or the first error (from the image or the
 * sink); SQK_ERR_INTR when a signal came while held (signals.h).
 */
int sqk_walk(struct sqk_walk *w);

/* Resolve an image path ("a/b/c", leading "/" allowed) to its inode. */
int sqk_resolve(struct sqk_image *img, const char *path, struct sqk_inode *ino);

#endif
