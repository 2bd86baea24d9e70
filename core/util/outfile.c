// SPDX-License-Identifier: BSD-2-Clause
/*
 * The output file (outfile.h): what the path holds decides how it is
 * written, here and nowhere else.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "outfile.h"
#include "signals.h"

#define TMP_MAX_LEN (PATH_MAX + 64)
/* Links followed from the path given, as the kernel follows them (MAXSYMLINKS). */
#define MAX_LINKS 40
/* The temporary file's name: ".NAME" TMP_TAG "XXXXXX" (outfile_stale.c matches it). */
#define TMP_TAG ".squashkit-"

struct sqk_outfile {
	enum sqk_out_kind kind;
	struct sqk_file *file;
	char *target; /* the path written: the one given, its symlinks followed */
	char tmp[TMP_MAX_LEN];
	int fd; /* the file's (temporary, device, spool): closed here, where a close can fail */
	int lock_fd;	/* the temporary file's lock, held until it is renamed or removed */
	int stream_fd;	/* a stream's: written at commit from the spool, or directly */
	int own_stream; /* stream_fd was opened here */
	int force;
	int slot; /* the signal action removing tmp, or -1 */
	int held; /* the signals are held (a device) */
	unsigned nids;
	uint64_t dev[2], ino[2];
	dev_t tmp_dev; /* the temporary file, to check its name before the rename */
	ino_t tmp_ino;
};

static struct sqk_outfile *alloc(void)
{
	struct sqk_outfile *of = calloc(1, sizeof(*of));

	if (of) {
		of->slot = -1;
		of->fd = of->lock_fd = of->stream_fd = -1;
	}
	return of;
}

static void release(struct sqk_outfile *of)
{
	sqk_file_destroy(of->file);
	if (of->fd >= 0)
		close(of->fd);
	if (of->lock_fd >= 0)
		close(of->lock_fd);
	if (of->own_stream && of->stream_fd >= 0)
		close(of->stream_fd);
	if (of->held)
		sqk_sig_release(); /* a signal that came meanwhile: dies of it now */
	free(of->target);
	free(of);
}

/* Keep errno across release. */
static int fail(struct sqk_outfile *of, int err)
{
	int e = errno;

	release(of);
	errno = e;
	return err;
}

static void note_id(struct sqk_outfile *of, const struct stat *st)
{
	of->dev[of->nids] = st->st_dev;
	of->ino[of->nids++] = st->st_ino;
}

/*
 * path with its symlinks followed, as open() would follow them, up to the
 * first name that is no symlink or does not exist (a dangling link's
 * target, to be made). A malloc'd string, or NULL with errno set.
 */
static char *follow(const char *path)
{
	char *cur = strdup(path), buf[PATH_MAX];
	struct stat st;

	for (int n = 0; cur; n++) {
		ssize_t len;
		char *next;
		const char *slash;

		if (lstat(cur, &st) != 0) {
			if (errno == ENOENT)
				return cur;
			break;
		}
		if (!S_ISLNK(st.st_mode))
			return cur;
		if (n == MAX_LINKS) {
			errno = ELOOP;
			break;
		}
		len = readlink(cur, buf, sizeof(buf) - 1);
		if (len < 0)
			break;
		buf[len] = '\0';
		slash = strrchr(cur, '/');
		if (buf[0] == '/' || !slash) {
			next = strdup(buf);
		} else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, buf) < 0) {
			next = NULL;
		}
		free(cur);
		cur = next;
	}
	free(cur);
	return NULL;
}

/*
 * The temporary file beside the target, made and locked with no signal
 * between its creation and its guard. A sweep of another writer may take
 * the name between the creation and the lock (it was not locked yet): the
 * name is checked to be ours once locked, and made again if it is not.
 */
static int make_temp(struct sqk_outfile *of, int dirlen, const char *base)
{
	struct stat a, b;
	sigset_t old;
	int e = 0, err = 0;

	for (int tries = 0; tries < 8; tries++) {
		snprintf(of->tmp, sizeof(of->tmp), "%.*s%s.%s" TMP_TAG "XXXXXX",
			 dirlen > 0 ? dirlen : 0, of->target, dirlen >= 0 ? "/" : "", base);
		sqk_sig_block(&old);
		of->fd = mkostemp(of->tmp, O_CLOEXEC);
		if (of->fd < 0) {
			e = errno;
			err = SQK_ERR_IO;
		} else if ((of->slot = sqk_sig_unlink(of->tmp)) < 0) {
			err = of->slot;
			of->slot = -1;
			unlink(of->tmp);
		}
		sqk_sig_restore(&old);
		if (err)
			break;
		/* The lock is held through a descriptor of its own, read-only, kept to the rename.
		 */
		of->lock_fd = open(of->tmp, O_RDONLY | O_CLOEXEC);
		if (of->lock_fd < 0) {
			e = errno;
			err = SQK_ERR_IO;
			unlink(of->tmp);
			sqk_sig_forget(of->slot);
			of->slot = -1;
			break;
		}
		if (flock(of->lock_fd, LOCK_EX) == 0 && fstat(of->fd, &a) == 0 &&
		    stat(of->tmp, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			of->tmp_dev = a.st_dev;
			of->tmp_ino = a.st_ino;
			return 0;
		}
		sqk_sig_forget(of->slot);
		of->slot = -1;
		close(of->lock_fd);
		of->lock_fd = -1;
		close(of->fd);
		of->fd = -1;
	}
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	errno = e ? e : EEXIST;
	return err ? err : SQK_ERR_IO;
}

/* A regular file (or none yet) at of->target: the temporary file beside it. */
static int open_temp(struct sqk_outfile *of, const struct sqk_outfile_how *how)
{
	const char *slash = strrchr(of->target, '/');
	const char *base = slash ? slash + 1 : of->target;
	int dirlen = slash ? (int)(slash - of->target) : -1;
	char dir[TMP_MAX_LEN];
	struct stat st;
	mode_t mask;
	int err;

	if (strlen(of->target) > PATH_MAX)
		return SQK_ERR_OVERFLOW;
	err = make_temp(of, dirlen, base);
	if (err)
		return err;
	mask = umask(0);
	umask(mask);
	fchmod(of->fd, 0666 & ~mask);
	if (fstat(of->fd, &st) == 0)
		note_id(of, &st);
	of->file = sqk_file_fdopen(of->fd, 0);
	if (!of->file)
		return SQK_ERR_NOMEM;
	if (how->stale) {
		snprintf(dir, sizeof(dir), "%.*s", dirlen > 0 ? dirlen : 0, of->target);
		if (dirlen == 0)
			strcpy(dir, "/");
		sqk_outfile_sweep(dir, base,
				  strrchr(of->tmp, '/') ? strrchr(of->tmp, '/') + 1 : of->tmp,
				  how->stale, how->stale_ctx);
	}
	return 0;
}

/* A spool file for a stream a writer seeks in: unlinked, so nothing is ever left behind. */
static int open_spool(struct sqk_outfile *of)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];

	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(path, sizeof(path), "%s/squashkit-XXXXXX", dir) >= (int)sizeof(path))
		return SQK_ERR_OVERFLOW;
	of->fd = mkostemp(path, O_CLOEXEC);
	if (of->fd < 0)
		return SQK_ERR_IO;
	unlink(path);
	return 0;
}

/* A stream: written as it comes, or spooled for a writer that seeks. */
static int open_stream(struct sqk_outfile *of, const struct sqk_outfile_how *how)
{
	int err;

	of->kind = SQK_OUT_STREAM;
	if (how->seek) {
		err = open_spool(of);
		if (err)
			return err;
		of->file = sqk_file_fdopen(of->fd, 0);
	} else {
		of->file = sqk_file_fdopen(of->stream_fd, 0);
	}
	return of->file ? 0 : SQK_ERR_NOMEM;
}

int sqk_outfile_create(const char *target, const struct sqk_outfile_how *how,
		       struct sqk_outfile **out, int *opened)
{
	struct sqk_outfile *of = alloc();
	struct stat st;
	int exists, err, dummy;

	*out = NULL;
	if (!opened)
		opened = &dummy;
	*opened = 0;
	if (!of)
		return SQK_ERR_NOMEM;
	of->force = how->force;
	if (strlen(target) > PATH_MAX)
		return fail(of, SQK_ERR_OVERFLOW);
	of->target = follow(target);
	if (!of->target) {
		*opened = errno != ENOMEM;
		return fail(of, errno == ENOMEM ? SQK_ERR_NOMEM : SQK_ERR_IO);
	}
	exists = stat(of->target, &st) == 0;
	if (!exists && errno != ENOENT) {
		*opened = 1;
		return fail(of, SQK_ERR_IO);
	}
	if (exists && !how->force)
		return fail(of, SQK_ERR_EXIST);
	if (exists && S_ISDIR(st.st_mode))
		return fail(of, SQK_ERR_ARG);
	if (exists)
		note_id(of, &st);
	if (!exists || S_ISREG(st.st_mode)) {
		of->kind = SQK_OUT_FILE;
		err = open_temp(of, how);
	} else if (S_ISBLK(st.st_mode)) {
		/* In place; O_EXCL: never a device mounted or claimed by another. */
		of->kind = SQK_OUT_DEVICE;
		of->fd = open(of->target, O_RDWR | O_EXCL | O_CLOEXEC);
		*opened = of->fd < 0;
		err = of->fd < 0 ? SQK_ERR_IO : 0;
		if (!err && !(of->file = sqk_file_fdopen(of->fd, 0)))
			err = SQK_ERR_NOMEM;
		if (!err) {
			sqk_sig_hold();
			of->held = 1;
		}
	} else {
		/* A fifo blocks here until its reader comes, as for any writer. */
		of->stream_fd = open(of->target, O_WRONLY | O_CLOEXEC);
		of->own_stream = 1;
		*opened = of->stream_fd < 0;
		err = of->stream_fd < 0 ? SQK_ERR_IO : open_stream(of, how);
		if (err && of->stream_fd >= 0)
			*opened = 2; /* the spool file */
	}
	if (err) {
		if (of->slot >= 0) {
			unlink(of->tmp);
			sqk_sig_forget(of->slot);
		}
		return fail(of, err);
	}
	*out = of;
	return 0;
}

int sqk_outfile_fd(int fd, const struct sqk_outfile_how *how, struct sqk_outfile **out)
{
	struct sqk_outfile *of = alloc();
	struct stat st;
	int fl = fcntl(fd, F_GETFL), err = 0;

	*out = NULL;
	if (!of)
		return SQK_ERR_NOMEM;
	if (fl < 0 || fstat(fd, &st) != 0)
		return fail(of, SQK_ERR_IO);
	note_id(of, &st);
	of->stream_fd = fd;
	/* In place only where the writer can read back what it wrote (dedup, the tree). */
	if (S_ISREG(st.st_mode) && !(fl & O_APPEND) && lseek(fd, 0, SEEK_CUR) == 0 &&
	    (!how->seek || (fl & O_ACCMODE) == O_RDWR)) {
		of->kind = SQK_OUT_DESCRIPTOR;
		of->file = sqk_file_fdopen(fd, 0);
		err = of->file ? 0 : SQK_ERR_NOMEM;
	} else {
		err = open_stream(of, how);
	}
	if (err)
		return fail(of, err);
	*out = of;
	return 0;
}

enum sqk_out_kind sqk_outfile_kind(const struct sqk_outfile *of)
{
	return of->kind;
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

/* The spool's bytes to the stream, at its position; a reader gone is EPIPE. */
static int copy_out(struct sqk_outfile *of)
{
	uint8_t *buf = malloc(1u << 20);
	uint64_t size = of->file->size(of->file), pos;
	sigset_t old;
	int err = 0, e = 0;

	if (!buf)
		return SQK_ERR_NOMEM;
	sqk_sig_pipe_hold(&old);
	for (pos = 0; !err && pos < size; pos += 1u << 20) {
		size_t len = size - pos < (1u << 20) ? (size_t)(size - pos) : 1u << 20;

		err = of->file->read_at(of->file, pos, buf, len);
		if (err == SQK_ERR_TRUNCATED)
			err = SQK_ERR_IO;
		if (err)
			e = of->file->errnum ? of->file->errnum : EIO;
		if (!err && sqk_write_full(of->stream_fd, buf, len, SQK_NO_OFFSET) != 0) {
			e = errno;
			err = sqk_err_from_errno();
		}
	}
	sqk_sig_pipe_release(&old);
	free(buf);
	errno = e;
	return err;
}

/* Rename the complete temporary file over the target. */
static int rename_into_place(struct sqk_outfile *of)
{
	struct stat st;
	int rc;

	/* The name must still be the file written: one swapped in is never put in place. */
	if (stat(of->tmp, &st) != 0)
		return -1;
	if (st.st_dev != of->tmp_dev || st.st_ino != of->tmp_ino) {
		errno = EEXIST;
		return -1;
	}
	if (of->force)
		return rename(of->tmp, of->target);
	/* Never replace a target that appeared while the file was written. */
	rc = renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->target, RENAME_NOREPLACE);
	if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
		rc = link(of->tmp, of->target);
		if (rc == 0)
			unlink(of->tmp);
	}
	return rc;
}

/* Put in place; with slot, the target guarded against a signal from then on. */
static int commit(struct sqk_outfile *of, int *slot)
{
	sigset_t old;
	int err = 0, e = 0;

	if (of->kind == SQK_OUT_STREAM && of->fd >= 0) {
		err = copy_out(of);
		e = errno;
	} else if (of->kind != SQK_OUT_STREAM) {
		err = of->file->sync(of->file);
		e = err ? of->file->errnum : 0;
	}
	sqk_file_destroy(of->file);
	of->file = NULL;
	/* Never put in place after a failed close (a file system may report a write only there). */
	if (!err && of->fd >= 0 && of->kind != SQK_OUT_STREAM && close(of->fd) != 0) {
		e = errno;
		err = sqk_err_from_errno();
	}
	if (of->kind != SQK_OUT_STREAM)
		of->fd = -1;
	if (!err && of->own_stream && close(of->stream_fd) != 0) {
		e = errno;
		err = sqk_err_from_errno();
	}
	if (of->own_stream)
		of->stream_fd = -1;
	/* No signal between the rename and the guard of what it put in place. */
	if (slot)
		sqk_sig_block(&old);
	if (!err && of->kind == SQK_OUT_FILE && rename_into_place(of) != 0) {
		e = errno;
		err = SQK_ERR_IO;
	}
	if (err) {
		if (slot)
			sqk_sig_restore(&old);
		sqk_outfile_abort(of);
		errno = e;
		return err;
	}
	sqk_sig_forget(of->slot);
	if (slot) {
		if (of->kind == SQK_OUT_FILE)
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
	sqk_sig_forget(of->slot);
	release(of);
}
