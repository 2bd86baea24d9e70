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

/* Make the destination, or take it as it is when that is allowed. */
static int open_dest(struct sqk_xdir *d)
{
	int fd;

	if (mkdir(d->dest, 0755) == 0)
		d->created = 1;
	else if (errno != EEXIST)
		return SQK_ERR_IO;
	else if (!d->may_exist)
		return SQK_ERR_EXIST;
	fd = open(d->dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? SQK_ERR_IO : fd;
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
		err = fd;
		d->stage = SQK_XDIR_DEST;
	} else {
		err = run(img, fd, d);
		close(fd);
	}
	/* With undo, a signal that came once all was done still means: interrupted. */
	if (!err && d->undo && sqk_sig_caught()) {
		err = SQK_ERR_INTR;
		d->stage = SQK_XDIR_FINISH;
		sqk_fault_set(&d->fault, err, 0, 0, "");
	}
	if (err && d->created && d->undo) {
		e = errno;
		sqk_remove_tree(AT_FDCWD, d->dest);
		errno = e;
	}
	return err;
}
