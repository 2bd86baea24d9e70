// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "outfile.h"
#include "signals.h"

#define TMP_MAX_LEN (PATH_MAX + 64)

struct sqk_outfile {
	struct sqk_file *file;
	char *target;
	char tmp[TMP_MAX_LEN];
	int fd; /* the file's: closed here, where a close can fail */
	int force;
	int slot; /* the signal action removing tmp, or -1 */
	unsigned nids;
	uint64_t dev[2], ino[2];
};

/* Create the temporary file from tmpl; no signal comes between its creation and its guard. */
static int make_temp(struct sqk_outfile *of, int *fd)
{
	sigset_t old;
	int e, err;

	sqk_sig_block(&old);
	*fd = mkostemp(of->tmp, O_CLOEXEC);
	e = errno;
	err = *fd < 0 ? SQK_ERR_IO : 0;
	if (!err) {
		of->slot = sqk_sig_unlink(of->tmp);
		if (of->slot < 0) {
			err = of->slot;
			of->slot = -1;
			unlink(of->tmp);
			close(*fd);
			*fd = -1;
		}
	}
	sqk_sig_restore(&old);
	errno = e;
	return err;
}

/* The temporary file is gone or renamed: no signal needs to remove it. */
static void forget(struct sqk_outfile *of)
{
	sqk_sig_forget(of->slot);
	of->slot = -1;
}

static void release(struct sqk_outfile *of)
{
	sqk_file_destroy(of->file);
	if (of->fd >= 0)
		close(of->fd);
	free(of->target);
	free(of);
}

int sqk_outfile_create(const char *target, int force, struct sqk_outfile **out)
{
	struct sqk_outfile *of;
	const char *slash;
	struct stat st;
	mode_t mask;
	int fd, err;

	*out = NULL;
	of = calloc(1, sizeof(*of));
	if (!of)
		return SQK_ERR_NOMEM;
	of->slot = -1;
	of->fd = -1;
	of->force = force;
	of->target = strdup(target);
	if (!of->target) {
		release(of);
		return SQK_ERR_NOMEM;
	}
	if (stat(target, &st) == 0) {
		err = !force ? SQK_ERR_EXIST : S_ISDIR(st.st_mode) ? SQK_ERR_ARG : 0;
		if (err) {
			release(of);
			return err;
		}
		of->dev[of->nids] = st.st_dev;
		of->ino[of->nids++] = st.st_ino;
	}
	if (strlen(target) > PATH_MAX) {
		release(of);
		return SQK_ERR_OVERFLOW;
	}
	slash = strrchr(target, '/');
	if (slash)
		snprintf(of->tmp, sizeof(of->tmp), "%.*s/.%s.XXXXXX", (int)(slash - target), target,
			 slash + 1);
	else
		snprintf(of->tmp, sizeof(of->tmp), ".%s.XXXXXX", target);
	err = make_temp(of, &fd);
	if (err) {
		int e = errno;

		release(of);
		errno = e;
		return err;
	}
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	if (fstat(fd, &st) == 0) {
		of->dev[of->nids] = st.st_dev;
		of->ino[of->nids++] = st.st_ino;
	}
	of->fd = fd;
	of->file = sqk_file_fdopen(fd, 0);
	if (!of->file) {
		sqk_outfile_abort(of);
		return SQK_ERR_NOMEM;
	}
	*out = of;
	return 0;
}

struct sqk_file *sqk_outfile_file(struct sqk_outfile *of)
{
	return of->file;
}

unsigned sqk_outfile_ids(const struct sqk_outfile *of, uint64_t dev[2], uint64_t ino[2])
{
	for (unsigned i = 0; i < of->nids; i++) {
		dev[i] = of->dev[i];
		ino[i] = of->ino[i];
	}
	return of->nids;
}

/* Sync, close and rename; with slot, the target guarded against a signal from then on. */
static int commit(struct sqk_outfile *of, int *slot)
{
	const char *tmp = of->tmp;
	sigset_t old;
	int err, rc, e;

	err = of->file->sync(of->file);
	e = of->file->errnum;
	sqk_file_destroy(of->file);
	of->file = NULL;
	/* Never renamed into place after a failed close (a file system may report a write only
	 * there). */
	if (!err && close(of->fd) != 0) {
		e = errno;
		err = sqk_err_from_errno();
	}
	of->fd = -1;
	if (err) {
		sqk_outfile_abort(of);
		errno = e;
		return err;
	}
	/* No signal between the rename and the guard of what it put in place. */
	if (slot)
		sqk_sig_block(&old);
	if (of->force) {
		rc = rename(tmp, of->target);
	} else {
		/* Never replace a target that appeared while the file was written. */
		rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, of->target, RENAME_NOREPLACE);
		if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
			rc = link(tmp, of->target);
			if (rc == 0)
				unlink(tmp);
		}
	}
	if (rc != 0) {
		e = errno;
		if (slot)
			sqk_sig_restore(&old);
		sqk_outfile_abort(of);
		errno = e;
		return SQK_ERR_IO;
	}
	forget(of);
	if (slot) {
		*slot = sqk_sig_unlink(of->target);
		if (*slot < 0)
			*slot = -1;
		sqk_sig_restore(&old);
	}
	release(of);
	return 0;
}

int sqk_outfile_commit(struct sqk_outfile *of)
{
	return commit(of, NULL);
}

int sqk_outfile_place(struct sqk_outfile *of, int *slot)
{
	*slot = -1;
	return commit(of, slot);
}

void sqk_outfile_abort(struct sqk_outfile *of)
{
	if (!of)
		return;
	sqk_file_destroy(of->file);
	of->file = NULL;
	if (of->slot >= 0)
		unlink(of->tmp);
	forget(of);
	release(of);
}
