// SPDX-License-Identifier: BSD-2-Clause
/*
 * The directory sink's plumbing (extract_int.h): its failures and
 * warnings, and the attributes of what it made (owner, xattrs, mode,
 * times), set through a descriptor of the entry, never by its name.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "extract_int.h"
#include "read/image.h"
#include "read/xattr.h"
#include "util/error.h"
#include "util/xattr_filter.h"
#include "xnode.h"

void sqk_ex_warn(struct sqk_extract *x, const char *path, const char *what)
{
	pthread_mutex_lock(&x->lock);
	x->warnings++;
	if (x->o.warn)
		x->o.warn(x->o.warn_ctx, path, what);
	pthread_mutex_unlock(&x->lock);
}

/* "what[ name]: the errno's text", for a call that failed just now. */
void sqk_ex_warn_errno(struct sqk_extract *x, const char *path, const char *what, const char *name)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s%s%s: %s", what, name ? " " : "", name ? name : "",
		 strerror(errno));
	sqk_ex_warn(x, path, msg);
}

/*
 * A failure: its story in the sink's fault (the first stays). The walk
 * ends on a callback's; a worker's (stop) ends the extraction as well.
 */
void sqk_ex_fail(struct sqk_extract *x, const char *path, int err, int errnum, int output)
{
	pthread_mutex_lock(&x->lock);
	sqk_fault_set(&x->sink.fault, err, errnum, output, path);
	pthread_mutex_unlock(&x->lock);
}

void sqk_ex_stop(struct sqk_extract *x, const char *path, int err, int errnum, int output)
{
	sqk_ex_fail(x, path, err, errnum, output);
	__atomic_store_n(&x->failed, 1, __ATOMIC_RELEASE);
}

/* The workers' failure, once sqk_ex_stop() said so (its fault is then filled), or 0. */
int sqk_ex_stopped(struct sqk_extract *x)
{
	return __atomic_load_n(&x->failed, __ATOMIC_ACQUIRE) ? x->sink.fault.err : 0;
}

/* A system call on the destination failed: its errno, its path. */
int sqk_ex_out_fail(struct sqk_extract *x, const char *path)
{
	int e = errno, err = e == EEXIST ? SQK_ERR_EXIST : sqk_err_from_errno();

	sqk_ex_fail(x, path, err, e, 1);
	return err;
}

/* A failure with a code (errno kept): the destination's errno when it was a system call's. */
int sqk_ex_out_code(struct sqk_extract *x, const char *path, int err)
{
	if (err == SQK_ERR_IO || err == SQK_ERR_NOSPACE || err == SQK_ERR_EXIST)
		return sqk_ex_out_fail(x, path);
	sqk_ex_fail(x, path, err, 0, 0);
	return err;
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
			sqk_ex_stop(x, path, err, 0, 0);
		return;
	}
	for (i = 0; i < n; i++) {
		int r;

		if (!sqk_xattr_filter_pass(x->o.xattr_filter, xs[i].name))
			continue;
		r = held ? sqk_xnode_setxattr(fd, xs[i].name, xs[i].value, xs[i].value_len)
			 : fsetxattr(fd, xs[i].name, xs[i].value, xs[i].value_len, 0);

		if (r != 0)
			sqk_ex_warn_errno(x, path, "cannot set xattr", xs[i].name);
	}
	sqk_xattr_free(xs, n);
}

mode_t sqk_ex_perm_bits(const struct sqk_extract *x, const struct sqk_inode *ino)
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
int sqk_ex_owner_ok(const struct sqk_extract *x, const struct sqk_inode *ino)
{
	return x->o.no_owner ||
	       (ino->uid == x->euid && ino->gid == x->egid && !sqk_dirstack_setgid(&x->dirs));
}

/*
 * Owner, xattrs, mode, then times (last: the others may touch ctime only).
 * owner_ok and mode_ok say the entry was made with the right owner or mode
 * already, so those calls can be skipped. held: fd is the O_PATH
 * descriptor holding a symlink or a device (sqk_xnode_hold), set through
 * the xnode calls; else an open file or directory.
 */
void sqk_ex_finish(struct sqk_extract *x, const char *path, int fd, int held,
		   const struct sqk_inode *ino, int owner_ok, int mode_ok)
{
	struct timespec ts[2] = {{ino->mtime, 0}, {ino->mtime, 0}};
	mode_t mode = sqk_ex_perm_bits(x, ino);

	if (!owner_ok && !x->o.no_owner &&
	    (held ? sqk_xnode_chown(fd, ino->uid, ino->gid) : fchown(fd, ino->uid, ino->gid)) != 0)
		sqk_ex_warn_errno(x, path, "cannot set owner", NULL);
	set_xattrs_fd(x, path, fd, held, ino);
	if (!mode_ok && (held ? sqk_xnode_chmod(fd, mode) : fchmod(fd, mode)) != 0)
		sqk_ex_warn_errno(x, path, "cannot set mode", NULL);
	if ((held ? sqk_xnode_utimens(fd, ts) : futimens(fd, ts)) != 0)
		sqk_ex_warn_errno(x, path, "cannot set times", NULL);
}
