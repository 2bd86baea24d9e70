// SPDX-License-Identifier: BSD-2-Clause
/*
 * The extraction into a directory, for every front end that makes one:
 * the destination made or taken, the workers, the sink, the caller's walk
 * and the wait for the workers. With undo, a destination this run made
 * goes again after a failure or a signal, so that a failed run leaves
 * nothing half-written behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract.h"
#include "util/error.h"
#include "util/pool.h"
#include "util/signals.h"
#include "xnode.h"

/*
 * Make the destination, or take it as it is when that is allowed. One made
 * here is made 0700 and held at once: its parent may be another user's to
 * write to, who could rename a directory of theirs in its place; it gets
 * its mode (0755 less the umask) through the descriptor.
 */
static int open_dest(struct sqk_xdir *d)
{
	struct sqk_xowner owner = {.euid = geteuid()};
	mode_t mask;
	int fd, err;

	if (mkdir(d->dest, 0700) == 0)
		d->created = 1;
	else if (errno != EEXIST)
		return SQK_ERR_IO;
	else if (!d->may_exist)
		return SQK_ERR_EXIST;
	if (!d->created) {
		fd = open(d->dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		return fd < 0 ? SQK_ERR_IO : fd;
	}
	err = sqk_xnode_hold(&owner, AT_FDCWD, d->dest, S_IFDIR, 0, &fd);
	if (err == SQK_ERR_EXIST) {
		d->created = 0; /* not ours to remove */
		errno = EEXIST;
		return SQK_ERR_IO;
	}
	mask = umask(0);
	umask(mask);
	if (!err && fchmod(fd, 0755 & ~mask) != 0) {
		close(fd);
		err = SQK_ERR_IO;
	}
	if (err) {
		/* Made just now and empty: an rmdir takes it, and nothing else. */
		int e = errno;

		if (d->undo)
			rmdir(d->dest);
		errno = e;
		return err;
	}
	return fd;
}

static int run(struct sqk_image *img, int fd, struct sqk_xdir *d)
{
	struct sqk_extract *x = NULL;
	struct sqk_pool *pool = sqk_pool_create(d->threads, 0);
	int err, werr;

	err = pool ? sqk_extract_create(img, pool, fd, d->opts, &x) : SQK_ERR_NOMEM;
	if (err) {
		d->stage = SQK_XDIR_START;
	} else {
		werr = d->walk(d->ctx, x);
		err = sqk_extract_finish(x, &d->warnings);
		if (werr) {
			d->stage = SQK_XDIR_WALK;
			err = werr;
		} else if (err) {
			d->stage = SQK_XDIR_FINISH;
			d->fault = sqk_extract_sink(x)->fault;
		}
	}
	sqk_extract_destroy(x);
	sqk_pool_destroy(pool);
	return err;
}

int sqk_xdir_run(struct sqk_image *img, struct sqk_xdir *d)
{
	int fd, err, e;

	d->created = 0;
	d->stage = 0;
	d->warnings = 0;
	memset(&d->fault, 0, sizeof(d->fault));
	fd = open_dest(d);
	if (fd < 0) {
		d->stage = SQK_XDIR_DEST;
		return fd;
	}
	err = run(img, fd, d);
	/* With undo, a signal that came once all was done still means: interrupted. */
	if (!err && d->undo && sqk_sig_caught()) {
		err = SQK_ERR_INTR;
		d->stage = SQK_XDIR_FINISH;
		sqk_fault_set(&d->fault, err, 0, 0, "");
	}
	/*
	 * What this run made goes: emptied through the descriptor it was made
	 * with, then removed by name (an rmdir, which takes an empty directory
	 * only, whatever the name holds by then).
	 */
	if (err && d->created && d->undo) {
		e = errno;
		if (sqk_xnode_empty(fd) == 0)
			rmdir(d->dest);
		errno = e;
	}
	close(fd);
	return err;
}
