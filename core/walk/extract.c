// SPDX-License-Identifier: BSD-2-Clause
/*
 * The directory sink (extract.h): directories, files, symlinks, devices
 * and hard links made relative to the directories' descriptors, each
 * held by a descriptor once made (xnode.h); file data goes to the
 * workers (extract_data.c), attributes are set by extract_attr.c.
 */
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
#include <unistd.h>

#include "extract_int.h"
#include "format/fmt_block.h"
#include "format/format.h"
#include "read/image.h"
#include "util/error.h"
#include "util/pool.h"
#include "xnode.h"

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
	return err ? sqk_ex_out_fail(x, path) : 0;
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

static int top(struct sqk_extract *x)
{
	return sqk_dirstack_fd(&x->dirs);
}

static int ex_dir_begin(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct sqk_extract *x = (struct sqk_extract *)s;
	const char *name = sqk_ex_base(path);
	struct stat st;
	int fd = -1, err, made = 0, setgid, own = 0;

	if (sqk_ex_stopped(x))
		return sqk_ex_stopped(x);
	if (!*path) {
		fd = dup(x->root_fd);
	} else if (mkdirat(top(x), name, 0700) == 0) {
		made = 1;
	} else {
		if (errno != EEXIST || !x->o.force)
			return sqk_ex_out_fail(x, path);
		if (fstatat(top(x), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return sqk_ex_out_fail(x, path);
		if (S_ISDIR(st.st_mode)) {
			/* One that was there is filled as it is, as tar does. */
			fd = openat(top(x), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		} else if (sqk_xnode_remove(top(x), name) != 0 ||
			   mkdirat(top(x), name, 0700) != 0) {
			return sqk_ex_out_fail(x, path);
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
		return sqk_ex_out_fail(x, path);
	if (made == 1) {
		/* Made here: it has its parent's setgid bit (Linux), and maybe its owner. */
		setgid = sqk_dirstack_setgid(&x->dirs);
		own = sqk_ex_owner_ok(x, ino);
	} else {
		/* The destination, or a directory that was there: it may be setgid. */
		setgid = fstat(fd, &st) != 0 || (st.st_mode & S_ISGID) != 0;
	}
	/* Every directory gets its mode at the end: it stays writable until then. */
	err = sqk_dirstack_push(&x->dirs, fd, *path ? name : NULL, setgid, own);
	if (err) {
		err = sqk_ex_out_code(x, path, err);
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
		char *parent = strndup(path, (size_t)(sqk_ex_base(path) - path - 1));

		close(fd);
		err = parent ? swapped(x, parent) : sqk_ex_out_code(x, path, SQK_ERR_NOMEM);
		free(parent);
		return err;
	}
	if (err) {
		err = sqk_ex_out_code(x, path, err);
		close(fd);
		return err;
	}
	sqk_ex_finish(x, path, fd, 0, ino, own, 0);
	close(fd);
	return 0;
}

/* Open the directory holding path, beneath the root, following no symlink. */
int sqk_ex_open_parent(struct sqk_extract *x, const char *path)
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

/* A symlink or a device just made at name: held, checked, finished through the descriptor. */
static int finish_node(struct sqk_extract *x, const char *path, int dirfd, const char *name,
		       const struct sqk_inode *ino, dev_t dev, int own)
{
	mode_t type = ino->mode & S_IFMT;
	int fd, err = hold(x, path, dirfd, name, type, dev, &fd);

	if (err)
		return err;
	sqk_ex_finish(x, path, fd, 1, ino, own, type == S_IFLNK);
	err = note_made(x, ino, fd);
	if (err)
		err = sqk_ex_out_code(x, path, err);
	close(fd);
	return err;
}

static int ex_node(struct sqk_sink *s, const char *path, struct sqk_inode *ino, const char *link_to)
{
	struct sqk_extract *x = (struct sqk_extract *)s;
	const char *name = sqk_ex_base(path);
	int dirfd = top(x), fd, own = sqk_ex_owner_ok(x, ino);

	/* A worker's failure ends the walk too. */
	if (sqk_ex_stopped(x))
		return sqk_ex_stopped(x);
	if (clear_way(x, dirfd, name) != 0)
		return sqk_ex_out_fail(x, path);
	if (link_to) {
		int src = sqk_ex_open_parent(x, link_to);
		int r;

		if (src < 0)
			return sqk_ex_out_fail(x, link_to);
		r = linkat(src, sqk_ex_base(link_to), dirfd, name, 0);
		if (r != 0) {
			/* The file's last name went as it was being linked: one swapped over it. */
			r = errno == ENOENT && !is_made(x, src, sqk_ex_base(link_to), ino)
				    ? swapped(x, link_to)
				    : sqk_ex_out_fail(x, path);
			close(src);
			return r;
		}
		close(src);
		r = check_link(x, path, dirfd, name, ino, link_to);
		if (r)
			return r;
		return x->sink.lost ? sqk_ex_note_link(x, path, link_to) : 0;
	}
	switch (ino->mode & S_IFMT) {
	case S_IFREG: {
		/*
		 * Created with its final mode (the umask is 0 while extracting)
		 * when no owner change follows: a chown would clear setuid bits.
		 */
		mode_t mode = own ? sqk_ex_perm_bits(x, ino) : 0600;

		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd < 0)
			return sqk_ex_out_fail(x, path);
		int err = note_made(x, ino, fd);

		if (err) {
			err = sqk_ex_out_code(x, path, err);
			close(fd);
			return err;
		}
		/* Trailing sparse blocks leave no writes behind: set the size. */
		if (ino->nblocks && ino->frag_index == SQK_INVALID_FRAG &&
		    sqk_fmt_block_size(ino->blocks[ino->nblocks - 1]) == 0 &&
		    ftruncate(fd, (off_t)ino->size) != 0) {
			int err = sqk_ex_out_fail(x, path);

			close(fd);
			return err;
		}
		return sqk_ex_submit_file(x, path, fd, ino, own);
	}
	case S_IFLNK:
		if (symlinkat(ino->target, dirfd, name) != 0)
			return sqk_ex_out_fail(x, path);
		return finish_node(x, path, dirfd, name, ino, 0, own);
	default: {
		dev_t dev = makedev(sqk_dev_major(ino->rdev), sqk_dev_minor(ino->rdev));

		if (mknodat(dirfd, name, (ino->mode & S_IFMT) | 0600, dev) != 0) {
			/* Only root makes devices: as tar, a warning (the run fails at the end). */
			if (errno != EPERM)
				return sqk_ex_out_fail(x, path);
			sqk_ex_warn(x, path, strerror(errno));
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

int sqk_extract_finish(struct sqk_extract *x, unsigned *warnings)
{
	sqk_ex_flush_batch(x);
	sqk_pool_wait(x->pool);
	sqk_dirstack_release(&x->dirs);
	sqk_ex_drop_undone(x);
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
