/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DIFF_INT_H
#define SQK_DIFF_INT_H

/*
 * Inside the comparison: the walk (diff.c) meets entries and compares
 * their attributes (diff_attr.c), the superblocks (diff_super.c) and the
 * contents of files (diff_data.c, on the pool); changes go through the
 * queue (diff_queue.c), which holds those that come after a file still
 * being compared, so that the sink sees them in the order of the tree.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "diff.h"
#include "dtree.h"
#include "util/hash.h"
#include "util/store.h"

struct sqk_pool;
struct diff_item;
struct diff_job;
struct diff_batch;

/*
 * The hard-linked entries of one side met so far: who they are -> their
 * first path, in stores within the comparison's budget (diff_attr.c).
 */
struct diff_links {
	struct sqk_store_hash by_id; /* link key -> offset + 1 of the first record with it */
	struct sqk_store *recs;	     /* dev, ino, the next record with the key, path */
	uint64_t end;
	char *path; /* the path read back last */
	size_t cap;
};

struct diff {
	struct sqk_dtree *t[2];
	const struct sqk_diff_conf *o;
	struct sqk_diff_sink *sink;
	struct sqk_diff_stats *st;
	struct sqk_diff_error *e;
	int failed; /* *e holds the first error */

	/* The entry being compared: "/a/b", or "" for the root. */
	char *path;
	size_t path_cap;
	struct sqk_spill budget; /* of the stores the comparison keeps */
	struct diff_links links[2];

	/* The queue: changes behind a file being compared (diff_queue.c). */
	struct diff_item *head, *tail;
	unsigned items, jobs;
	char *last; /* the last entry counted as changed */
	size_t last_cap;

	/* Contents (diff_data.c). */
	struct sqk_pool *pool;
	unsigned threads;
	int sync; /* lock and done are set up */
	pthread_mutex_t lock;
	pthread_cond_t done; /* a job's last chunk finished */
	int cancel;	     /* under lock: workers skip what is left */
	struct diff_batch *batch;
	int raw; /* two images whose blocks compare by their stored bytes */
	uint32_t block_size;
	uint8_t **wbuf;	       /* per worker: two buffers of DIFF_CHUNK bytes */
	struct sqk_hash frags; /* under lock: fragment pairs seen, (a << 32 | b) -> 1 same, 2 not */
	uint64_t files, blocks_stored, bytes_read; /* under lock */
};

/* The entry's path as changes name it ("/" for the root). */
static inline const char *diff_path(const struct diff *d)
{
	return d->path[0] ? d->path : "/";
}

/* One side's way down to a selected path (diff_path.c): the directories entered, root first. */
struct diff_path_level {
	struct sqk_dnode node;
};

struct diff_side_path {
	struct sqk_dtree *t;
	struct diff_path_level *lv;
	size_t depth, cap;
	struct sqk_dnode child; /* the entry looked up last: in the end, what the path names */
	int have_child;
};

/*
 * Resolve path ("a/b", a trailing "/" follows a last symlink) in t, which
 * is left in the parent of what it names, for the walk to go on from:
 * *out, or NULL when this side has no such entry. 0 or the tree's error
 * (SQK_ERR_LOOP: too many symlinks). sqk_diff_path_close() in every case.
 */
int sqk_diff_path_open(struct diff_side_path *p, struct sqk_dtree *t, const char *path,
		       struct sqk_dnode **out);
void sqk_diff_path_close(struct diff_side_path *p);

/* Record the first error, where it happened (the current path) and errno; return err. */
int sqk_diff_fail(struct diff *d, int side, int err);
/* The same for a store's failure: a temporary file's is told with its directory. */
int sqk_diff_store_fail(struct diff *d, int err);

/* diff_attr.c: every change between two entries found on both sides. */
int sqk_diff_nodes(struct diff *d, struct sqk_dnode *a, struct sqk_dnode *b);
void sqk_diff_links_release(struct diff_links *l);

/* diff_super.c */
int sqk_diff_super(struct diff *d);

/* diff_queue.c: a change, delivered now or queued; 1 when the sink said stop. */
int sqk_diff_emit(struct diff *d, const struct sqk_diff_change *c);
/* Hold the changes that follow until job is done; it then gives the CONTENTS change. */
int sqk_diff_emit_job(struct diff *d, struct diff_job *job, uint64_t size);
/*
 * Deliver what is ready. wait: 0, only that; 1, wait while the queue is
 * over its bounds; 2, wait for everything.
 */
int sqk_diff_drain(struct diff *d, int wait);
void sqk_diff_queue_release(struct diff *d);

/* Bytes a chunk covers: a multiple of every block size. */
#define DIFF_CHUNK (1u << 20)

/* A file whose contents are being compared. */
struct diff_job {
	struct sqk_dfile *f[2];
	uint64_t size;
	/* Under the lock: */
	unsigned left;	/* chunks not finished */
	uint64_t first; /* the first byte found to differ; UINT64_MAX: none */
	int err, side, errnum;
};

/* One chunk's comparison, in a worker. */
struct diff_cmp {
	struct diff *d;
	struct diff_job *j;
	uint8_t *a, *b; /* DIFF_CHUNK bytes each */
	uint64_t at;	/* the first byte that differs */
	int side;	/* the side that failed */
	uint64_t stored, read;
};

/* diff_chunk.c: 0 the same, 1 with x->at, or an error with x->side. */
int sqk_diff_chunk_plain(struct diff_cmp *x, uint64_t off, size_t len);
int sqk_diff_chunk_stored(struct diff_cmp *x, uint64_t off, uint32_t len);

/* diff_data.c */
int sqk_diff_data_start(struct diff *d);
/* Compare the contents of two files of the same size, on the pool. */
int sqk_diff_contents(struct diff *d, struct sqk_dnode *a, struct sqk_dnode *b);
/* Give the workers the chunks held back for a batch. */
int sqk_diff_data_flush(struct diff *d);
/*
 * Is the job done (1) or not (0)? With wait, wait for it: its chunks held
 * back go to the workers first (an error when they cannot).
 */
int sqk_diff_job_done(struct diff *d, struct diff_job *j, int wait);
/*
 * A done job's outcome: 0, 1 with *offset when the files differ, or the
 * error with its side (and errno set).
 */
int sqk_diff_job_result(struct diff_job *j, uint64_t *offset, int *side);
void sqk_diff_job_free(struct diff_job *j);
/* Wait for the workers (cancel: let them skip what is left) and free what they used. */
void sqk_diff_data_stop(struct diff *d, int cancel);

#endif
