// SPDX-License-Identifier: BSD-2-Clause
/* The budget of a job and its temporary files (spill.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "file.h"
#include "signals.h"
#include "spill.h"

int sqk_spill_init(struct sqk_spill *sp, const char *dir, uint64_t budget, int tiny)
{
	memset(sp, 0, sizeof(*sp));
	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	sp->dir = strdup(dir && *dir ? dir : "/tmp");
	sp->budget = budget;
	sp->tiny = tiny;
	return sp->dir ? 0 : SQK_ERR_NOMEM;
}

void sqk_spill_release(struct sqk_spill *sp)
{
	free(sp->dir);
	sp->dir = NULL;
}

uint64_t sqk_spill_default(uint64_t most)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t quarter = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 4 : 0;

	return quarter && quarter < most ? quarter : most;
}

int sqk_spill_failed(const struct sqk_spill *sp, int err, struct sqk_fault *f)
{
	int e = __atomic_load_n(&sp->errnum, __ATOMIC_ACQUIRE);

	if (!e || (err != SQK_ERR_IO && err != SQK_ERR_NOSPACE))
		return 0;
	if (f) {
		memset(f, 0, sizeof(*f));
		sqk_fault_set(f, err, e, 0, "");
		snprintf(f->what, sizeof(f->what), "temporary file in %.160s: %s", sp->path,
			 strerror(e));
	}
	return 1;
}

uint64_t sqk_spill_share(const struct sqk_spill *sp, unsigned percent, uint64_t floor)
{
	uint64_t v = sp->budget / 100 * percent;

	return sp->tiny || v < floor ? floor : v;
}

void sqk_spill_count(uint64_t *figure, uint64_t n)
{
	__atomic_add_fetch(figure, n, __ATOMIC_RELAXED);
}

uint64_t sqk_spill_figure(const struct sqk_spill *sp, const char *name)
{
	const uint64_t *v = !strcmp(name, "bytes")    ? &sp->bytes
			    : !strcmp(name, "files")  ? &sp->files
			    : !strcmp(name, "runs")   ? &sp->runs
			    : !strcmp(name, "merges") ? &sp->merges
						      : NULL;

	return v ? __atomic_load_n(v, __ATOMIC_RELAXED) : 0;
}

/* The first failure is the one said: its errno and the temporary's path. */
static int failed(struct sqk_spill *sp, const char *path, int e)
{
	int err;

	int none = 0;

	errno = e ? e : EIO;
	err = sqk_err_from_errno();
	/* Several threads may share the budget: the first to fail says where. */
	if (__atomic_compare_exchange_n(&sp->errnum, &none, -1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED)) {
		snprintf(sp->path, sizeof(sp->path), "%s", path);
		__atomic_store_n(&sp->errnum, errno, __ATOMIC_RELEASE);
	}
	errno = e ? e : EIO;
	return err;
}

int sqk_tmp_create(struct sqk_spill *sp, struct sqk_tmp **out)
{
	static const char name[] = ".squashkit-spill.XXXXXX";
	size_t len = strlen(sp->dir) + 1 + sizeof(name);
	struct sqk_tmp *t = malloc(sizeof(*t) + len);
	sigset_t old;
	int e;

	*out = NULL;
	if (!t)
		return SQK_ERR_NOMEM;
	t->sp = sp;
	t->size = 0;
	/*
	 * A file without a name: nothing to remove, ever, and the directory is
	 * not touched (its time stays, should it be a source being read).
	 */
	snprintf(t->path, len, "%s", sp->dir);
	t->fd = open(sp->dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	e = errno;
	if (t->fd < 0 && (e == EOPNOTSUPP || e == EISDIR || e == EINVAL)) {
		/* A file system without O_TMPFILE: a name, unlinked before a signal can come. */
		snprintf(t->path, len, "%s/%s", sp->dir, name);
		sqk_sig_block(&old);
		t->fd = mkostemp(t->path, O_CLOEXEC);
		e = errno;
		if (t->fd >= 0)
			unlink(t->path);
		sqk_sig_restore(&old);
		/* The directory is what failed, or what holds it: its path, not the pattern's. */
		snprintf(t->path, len, "%s", sp->dir);
	}
	if (t->fd < 0) {
		int err = failed(sp, t->path, e);

		free(t);
		return err;
	}
	sqk_spill_count(&sp->files, 1);
	*out = t;
	return 0;
}

void sqk_tmp_destroy(struct sqk_tmp *t)
{
	if (!t)
		return;
	close(t->fd);
	free(t);
}

int sqk_tmp_write(struct sqk_tmp *t, uint64_t off, const void *buf, size_t len)
{
	if (sqk_write_full(t->fd, buf, len, off) != 0)
		return failed(t->sp, t->path, errno);
	if (off + len > t->size) {
		sqk_spill_count(&t->sp->bytes, off + len - t->size);
		t->size = off + len;
	}
	return 0;
}

int sqk_tmp_read(struct sqk_tmp *t, uint64_t off, void *buf, size_t len)
{
	int r = sqk_read_full(t->fd, buf, len, off);

	if (r < 0)
		return failed(t->sp, t->path, errno);
	/* Shorter than what was written: the temporary was cut under us. */
	return r ? failed(t->sp, t->path, EIO) : 0;
}

int sqk_tmp_clear(struct sqk_tmp *t)
{
	if (ftruncate(t->fd, 0) != 0)
		return failed(t->sp, t->path, errno);
	t->size = 0;
	return 0;
}
