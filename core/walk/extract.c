// SPDX-License-Identifier: BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cache/cache.h"
#include "dirstack.h"
#include "extract.h"
#include "format/fmt_block.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "read/xattr.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/pool.h"
#include "util/signals.h"
#include "util/xattr_filter.h"
#include "xnode.h"

/* Blocks per worker task: large enough to amortise, small enough to spread a big file. */
#define CHUNK_BLOCKS 16

struct sqk_extract {
	struct sqk_sink sink;
	struct sqk_image *img;
	struct sqk_pool *pool;
	struct sqk_extract_conf o;
	int root_fd;
	int as_root;
	uid_t euid;
	gid_t egid;
	struct chunk *batch;
	unsigned nbatch;
	mode_t old_umask;
	struct sqk_xowner owner;  /* whose entries the destination makes ours */
	struct sqk_dirstack dirs; /* the root, ..., the directory being filled */
	/*
	 * The first name made of each inode with more than one: the image's
	 * inode number to the made file's inode number + 1. A hard link made
	 * later must link to that file and no other.
	 */
	struct sqk_hash made;
	int failed;	      /* sink.fault is filled: the walk stops too */
	pthread_mutex_t lock; /* guards sink.fault and the fields below */
	unsigned warnings;
	/*
	 * --keep-going: files not made whole, removed at the end (err: the
	 * image's, when their data could not be read)...
	 */
	struct undone_file {
		char *path;
		int err;
	} * undone;
	size_t nundone, undone_cap;
	/* ...and the hard links made, whose first name may be one of them. */
	char **links; /* path, link_to, path, link_to, ... */
	size_t nlinks, links_cap;
};

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

struct chunk {
	struct file_job *job;
	uint32_t first, count;
	int tail;
	struct chunk *next; /* in a batch of small chunks */
};

/*
 * Small files go to the workers in batches: one pool task per file would
 * cost more in queueing and wakeups than writing the file does.
 */
#define BATCH_CHUNKS 32

static void warn(struct sqk_extract *x, const char *path, const char *what)
{
	pthread_mutex_lock(&x->lock);
	x->warnings++;
	if (x->o.warn)
		x->o.warn(x->o.warn_ctx, path, what);
	pthread_mutex_unlock(&x->lock);
}

/* "what[ name]: the errno's text", for a call that failed just now. */
static void warn_errno(struct sqk_extract *x, const char *path, const char *what, const char *name)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s%s%s: %s", what, name ? " " : "", name ? name : "",
		 strerror(errno));
	warn(x, path, msg);
}

/*
 * A failure: its story in the sink's fault (the first stays). The walk
 * ends on a callback's; a worker's (stop) ends the extraction as well.
 */
static void fail(struct sqk_extract *x, const char *path, int err, int errnum, int output)
{
	pthread_mutex_lock(&x->lock);
	sqk_fault_set(&x->sink.fault, err, errnum, output, path);
	pthread_mutex_unlock(&x->lock);
}

static void stop(struct sqk_extract *x, const char *path, int err, int errnum, int output)
{
	fail(x, path, err, errnum, output);
	__atomic_store_n(&x->failed, 1, __ATOMIC_RELEASE);
}

/* The workers' failure, once stop() said so (its fault is then filled), or 0. */
static int stopped(struct sqk_extract *x)
{
	return __atomic_load_n(&x->failed, __ATOMIC_ACQUIRE) ? x->sink.fault.err : 0;
}

/* A system call on the destination failed: its errno, its path. */
static int out_fail(struct sqk_extract *x, const char *path)
{
	int e = errno, err = e == EEXIST ? SQK_ERR_EXIST : sqk_err_from_errno();

	fail(x, path, err, e, 1);
	return err;
}

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
		stop(x, job->path, err, 0, 0);
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
		stop(x, job->path, SQK_ERR_NOMEM, 0, 0);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int sqk_remove_tree(int dirfd, const char *name)
{
	return sqk_xnode_remove(dirfd, name) == 0 ? 0 : sqk_err_from_errno();
}

/* Make room for a new entry: with --force whatever is there goes. */
static int clear_way(struct sqk_extract *x, int dirfd, const char *name)
{
	if (!x->o.force)
		return 0;
	return sqk_xnode_remove(dirfd, name);
}

/* held: fd is an O_PATH descriptor (sqk_xnode_hold), for a symlink or a device. */
static void set_xattrs_fd(struct sqk_extract *x, const char *path, int fd, int held,
			  const struct sqk_inode *ino)
{
	struct sqk_xattr *xs;
	uint32_t n, i;
	int err;

	if (x->o.no_xattrs || ino->xattr == SQK_INVALID_XATTR)
		return;
	err = sqk_xattr_read(x->img, ino->xattr, &xs, &n);
	if (err) {
		/* With --keep-going the entry stays, named, without its attributes. */
		if (x->sink.lost && err != SQK_ERR_NOMEM) {
			struct sqk_fault f;

			memset(&f, 0, sizeof(f));
			sqk_fault_set(&f, err, 0, 0, path);
			snprintf(f.what, sizeof(f.what),
				 "its extended attributes cannot be read (%s); made without them",
				 sqk_strerror(err));
			pthread_mutex_lock(&x->lock);
			err = x->sink.lost(x->sink.lost_ctx, &f);
			pthread_mutex_unlock(&x->lock);
		}
		if (err)
			stop(x, path, err, 0, 0);
		return;
	}
	for (i = 0; i < n; i++) {
		int r;

		if (!sqk_xattr_filter_pass(x->o.xattr_filter, xs[i].name))
			continue;
		r = held ? sqk_xnode_setxattr(fd, xs[i].name, xs[i].value, xs[i].value_len)
			 : fsetxattr(fd, xs[i].name, xs[i].value, xs[i].value_len, 0);

		if (r != 0)
			warn_errno(x, path, "cannot set xattr", xs[i].name);
	}
	sqk_xattr_free(xs, n);
}

static mode_t perm_bits(const struct sqk_extract *x, const struct sqk_inode *ino)
{
	mode_t m = ino->mode & 07777;

	/* setuid and setgid only as root, as tar does. */
	if (!x->as_root)
		m &= ~(mode_t)(S_ISUID | S_ISGID);
	return m;
}

/*
 * Whether an entry made now in the directory being filled gets ino's owner
 * by itself: it is ours, in a directory that does not impose its group. Then
 * no chown follows (which would also clear setuid bits).
 */
static int owner_ok(const struct sqk_extract *x, const struct sqk_inode *ino)
{
	return x->o.no_owner ||
	       (ino->uid == x->euid && ino->gid == x->egid && !sqk_dirstack_setgid(&x->dirs));
}

/*
 * Owner, xattrs, mode, then times (last: the others may touch ctime only).
 * owner_ok and mode_ok say the entry was made with the right owner or mode
 * already, so those calls can be skipped.
 */
static void finish_fd(struct sqk_extract *x, const char *path, int fd, const struct sqk_inode *ino,
		      int owner_ok, int mode_ok)
{
	struct timespec ts[2] = {{ino->mtime, 0}, {ino->mtime, 0}};

	if (!owner_ok && !x->o.no_owner && fchown(fd, ino->uid, ino->gid) != 0)
		warn_errno(x, path, "cannot set owner", NULL);
	set_xattrs_fd(x, path, fd, 0, ino);
	if (!mode_ok && fchmod(fd, perm_bits(x, ino)) != 0)
		warn_errno(x, path, "cannot set mode", NULL);
	if (futimens(fd, ts) != 0)
		warn_errno(x, path, "cannot set times", NULL);
}

/* finish_fd for a symlink or a device, through the O_PATH descriptor that holds it. */
static void finish_held(struct sqk_extract *x, const char *path, int fd,
			const struct sqk_inode *ino, int is_link, int owner_ok)
{
	struct timespec ts[2] = {{ino->mtime, 0}, {ino->mtime, 0}};

	if (!owner_ok && sqk_xnode_chown(fd, ino->uid, ino->gid) != 0)
		warn_errno(x, path, "cannot set owner", NULL);
	set_xattrs_fd(x, path, fd, 1, ino);
	if (!is_link && sqk_xnode_chmod(fd, perm_bits(x, ino)) != 0)
		warn_errno(x, path, "cannot set mode", NULL);
	if (sqk_xnode_utimens(fd, ts) != 0)
		warn_errno(x, path, "cannot set times", NULL);
}

/*
 * What was made at path is not there any more: someone who can write to
 * its directory put something else in its place. Whatever it is stays as
 * it is, and the extraction ends.
 */
static int swapped(struct sqk_extract *x, const char *path)
{
	pthread_mutex_lock(&x->lock);
	if (!x->sink.fault.err) {
		sqk_fault_set(&x->sink.fault, SQK_ERR_EXIST, 0, 1, path);
		snprintf(x->sink.fault.what, sizeof(x->sink.fault.what), "%s",
			 "replaced by another file while being extracted; left as it is");
	}
	pthread_mutex_unlock(&x->lock);
	return SQK_ERR_EXIST;
}

/* Hold the entry just made at name (sqk_xnode_hold): 0 and *fd, or the failure, told. */
static int hold(struct sqk_extract *x, const char *path, int dirfd, const char *name, mode_t type,
		dev_t rdev, int *fd)
{
	int err = sqk_xnode_hold(&x->owner, dirfd, name, type, rdev, fd);

	if (err == SQK_ERR_EXIST)
		return swapped(x, path);
	return err ? out_fail(x, path) : 0;
}

/* The first name of an inode with more names: its file, for the links to come. */
static int note_made(struct sqk_extract *x, const struct sqk_inode *ino, int fd)
{
	struct stat st;

	if (ino->nlink == 1)
		return 0;
	if (fstat(fd, &st) != 0)
		return SQK_ERR_IO;
	return sqk_hash_add(&x->made, ino->number, (uint64_t)st.st_ino + 1);
}

/* Whether name under dirfd is the first name made of ino's file (note_made). */
static int is_made(struct sqk_extract *x, int dirfd, const char *name, const struct sqk_inode *ino)
{
	struct sqk_hash_iter it;
	uint64_t want = sqk_hash_first(&x->made, ino->number, &it);
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && want &&
	       (uint64_t)st.st_ino + 1 == want;
}

/*
 * A hard link just made at name, by the name of its first: it must be the
 * file made for that name. One someone else swapped in meanwhile is
 * unlinked again, and the extraction ends.
 */
static int check_link(struct sqk_extract *x, const char *path, int dirfd, const char *name,
		      const struct sqk_inode *ino, const char *link_to)
{
	if (is_made(x, dirfd, name, ino))
		return 0;
	unlinkat(dirfd, name, 0);
	return swapped(x, link_to);
}

/*
 * A write of the file's failed just now: the extraction ends, or with
 * ignore_errors the file is named and removed at the end.
 */
static void write_failed(struct file_job *job)
{
	int e = errno;

	if (job->x->o.ignore_errors) {
		warn_errno(job->x, job->path, "cannot write", NULL);
		return;
	}
	stop(job->x, job->path, sqk_err_from_errno(), e, 1);
}

static void job_put(struct file_job *job)
{
	if (__atomic_sub_fetch(&job->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (!job->failed)
		finish_fd(job->x, job->path, job->fd, &job->ino, job->created_ok, job->created_ok);
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

static void run_one(struct chunk *c)
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
	if (stopped(x))
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
	struct chunk *c = arg, *next;

	for (; c; c = next) {
		next = c->next;
		run_one(c);
	}
}

static void flush_batch(struct sqk_extract *x)
{
	if (!x->batch)
		return;
	sqk_pool_submit(x->pool, run_chunks, x->batch);
	x->batch = NULL;
	x->nbatch = 0;
}

static void submit_chunk(struct sqk_extract *x, struct chunk *c)
{
	c->next = NULL;
	if (c->count > 1) {
		sqk_pool_submit(x->pool, run_chunks, c);
		return;
	}
	c->next = x->batch;
	x->batch = c;
	if (++x->nbatch == BATCH_CHUNKS)
		flush_batch(x);
}

static int submit_file(struct sqk_extract *x, const char *path, int fd, struct sqk_inode *ino,
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
		struct chunk *c = malloc(sizeof(*c));
		uint32_t n = job->ino.nblocks - first;

		if (!c) {
			job->failed = 1;
			stop(x, path, SQK_ERR_NOMEM, 0, 0);
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

static int top(struct sqk_extract *x)
{
	return sqk_dirstack_fd(&x->dirs);
}

/* A failure with a code (errno kept): the destination's errno when it was a system call's. */
static int out_code(struct sqk_extract *x, const char *path, int err)
{
	if (err == SQK_ERR_IO || err == SQK_ERR_NOSPACE || err == SQK_ERR_EXIST)
		return out_fail(x, path);
	fail(x, path, err, 0, 0);
	return err;
}

static int ex_dir_begin(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct sqk_extract *x = (struct sqk_extract *)s;
	const char *name = base_name(path);
	struct stat st;
	int fd = -1, err, made = 0, setgid, own = 0;

	if (stopped(x))
		return stopped(x);
	if (!*path) {
		fd = dup(x->root_fd);
	} else if (mkdirat(top(x), name, 0700) == 0) {
		made = 1;
	} else {
		if (errno != EEXIST || !x->o.force)
			return out_fail(x, path);
		if (fstatat(top(x), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return out_fail(x, path);
		if (S_ISDIR(st.st_mode)) {
			/* One that was there is filled as it is, as tar does. */
			fd = openat(top(x), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		} else if (sqk_xnode_remove(top(x), name) != 0 ||
			   mkdirat(top(x), name, 0700) != 0) {
			return out_fail(x, path);
		} else {
			made = 2; /* made, in place of what was there */
		}
	}
	/* Made here: held before anything goes into it, and checked to be the one made. */
	if (made) {
		err = hold(x, path, top(x), name, S_IFDIR, 0, &fd);
		if (err)
			return err;
	}
	if (fd < 0)
		return out_fail(x, path);
	if (made == 1) {
		/* Made here: it has its parent's setgid bit (Linux), and maybe its owner. */
		setgid = sqk_dirstack_setgid(&x->dirs);
		own = owner_ok(x, ino);
	} else {
		/* The destination, or a directory that was there: it may be setgid. */
		setgid = fstat(fd, &st) != 0 || (st.st_mode & S_ISGID) != 0;
	}
	/* Every directory gets its mode at the end: it stays writable until then. */
	err = sqk_dirstack_push(&x->dirs, fd, *path ? name : NULL, setgid, own);
	if (err) {
		err = out_code(x, path, err);
		close(fd);
	}
	return err;
}

static int ex_dir_end(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct sqk_extract *x = (struct sqk_extract *)s;
	int fd, own, err = sqk_dirstack_pop(&x->dirs, &fd, &own);

	if (err == SQK_ERR_EXIST) {
		/* The directory above, opened again by its name, is another now. */
		char *parent = strndup(path, (size_t)(base_name(path) - path - 1));

		close(fd);
		err = parent ? swapped(x, parent) : out_code(x, path, SQK_ERR_NOMEM);
		free(parent);
		return err;
	}
	if (err) {
		err = out_code(x, path, err);
		close(fd);
		return err;
	}
	finish_fd(x, path, fd, ino, own, 0);
	close(fd);
	return 0;
}

/* Open the directory holding path, beneath the root, following no symlink. */
static int open_parent_beneath(struct sqk_extract *x, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *slash = strrchr(path, '/');
	char *dir;
	long fd;

	if (!slash)
		return dup(x->root_fd);
	dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -1;
	fd = syscall(SYS_openat2, x->root_fd, dir, &how, sizeof(how));
	free(dir);
	return (int)fd;
}

/* --keep-going: a hard link, undone at the end if its first name's data is lost. */
static int note_link(struct sqk_extract *x, const char *path, const char *link_to)
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

/* A symlink or a device just made at name: held, checked, finished through the descriptor. */
static int finish_node(struct sqk_extract *x, const char *path, int dirfd, const char *name,
		       const struct sqk_inode *ino, dev_t dev, int own)
{
	mode_t type = ino->mode & S_IFMT;
	int fd, err = hold(x, path, dirfd, name, type, dev, &fd);

	if (err)
		return err;
	finish_held(x, path, fd, ino, type == S_IFLNK, own);
	err = note_made(x, ino, fd);
	if (err)
		err = out_code(x, path, err);
	close(fd);
	return err;
}

static int ex_node(struct sqk_sink *s, const char *path, struct sqk_inode *ino, const char *link_to)
{
	struct sqk_extract *x = (struct sqk_extract *)s;
	const char *name = base_name(path);
	int dirfd = top(x), fd, own = owner_ok(x, ino);

	/* A worker's failure ends the walk too. */
	if (stopped(x))
		return stopped(x);
	if (clear_way(x, dirfd, name) != 0)
		return out_fail(x, path);
	if (link_to) {
		int src = open_parent_beneath(x, link_to);
		int r;

		if (src < 0)
			return out_fail(x, link_to);
		r = linkat(src, base_name(link_to), dirfd, name, 0);
		if (r != 0) {
			/* The file's last name went as it was being linked: one swapped over it. */
			r = errno == ENOENT && !is_made(x, src, base_name(link_to), ino)
				    ? swapped(x, link_to)
				    : out_fail(x, path);
			close(src);
			return r;
		}
		close(src);
		r = check_link(x, path, dirfd, name, ino, link_to);
		if (r)
			return r;
		return x->sink.lost ? note_link(x, path, link_to) : 0;
	}
	switch (ino->mode & S_IFMT) {
	case S_IFREG: {
		/*
		 * Created with its final mode (the umask is 0 while extracting)
		 * when no owner change follows: a chown would clear setuid bits.
		 */
		mode_t mode = own ? perm_bits(x, ino) : 0600;

		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd < 0)
			return out_fail(x, path);
		int err = note_made(x, ino, fd);

		if (err) {
			err = out_code(x, path, err);
			close(fd);
			return err;
		}
		/* Trailing sparse blocks leave no writes behind: set the size. */
		if (ino->nblocks && ino->frag_index == SQK_INVALID_FRAG &&
		    sqk_fmt_block_size(ino->blocks[ino->nblocks - 1]) == 0 &&
		    ftruncate(fd, (off_t)ino->size) != 0) {
			int err = out_fail(x, path);

			close(fd);
			return err;
		}
		return submit_file(x, path, fd, ino, own);
	}
	case S_IFLNK:
		if (symlinkat(ino->target, dirfd, name) != 0)
			return out_fail(x, path);
		return finish_node(x, path, dirfd, name, ino, 0, own);
	default: {
		dev_t dev = makedev(sqk_dev_major(ino->rdev), sqk_dev_minor(ino->rdev));

		if (mknodat(dirfd, name, (ino->mode & S_IFMT) | 0600, dev) != 0) {
			/* Only root makes devices: as tar, a warning (the run fails at the end). */
			if (errno != EPERM)
				return out_fail(x, path);
			warn(x, path, strerror(errno));
			return 0;
		}
		return finish_node(x, path, dirfd, name, ino, dev, own);
	}
	}
}

int sqk_extract_create(struct sqk_image *img, struct sqk_pool *pool, int dest_fd,
		       const struct sqk_extract_conf *opts, struct sqk_extract **out)
{
	struct sqk_extract *x = calloc(1, sizeof(*x));

	if (!x)
		return SQK_ERR_NOMEM;
	x->sink.dir_begin = ex_dir_begin;
	x->sink.dir_end = ex_dir_end;
	x->sink.node = ex_node;
	x->img = img;
	x->pool = pool;
	x->o = *opts;
	x->root_fd = dest_fd;
	x->dirs.root_fd = dest_fd;
	x->as_root = geteuid() == 0;
	x->euid = geteuid();
	x->owner.euid = x->euid;
	/* Entries are created with their final modes; restored on destroy. */
	x->old_umask = umask(0);
	x->egid = getegid();
	if (!x->as_root)
		x->o.no_owner = 1;
	pthread_mutex_init(&x->lock, NULL);
	*out = x;
	return 0;
}

struct sqk_sink *sqk_extract_sink(struct sqk_extract *x)
{
	return &x->sink;
}

int sqk_extract_pass_over(struct sqk_extract *x, struct sqk_fault *f)
{
	int err = 0;

	pthread_mutex_lock(&x->lock);
	*f = x->sink.fault;
	if (__atomic_load_n(&x->failed, __ATOMIC_ACQUIRE))
		err = f->err;
	else
		memset(&x->sink.fault, 0, sizeof(x->sink.fault));
	pthread_mutex_unlock(&x->lock);
	return err;
}

/* Remove the file at path (beneath the root), never following a symlink. */
static void remove_undone(struct sqk_extract *x, const char *path)
{
	int dirfd = open_parent_beneath(x, path);

	if (dirfd < 0 || (unlinkat(dirfd, base_name(path), 0) != 0 && errno != ENOENT))
		out_fail(x, path);
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
static void drop_undone(struct sqk_extract *x)
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

int sqk_extract_finish(struct sqk_extract *x, unsigned *warnings)
{
	flush_batch(x);
	sqk_pool_wait(x->pool);
	sqk_dirstack_release(&x->dirs);
	drop_undone(x);
	*warnings = x->warnings;
	return x->sink.fault.err;
}

void sqk_extract_destroy(struct sqk_extract *x)
{
	size_t i;

	if (!x)
		return;
	umask(x->old_umask);
	sqk_dirstack_release(&x->dirs);
	sqk_hash_release(&x->made);
	pthread_mutex_destroy(&x->lock);
	for (i = 0; i < x->nundone; i++)
		free(x->undone[i].path);
	for (i = 0; i < x->nlinks; i++)
		free(x->links[i]);
	free(x->undone);
	free(x->links);
	free(x);
}
