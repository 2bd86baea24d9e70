/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DIFF_H
#define SQK_DIFF_H

/*
 * Comparing two trees, A and B, each an open image or a host directory
 * (dtree.h): one walk of both at once, depth first, each directory's
 * entries in the order of their names' bytes (the order of an image), so
 * that memory follows the depth and the widest directory, never the tree.
 * Every difference goes to a sink, in that order, one change at a time.
 *
 * What is compared is what a mount shows: the entries, their type,
 * permission bits, owner, mtime (on request), the size and contents of
 * files, symlink targets, device numbers, xattrs, and which entries are
 * hard links of each other (the grouping, never inode numbers).
 *
 * File contents are compared on a pool of threads, a chunk of a file per
 * task, while the walk goes on; the changes still reach the sink in the
 * order of the tree. Between two images with one block size and codec, a
 * block whose size word and stored bytes are the same in both is equal
 * without being decompressed, and so is a tail in fragment blocks stored
 * alike; only the other blocks are decompressed, through the caches.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_dtree;

/* What a change is about, in the order an entry's changes come. */
enum sqk_diff_what {
	SQK_DIFF_SUPER,	   /* a superblock fact: name; a, b (or sa, sb for the codec) */
	SQK_DIFF_ADDED,	   /* only in B: type, size */
	SQK_DIFF_REMOVED,  /* only in A: type, size */
	SQK_DIFF_TYPE,	   /* a, b: basic types */
	SQK_DIFF_MODE,	   /* a, b: permission bits (07777) */
	SQK_DIFF_OWNER,	   /* a, b: uids; a2, b2: gids */
	SQK_DIFF_MTIME,	   /* a, b: seconds (as int64_t) */
	SQK_DIFF_SIZE,	   /* a, b: bytes */
	SQK_DIFF_CONTENTS, /* offset: the first byte that differs; size: B's size */
	SQK_DIFF_TARGET,   /* sa, sb: the symlink targets */
	SQK_DIFF_DEVICE,   /* a, b: majors; a2, b2: minors */
	SQK_DIFF_XATTR,	   /* name; sa, sb: the values, NULL where there is none */
	SQK_DIFF_LINK,	   /* sa, sb: the path each side links the entry with, or NULL */
};

struct sqk_diff_change {
	enum sqk_diff_what what;
	const char *path; /* "/a/b" ("/" for the root); NULL for the superblock */
	unsigned type;	  /* the entry's basic type (1..7): B's for ADDED, else A's */
	uint64_t a, b, a2, b2;
	const char *sa, *sb;
	size_t la, lb;	  /* bytes of sa and sb */
	const char *name; /* the xattr's name, the superblock field's */
	int flag;	  /* SUPER: a and b are a flag's 0 and 1 */
	uint64_t size;	  /* ADDED, REMOVED: a file's size; CONTENTS: B's size */
	uint64_t offset;
};

struct sqk_diff_sink {
	/* 0 to go on, 1 to stop the comparison there (it returns 0), or an error. */
	int (*change)(struct sqk_diff_sink *s, const struct sqk_diff_change *c);
};

struct sqk_diff_conf {
	int no_contents; /* sizes only */
	int no_owner, no_perms, no_xattrs;
	int times; /* compare mtimes */
	int super; /* compare the superblocks (two images) */
	/* Paths to compare (no leading or trailing "/"); none = everything. */
	char *const *select;
	unsigned nselect;
	/* Is the path ("a/b", no leading "/") left out, with what is below it? NULL: none is. */
	int (*excluded)(void *ctx, const char *path);
	void *exclude_ctx;
	unsigned threads; /* comparing contents; 0 = 1 */
	/*
	 * What is kept about the whole trees (hard links) may hold this much
	 * memory (0: sqk_spill_default(SQK_SPILL_READ_MOST)), the rest in
	 * temporary files in tmpdir (NULL: $TMPDIR).
	 */
	uint64_t memory;
	const char *tmpdir;
};

struct sqk_diff_stats {
	uint64_t added, removed, changed; /* entries */
	uint64_t bytes_added, bytes_removed;
	uint64_t bytes_changed; /* B's size of the files whose size or contents differ */
	uint64_t files;		/* files whose contents were compared */
	uint64_t blocks_stored; /* blocks and tails found equal by their stored bytes alone */
	uint64_t bytes_read;	/* bytes of contents read (decompressed) and compared, per side */
};

/* Where a comparison failed. */
struct sqk_diff_error {
	int side;	 /* 0: A, 1: B, -1: neither (memory, the sink, a temporary file) */
	char path[4352]; /* "/a/b", or "" */
	int errnum;	 /* SQK_ERR_IO: the errno (an image's: its file's; 0 unknown) */
};

/*
 * Compare a with b into sink. 0 when done (or stopped by the sink), or the
 * first error, with where it happened in *e. *st counts the changes.
 */
int sqk_diff(struct sqk_dtree *a, struct sqk_dtree *b, const struct sqk_diff_conf *o,
	     struct sqk_diff_sink *sink, struct sqk_diff_stats *st, struct sqk_diff_error *e);

#endif
