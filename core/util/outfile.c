// SPDX-License-Identifier: GPL-2.0-or-later
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

#define MAX_LIVE    8
#define TMP_MAX_LEN (PATH_MAX + 64)

struct sqk_outfile {
	struct sqk_file *file;
	char *target;
	int force;
	int slot; /* in the signal handler's table */
	unsigned nids;
	uint64_t dev[2], ino[2];
};

/*
 * What the signal handler removes: fixed buffers, as a handler must not
 * allocate. A path is written before its flag is set and the flag cleared
 * before the slot is reused, with the signals blocked in this thread.
 */
static char live_path[MAX_LIVE][TMP_MAX_LEN];
static volatile sig_atomic_t live[MAX_LIVE];
static unsigned nlive;
static const int cleanup_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSIGS (sizeof(cleanup_sigs) / sizeof(cleanup_sigs[0]))
static struct sigaction saved[NSIGS];

static void on_signal(int sig)
{
	for (unsigned i = 0; i < MAX_LIVE; i++) {
		if (live[i])
			unlink(live_path[i]);
		live[i] = 0;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NSIGS; i++)
		sigaddset(&set, cleanup_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Signals blocked: the handlers go in with the first live file and out with the last. */
static void handlers(int install)
{
	struct sigaction sa;

	if (install) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < NSIGS; i++)
			sigaction(cleanup_sigs[i], &sa, &saved[i]);
	} else {
		for (size_t i = 0; i < NSIGS; i++)
			sigaction(cleanup_sigs[i], &saved[i], NULL);
	}
}

/* Create the temporary file in a free slot; the signals cannot come in between. */
static int make_temp(struct sqk_outfile *of, const char *tmpl, int *fd)
{
	sigset_t old;
	int slot, e;

	block_signals(&old);
	for (slot = 0; slot < MAX_LIVE && live[slot]; slot++)
		;
	if (slot == MAX_LIVE) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return SQK_ERR_UNSUPPORTED;
	}
	snprintf(live_path[slot], TMP_MAX_LEN, "%s", tmpl);
	*fd = mkostemp(live_path[slot], O_CLOEXEC);
	e = errno;
	if (*fd >= 0) {
		if (nlive++ == 0)
			handlers(1);
		live[slot] = 1;
		of->slot = slot;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return *fd >= 0 ? 0 : SQK_ERR_IO;
}

/* The temporary file is gone or renamed: its slot is free. */
static void forget(struct sqk_outfile *of)
{
	sigset_t old;

	if (of->slot < 0)
		return;
	block_signals(&old);
	live[of->slot] = 0;
	if (--nlive == 0)
		handlers(0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	of->slot = -1;
}

static void release(struct sqk_outfile *of)
{
	sqk_file_destroy(of->file);
	free(of->target);
	free(of);
}

int sqk_outfile_create(const char *target, int force, struct sqk_outfile **out)
{
	struct sqk_outfile *of;
	char tmpl[TMP_MAX_LEN];
	const char *slash;
	struct stat st;
	mode_t mask;
	int fd, err;

	*out = NULL;
	of = calloc(1, sizeof(*of));
	if (!of)
		return SQK_ERR_NOMEM;
	of->slot = -1;
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
		snprintf(tmpl, sizeof(tmpl), "%.*s/.%s.XXXXXX", (int)(slash - target), target,
			 slash + 1);
	else
		snprintf(tmpl, sizeof(tmpl), ".%s.XXXXXX", target);
	err = make_temp(of, tmpl, &fd);
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
	of->file = sqk_file_fdopen(fd, 1);
	if (!of->file) {
		close(fd);
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

int sqk_outfile_commit(struct sqk_outfile *of)
{
	const char *tmp = live_path[of->slot];
	int err, rc, e;

	err = of->file->sync(of->file);
	sqk_file_destroy(of->file);
	of->file = NULL;
	if (err) {
		sqk_outfile_abort(of);
		return err;
	}
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
		sqk_outfile_abort(of);
		errno = e;
		return SQK_ERR_IO;
	}
	forget(of);
	release(of);
	return 0;
}

void sqk_outfile_abort(struct sqk_outfile *of)
{
	if (!of)
		return;
	sqk_file_destroy(of->file);
	of->file = NULL;
	if (of->slot >= 0)
		unlink(live_path[of->slot]);
	forget(of);
	release(of);
}
