// SPDX-License-Identifier: GPL-2.0-or-later
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

#include "cache.h"
#include "data.h"
#include "dirstack.h"
#include "error.h"
#include "extract.h"
#include "format.h"
#include "image.h"
#include "pool.h"
#include "xattr.h"
#include "xattr_filter.h"

/* Blocks per worker task: large enough to amortise, small enough to spread a big file. */
#define CHUNK_BLOCKS 16

struct sqk_extract {
	struct sqk_sink sink;
	struct sqk_image *img;
	struct sqk_pool *pool;
	struct sqk_extract_opts o;
	int root_fd;
	int as_root;
	uid_t euid;
	gid_t egid;
	struct chunk *batch;
	unsigned nbatch;
	mode_t old_umask;
	struct sqk_dirstack dirs; /* the root, ..., the directory being filled */
	pthread_mutex_t lock;	  /* guards the fields below, written by workers */
	int error;
	char error_path[4352];
	unsigned warnings;
};

struct file_job {
	struct sqk_extract *x;
	int fd;
	int refs;
	int failed;
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

static void fail(struct sqk_extract *x, const char *path, int err)
{
	pthread_mutex_lock(&x->lock);
	if (!x->error) {
		x->error = err;
		snprintf(x->error_path, sizeof(x->error_path), "/%s", path);
	}
	pthread_mutex_unlock(&x->lock);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Remove name under dirfd, whatever it is, never following a symlink. */
static int remove_at(int dirfd, const char *name)
{
	struct dirent *d;
	DIR *dir;
	int fd;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -1;
	}
	while ((d = readdir(dir))) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (remove_at(fd, d->d_name) != 0) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

int sqk_remove_tree(int dirfd, const char *name)
{
	return remove_at(dirfd, name) == 0 ? 0 : sqk_err_from_errno();
}

/* Make room for a new entry: with --force whatever is there goes. */
static int clear_way(struct sqk_extract *x, int dirfd, const char *name)
{
	if (!x->o.force)
		return 0;
	return remove_at(dirfd, name);
}

static void set_xattrs_fd(struct sqk_extract *x, const char *path, int fd, const char *name,
			  const struct sqk_inode *ino)
{
	struct sqk_xattr *xs;
	uint32_t n, i;
	char proc[64 + SQK_NAME_MAX_BUF];
	int err;

	if (x->o.no_xattrs || ino->xattr == SQK_INVALID_XATTR)
		return;
	err = sqk_xattr_read(x->img, ino->xattr, &xs, &n);
	if (err) {
		fail(x, path, err);
		return;
	}
	/* No descriptor for symlinks and devices: go through /proc, not following. */
	if (name)
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", fd, name);
	for (i = 0; i < n; i++) {
		int r;

		if (!sqk_xattr_filter_pass(x->o.xattr_filter, xs[i].name))
			continue;
		r = name ? lsetxattr(proc, xs[i].name, xs[i].value, xs[i].value_len, 0)
			 : fsetxattr(fd, xs[i].name, xs[i].value, xs[i].value_len, 0);

		if (r != 0) {
			char msg[512];

			snprintf(msg, sizeof(msg), "cannot set xattr %s: %s", xs[i].name,
				 strerror(errno));
			warn(x, path, msg);
		}
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
		warn(x, path, "cannot set owner");
	set_xattrs_fd(x, path, fd, NULL, ino);
	if (!mode_ok && fchmod(fd, perm_bits(x, ino)) != 0)
		warn(x, path, "cannot set mode");
	if (futimens(fd, ts) != 0)
		warn(x, path, "cannot set times");
}

static void finish_at(struct sqk_extract *x, const char *path, int dirfd, const char *name,
		      const struct sqk_inode *ino, int is_link, int owner_ok)
{
	struct timespec ts[2] = {{ino->mtime, 0}, {ino->mtime, 0}};

	if (!owner_ok && fchownat(dirfd, name, ino->uid, ino->gid, AT_SYMLINK_NOFOLLOW) != 0)
		warn(x, path, "cannot set owner");
	set_xattrs_fd(x, path, dirfd, name, ino);
	if (!is_link && fchmodat(dirfd, name, perm_bits(x, ino), 0) != 0)
		warn(x, path, "cannot set mode");
	if (utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW) != 0)
		warn(x, path, "cannot set times");
}

static void job_put(struct file_job *job)
{
	if (__atomic_sub_fetch(&job->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (!job->failed)
		finish_fd(job->x, job->path, job->fd, &job->ino, job->created_ok, job->created_ok);
	if (close(job->fd) != 0 && !job->failed)
		fail(job->x, job->path, sqk_err_from_errno());
	sqk_inode_free(&job->ino);
	free(job);
}

static int write_all(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sqk_err_from_errno();
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static void run_one(struct chunk *c)
{
	struct file_job *job = c->job;
	struct sqk_image *img = job->x->img;
	uint32_t bs = sqk_image_super(img)->block_size;
	struct sqk_data_cursor cur;
	struct sqk_cache_entry *e;
	uint32_t i, len;
	int err = 0;

	if (__atomic_load_n(&job->failed, __ATOMIC_RELAXED) || job->x->error)
		goto out;
	sqk_data_begin(&cur, &job->ino);
	err = sqk_data_seek(&cur, c->first);
	for (i = 0; !err && i < c->count; i++) {
		uint64_t off = (uint64_t)(c->first + i) * bs;

		err = sqk_data_next(img, &cur, &e, &len);
		if (!err && e)
			err = write_all(job->fd, e->data, len, off);
		sqk_cache_put(e);
	}
	if (!err && c->tail) {
		const uint8_t *tail;

		err = sqk_data_tail(img, &job->ino, &e, &tail, &len);
		if (!err && e)
			err = write_all(job->fd, tail, len, (uint64_t)job->ino.nblocks * bs);
		sqk_cache_put(e);
	}
	if (err) {
		__atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
		fail(job->x, job->path, err);
	}
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
			fail(x, path, SQK_ERR_NOMEM);
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

static int ex_dir_begin(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct sqk_extract *x = (struct sqk_extract *)s;
	const char *name = base_name(path);
	struct stat st;
	int fd, err, made = 0, setgid, own = 0;

	if (!*path) {
		fd = dup(x->root_fd);
	} else if (mkdirat(top(x), name, 0700) == 0) {
		made = 1;
		fd = openat(top(x), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else {
		if (errno != EEXIST || !x->o.force)
			return errno == EEXIST ? SQK_ERR_EXIST : sqk_err_from_errno();
		if (fstatat(top(x), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return sqk_err_from_errno();
		if (!S_ISDIR(st.st_mode) &&
		    (remove_at(top(x), name) != 0 || mkdirat(top(x), name, 0700) != 0))
			return sqk_err_from_errno();
		fd = openat(top(x), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return sqk_err_from_errno();
	if (made) {
		/* Made here: it has its parent's setgid bit (Linux), and maybe its owner. */
		setgid = sqk_dirstack_setgid(&x->dirs);
		own = owner_ok(x, ino);
	} else {
		/* The destination, or a directory that was there: it may be setgid. */
		setgid = fstat(fd, &st) != 0 || (st.st_mode & S_ISGID) != 0;
	}
	/* Every directory gets its mode at the end: it stays writable until then. */
	err = sqk_dirstack_push(&x->dirs, fd, *path ? name : NULL, setgid, own);
	if (err)
		close(fd);
	return err;
}

static int ex_dir_end(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct sqk_extract *x = (struct sqk_extract *)s;
	int fd, own, err = sqk_dirstack_pop(&x->dirs, &fd, &own);

	finish_fd(x, path, fd, ino, own, 0);
	close(fd);
	return err;
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

static int ex_node(struct sqk_sink *s, const char *path, struct sqk_inode *ino, const char *link_to)
{
	struct sqk_extract *x = (struct sqk_extract *)s;
	const char *name = base_name(path);
	int dirfd = top(x), fd, own = owner_ok(x, ino);

	if (clear_way(x, dirfd, name) != 0)
		return sqk_err_from_errno();
	if (link_to) {
		int src = open_parent_beneath(x, link_to);
		int r;

		if (src < 0)
			return sqk_err_from_errno();
		r = linkat(src, base_name(link_to), dirfd, name, 0);
		close(src);
		return r == 0 ? 0 : (errno == EEXIST ? SQK_ERR_EXIST : sqk_err_from_errno());
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
			return errno == EEXIST ? SQK_ERR_EXIST : sqk_err_from_errno();
		/* Trailing sparse blocks leave no writes behind: set the size. */
		if (ino->nblocks && ino->frag_index == SQK_INVALID_FRAG &&
		    (ino->blocks[ino->nblocks - 1] & SQK_BLOCK_SIZE_MASK) == 0 &&
		    ftruncate(fd, (off_t)ino->size) != 0) {
			close(fd);
			return sqk_err_from_errno();
		}
		return submit_file(x, path, fd, ino, own);
	}
	case S_IFLNK:
		if (symlinkat(ino->target, dirfd, name) != 0)
			return errno == EEXIST ? SQK_ERR_EXIST : sqk_err_from_errno();
		finish_at(x, path, dirfd, name, ino, 1, own);
		return 0;
	default: {
		dev_t dev = makedev(sqk_dev_major(ino->rdev), sqk_dev_minor(ino->rdev));

		if (mknodat(dirfd, name, (ino->mode & S_IFMT) | 0600, dev) != 0) {
			if (errno == EEXIST)
				return SQK_ERR_EXIST;
			warn(x, path, strerror(errno));
			return 0;
		}
		finish_at(x, path, dirfd, name, ino, 0, own);
		return 0;
	}
	}
}

int sqk_extract_create(struct sqk_image *img, struct sqk_pool *pool, int dest_fd,
		       const struct sqk_extract_opts *opts, struct sqk_extract **out)
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

int sqk_extract_finish(struct sqk_extract *x, char *err_path, size_t len, unsigned *warnings)
{
	flush_batch(x);
	sqk_pool_wait(x->pool);
	sqk_dirstack_release(&x->dirs);
	if (x->error && err_path)
		snprintf(err_path, len, "%s", x->error_path);
	*warnings = x->warnings;
	return x->error;
}

void sqk_extract_destroy(struct sqk_extract *x)
{
	if (!x)
		return;
	umask(x->old_umask);
	sqk_dirstack_release(&x->dirs);
	pthread_mutex_destroy(&x->lock);
	free(x);
}
