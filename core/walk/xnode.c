// SPDX-License-Identifier: BSD-2-Clause
/*
 * The extraction's entries held by descriptor (xnode.h): the check that a
 * name is still what was made, and the calls that set its attributes
 * through the descriptor, never by the name again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "util/error.h"
#include "xnode.h"

/* fchmodat2 (Linux 6.6) takes AT_EMPTY_PATH; its number is the same on every architecture. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* The magic link of a descriptor: following it reaches the file it holds, whatever its name. */
static void proc_path(char *buf, size_t cap, int fd)
{
	snprintf(buf, cap, "/proc/self/fd/%d", fd);
}

/*
 * The owner the file system gives what we make, learnt from a file made
 * for the purpose: an unnamed one where the file system has them, else a
 * name of our own, removed at once. The euid when neither can be made.
 */
static uid_t learn_fs_uid(struct sqk_xowner *o, int dirfd, dev_t dev)
{
	static unsigned seq;
	struct stat st;
	char name[64];
	int fd;

	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(name, sizeof(name), ".squashkit-owner-%ld-%u", (long)getpid(),
			 __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0)
			unlinkat(dirfd, name, 0);
	}
	o->fs_uid = o->euid;
	o->modes_kept = 1;
	/* A probe on another file system than the entry's tells nothing of it. */
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev) {
		o->fs_uid = st.st_uid;
		/* vfat and the like show their mount's mode, whatever a file was made with. */
		o->modes_kept = (st.st_mode & 0777) == 0600;
	}
	o->dev = dev;
	o->known = 1;
	if (fd >= 0)
		close(fd);
	return o->fs_uid;
}

/* What the file system st is on does with our files: learnt once for it. */
static void know(struct sqk_xowner *o, int dirfd, const struct stat *st)
{
	if (!o->known || o->dev != st->st_dev)
		learn_fs_uid(o, dirfd, st->st_dev);
}

static int owned(struct sqk_xowner *o, int dirfd, const struct stat *st)
{
	if (st->st_uid == o->euid)
		return 1;
	know(o, dirfd, st);
	return st->st_uid == o->fs_uid;
}

/*
 * What a name just made must look like when it is still ours. An entry
 * someone else renamed there is another user's (their uid), or has a
 * second link (a file linked from elsewhere), or is of another type; a
 * directory swapped in is theirs or open to them.
 */
static int is_made(struct sqk_xowner *o, int dirfd, const struct stat *st, mode_t type, dev_t rdev)
{
	if ((st->st_mode & S_IFMT) != type || !owned(o, dirfd, st))
		return 0;
	if (type == S_IFDIR && (st->st_mode & 077) == 0)
		return 1;
	if (type == S_IFDIR) {
		/* Open to others: not the one made 0700, unless the file system keeps no modes. */
		know(o, dirfd, st);
		return !o->modes_kept;
	}
	if (st->st_nlink != 1)
		return 0;
	return (type != S_IFCHR && type != S_IFBLK) || st->st_rdev == rdev;
}

int sqk_xnode_hold(struct sqk_xowner *o, int dirfd, const char *name, mode_t type, dev_t rdev,
		   int *fd)
{
	int flags = type == S_IFDIR ? O_RDONLY | O_DIRECTORY : O_PATH;
	struct stat st;

	*fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0) {
		/* A symlink swapped in for a directory: something else is there. */
		if (errno == ELOOP || errno == ENOTDIR)
			return SQK_ERR_EXIST;
		return SQK_ERR_IO;
	}
	if (fstat(*fd, &st) != 0) {
		int e = errno;

		close(*fd);
		*fd = -1;
		errno = e;
		return SQK_ERR_IO;
	}
	/*
	 * What the file system does is learnt, if need be, from a file made
	 * beside the entry, or in the directory: one renamed there is on the
	 * same file system.
	 */
	if (is_made(o, type == S_IFDIR ? *fd : dirfd, &st, type, rdev))
		return 0;
	close(*fd);
	*fd = -1;
	return SQK_ERR_EXIST;
}

int sqk_xnode_chown(int fd, uid_t uid, gid_t gid)
{
	return fchownat(fd, "", uid, gid, AT_EMPTY_PATH);
}

int sqk_xnode_chmod(int fd, mode_t mode)
{
	char p[40];

	if (syscall(SYS_fchmodat2, fd, "", mode, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -1;
	/* An older kernel: through the descriptor's magic link. */
	proc_path(p, sizeof(p), fd);
	return chmod(p, mode);
}

int sqk_xnode_utimens(int fd, const struct timespec ts[2])
{
	char p[40];

	if (utimensat(fd, "", ts, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOENT)
		return -1;
	proc_path(p, sizeof(p), fd);
	return utimensat(AT_FDCWD, p, ts, 0);
}

int sqk_xnode_setxattr(int fd, const char *name, const void *value, size_t len)
{
	char p[40];

	/* Followed, the magic link gives the entry itself, a symlink included. */
	proc_path(p, sizeof(p), fd);
	return setxattr(p, name, value, len, 0);
}

int sqk_xnode_empty(int fd)
{
	struct dirent *d;
	DIR *dir;
	int dfd = dup(fd), r = 0;

	if (dfd < 0)
		return -1;
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return -1;
	}
	while (r == 0 && (d = readdir(dir)))
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
			r = sqk_xnode_remove(fd, d->d_name);
	closedir(dir);
	return r;
}

int sqk_xnode_remove(int dirfd, const char *name)
{
	int fd, r;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = sqk_xnode_empty(fd);
	close(fd);
	return r ? r : unlinkat(dirfd, name, AT_REMOVEDIR);
}
