// SPDX-License-Identifier: BSD-2-Clause
/*
 * The directory sink's file data (extract_int.h): a file's blocks written
 * by the pool's workers, a chunk of blocks per task and small files in
 * batches, the file finished by the last chunk; and with --keep-going, the
 * files not made whole, removed at the end with their hard links.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/cache.h"
#include "extract_int.h"
#include "read/data.h"
#include "read/image.h"
#include "util/array.h"
#include "util/error.h"
#include "util/pool.h"
#include "util/signals.h"

/* Blocks per worker task: large enough to amortise, small enough to spread a big file. */
#define CHUNK_BLOCKS 16

struct file_job {
	struct sqk_extract *x;
	int fd;
	int refs;
	int failed;	/* not made whole: its data could not be read, or the run stopped */
	int lost_err;	/* the image's error when its data could not be read */
	int created_ok; /* owner and mode were right at creation */
	struct sqk_inode ino;
	char path[];
};

struct sqk_ex_chunk {
	struct file_job *job;
	uint32_t first, count;
	int tail;
	struct sqk_ex_chunk *next; /* in a batch of small chunks */
};

/*
 * Small files go to the workers in batches: one pool task per file would
 * cost more in queueing and wakeups than writing the file does.
 */
#define BATCH_CHUNKS 32

/*
 * A file whose data could not be read. With --keep-going it is reported
 * (and removed at the end); otherwise the extraction stops.
 */
static void data_lost(struct sqk_extract *x, struct file_job *job, int err)
{
	struct sqk_fault f;

	if (x->sink.lost && err != SQK_ERR_NOMEM && err != SQK_ERR_INTR) {
		job->lost_err = err;
		memset(&f, 0, sizeof(f));
		sqk_fault_set(&f, err, 0, 0, job->path);
		pthread_mutex_lock(&x->lock);
		err = x->sink.lost(x->sink.lost_ctx, &f);
		pthread_mutex_unlock(&x->lock);
	}
	if (err)
		sqk_ex_stop(x, job->path, err, 0, 0);
}

/* --keep-going: a file not made whole, for sqk_extract_finish to remove. */
static void undone(struct sqk_extract *x, struct file_job *job)
{
	char *copy = strdup(job->path);

	pthread_mutex_lock(&x->lock);
	if (copy && !SQK_ARRAY_GROW(x->undone, x->undone_cap, x->nundone + 1)) {
		x->undone[x->nundone].path = copy;
		x->undone[x->nundone++].err = job->lost_err;
		copy = NULL;
	}
	pthread_mutex_unlock(&x->lock);
	if (copy)
		sqk_ex_stop(x, job->path, SQK_ERR_NOMEM, 0, 0);
}

/*
 * A write of the file's failed just now: the extraction ends, or with
 * ignore_errors the file is named and removed at the end.
 */
static void write_failed(struct file_job *job)
{
	int e = errno;

	if (job->x->o.ignore_errors) {
		sqk_ex_warn_errno(job->x, job->path, "cannot write", NULL);
		return;
	}
	sqk_ex_stop(job->x, job->path, sqk_err_from_errno(), e, 1);
}

static void job_put(struct file_job *job)
{
	if (__atomic_sub_fetch(&job->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (!job->failed)
		sqk_ex_finish(job->x, job->path, job->fd, 0, &job->ino, job->created_ok,
			      job->created_ok);
	/* A file system may report a failed write only now (NFS). */
	if (close(job->fd) != 0 && !job->failed) {
		write_failed(job);
		job->failed = 1;
	}
	if (job->failed && (job->x->sink.lost || job->x->o.ignore_errors))
		undone(job->x, job);
	sqk_inode_free(&job->ino);
	free(job);
}

static void run_one(struct sqk_ex_chunk *c)
{
	struct file_job *job = c->job;
	struct sqk_extract *x = job->x;
	struct sqk_image *img = x->img;
	uint32_t bs = sqk_image_super(img)->block_size;
	struct sqk_data_cursor cur;
	struct sqk_cache_entry *e;
	const uint8_t *tail;
	uint32_t i, len;
	int err = 0;

	/* Once the run has failed, no file is finished. */
	if (sqk_ex_stopped(x))
		__atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&job->failed, __ATOMIC_RELAXED))
		goto out;
	if (sqk_sig_caught()) {
		err = SQK_ERR_INTR;
		goto failed;
	}
	sqk_data_begin(&cur, &job->ino);
	err = sqk_data_seek(&cur, c->first);
	for (i = 0; !err && i < c->count; i++) {
		uint64_t off = (uint64_t)(c->first + i) * bs;

		err = sqk_data_next(img, &cur, &e, &len);
		if (!err && e && sqk_write_full(job->fd, e->data, len, off) != 0) {
			sqk_cache_put(e);
			goto write_failed;
		}
		sqk_cache_put(e);
	}
	if (!err && c->tail) {
		err = sqk_data_tail(img, &job->ino, &e, &tail, &len);
		if (!err && e &&
		    sqk_write_full(job->fd, tail, len, (uint64_t)job->ino.nblocks * bs) != 0) {
			sqk_cache_put(e);
			goto write_failed;
		}
		sqk_cache_put(e);
	}
	if (!err)
		goto out;
failed:
	/* Only one chunk of a file reports it. */
	if (!__atomic_exchange_n(&job->failed, 1, __ATOMIC_RELAXED))
		data_lost(x, job, err);
	goto out;
write_failed:
	__atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
	write_failed(job);
out:
	job_put(job);
	free(c);
}

static void run_chunks(void *arg, unsigned worker)
{
	struct sqk_ex_chunk *c = arg, *next;

	for (; c; c = next) {
		next = c->next;
		run_one(c);
	}
}

void sqk_ex_flush_batch(struct sqk_extract *x)
{
	if (!x->batch)
		return;
	sqk_pool_submit(x->pool, run_chunks, x->batch);
	x->batch = NULL;
	x->nbatch = 0;
}

static void submit_chunk(struct sqk_extract *x, struct sqk_ex_chunk *c)
{
	c->next = NULL;
	if (c->count > 1) {
		sqk_pool_submit(x->pool, run_chunks, c);
		return;
	}
	c->next = x->batch;
	x->batch = c;
	if (++x->nbatch == BATCH_CHUNKS)
		sqk_ex_flush_batch(x);
}

int sqk_ex_submit_file(struct sqk_extract *x, const char *path, int fd, struct sqk_inode *ino,
		       int created_ok)
{
	size_t plen = strlen(path);
	struct file_job *job = malloc(sizeof(*job) + plen + 1);
	uint32_t first = 0;
	int has_tail = ino->frag_index != SQK_INVALID_FRAG;

	if (!job) {
		close(fd);
		return SQK_ERR_NOMEM;
	}
	job->x = x;
	job->fd = fd;
	job->refs = 1; /* ours, until every chunk is queued */
	job->failed = 0;
	job->lost_err = 0;
	job->created_ok = created_ok;
	job->ino = *ino;
	memcpy(job->path, path, plen + 1);
	ino->blocks = NULL; /* the job owns the block list now */
	if (job->ino.nblocks == 0 && !has_tail) {
		/* Empty: nothing for a worker to write; finished here. */
		job_put(job);
		return 0;
	}
	do {
		struct sqk_ex_chunk *c = malloc(sizeof(*c));
		uint32_t n = job->ino.nblocks - first;

		if (!c) {
			job->failed = 1;
			sqk_ex_stop(x, path, SQK_ERR_NOMEM, 0, 0);
			break;
		}
		if (n > CHUNK_BLOCKS)
			n = CHUNK_BLOCKS;
		c->job = job;
		c->first = first;
		c->count = n;
		c->tail = has_tail && first + n == job->ino.nblocks;
		first += n;
		__atomic_add_fetch(&job->refs, 1, __ATOMIC_ACQ_REL);
		submit_chunk(x, c);
	} while (first < job->ino.nblocks);
	job_put(job);
	return 0;
}

/* --keep-going: a hard link, undone at the end if its first name's data is lost. */
int sqk_ex_note_link(struct sqk_extract *x, const char *path, const char *link_to)
{
	char *a = strdup(path), *b = strdup(link_to);

	if (!a || !b || SQK_ARRAY_GROW(x->links, x->links_cap, x->nlinks + 2)) {
		free(a);
		free(b);
		return SQK_ERR_NOMEM;
	}
	x->links[x->nlinks++] = a;
	x->links[x->nlinks++] = b;
	return 0;
}

/* Remove the file at path (beneath the root), never following a symlink. */
static void remove_undone(struct sqk_extract *x, const char *path)
{
	int dirfd = sqk_ex_open_parent(x, path);

	if (dirfd < 0 || (unlinkat(dirfd, sqk_ex_base(path), 0) != 0 && errno != ENOENT))
		sqk_ex_out_fail(x, path);
	if (dirfd >= 0)
		close(dirfd);
}

static int is_undone(const struct sqk_extract *x, const char *path, int *err)
{
	for (size_t i = 0; i < x->nundone; i++)
		if (strcmp(x->undone[i].path, path) == 0) {
			*err = x->undone[i].err;
			return 1;
		}
	return 0;
}

/*
 * --keep-going, once the workers are done: the files not made whole go,
 * and so do the hard links to them; a link to a file whose data could not
 * be read is reported as that file was.
 */
void sqk_ex_drop_undone(struct sqk_extract *x)
{
	struct sqk_fault f;
	size_t i;
	int err;

	for (i = 0; x->nundone && i < x->nlinks; i += 2) {
		if (!is_undone(x, x->links[i + 1], &err))
			continue;
		remove_undone(x, x->links[i]);
		if (err) {
			memset(&f, 0, sizeof(f));
			sqk_fault_set(&f, err, 0, 0, x->links[i]);
			(void)x->sink.lost(x->sink.lost_ctx, &f);
		}
	}
	for (i = 0; i < x->nundone; i++)
		remove_undone(x, x->undone[i].path);
}
