// SPDX-License-Identifier: BSD-2-Clause
/*
 * A hash tree added to an image that exists (any writer's): its blocks read
 * once (on worker threads), the tree written after it in its file or into
 * a file of its own, as a build makes it. The file is locked against a
 * second writer; until the tree is whole and synced, a failure or a signal
 * cuts it back to what it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_build.h"
#include "format/fmt_super.h"
#include "util/file.h"
#include "util/signals.h"
#include "verity/verity_build.h"

struct adding {
	const char *path;
	int fd, slot;
	uint64_t cut; /* the length the file goes back to on a failure */
	struct sqk_file *file, *window;
};

/* The file, locked: 0, or the error, said. */
static int open_locked(struct adding *a)
{
	struct stat st;

	a->fd = open(a->path, O_RDWR | O_CLOEXEC);
	if (a->fd < 0)
		return sqk_api_fail(SQK_ERR_IO, errno, a->path, NULL);
	if (fstat(a->fd, &st) != 0)
		return sqk_api_fail(SQK_ERR_IO, errno, a->path, NULL);
	if (!S_ISREG(st.st_mode))
		return sqk_api_fail(SQK_ERR_ARG, 0, a->path, "not a regular file");
	if (flock(a->fd, LOCK_EX | LOCK_NB) != 0)
		return sqk_api_fail(SQK_ERR_IO, errno, a->path, "is locked by another process (%s)",
				    strerror(errno));
	a->file = sqk_file_fdopen(a->fd, 0);
	return a->file ? 0 : sqk_api_fail(SQK_ERR_NOMEM, 0, a->path, NULL);
}

/*
 * The image at offset: its superblock, its padded end, what follows it; the
 * cut-back armed. 0, or the error, said.
 */
static int place(struct adding *a, const struct sqk_build_opts *o, uint64_t *end)
{
	uint8_t raw[SQK_SUPER_SIZE];
	uint64_t size = a->file->size(a->file), used;
	struct sqk_super sb;
	int err;

	if (o->offset >= size)
		return sqk_api_fail(SQK_ERR_ARG, 0, a->path,
				    "offset %llu is past the end of the file",
				    (unsigned long long)o->offset);
	a->window = sqk_file_window_rw(a->file, o->offset);
	if (!a->window)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, a->path, NULL);
	err = a->window->read_at(a->window, 0, raw, sizeof(raw));
	if (err && err != SQK_ERR_TRUNCATED)
		return sqk_api_fail(err, a->window->errnum, a->path, NULL);
	sqk_fmt_super_decode(&sb, raw);
	if (err || sb.magic != SQK_MAGIC)
		return sqk_api_fail(SQK_ERR_MAGIC, 0, a->path, NULL);
	used = sb.bytes_used;
	size -= o->offset;
	if (used > size)
		return sqk_api_fail(SQK_ERR_TRUNCATED, 0, a->path,
				    "the file ends before the image does (bytes_used %llu)",
				    (unsigned long long)used);
	*end = (used + SQK_DEVBLK_SIZE - 1) / SQK_DEVBLK_SIZE * SQK_DEVBLK_SIZE;
	if (!o->verity.hash_file && size > *end && !o->force)
		return sqk_api_fail(SQK_ERR_EXIST, 0, a->path,
				    "%llu bytes follow the image (a hash area?); set \"force\" to "
				    "replace them",
				    (unsigned long long)(size - *end));
	/* Bytes replaced are gone either way: a failure cuts back to the image. */
	a->cut = o->offset + (o->verity.hash_file || size < *end ? size : *end);
	a->slot = sqk_sig_cut_back(a->fd, a->cut, o->offset, raw, sizeof(raw));
	if (a->slot < 0)
		return sqk_api_fail(a->slot, 0, a->path, NULL);
	/* The tree covers whole blocks: an image not padded is, with zeros. */
	if (size < *end && a->window->truncate(a->window, *end))
		return sqk_api_fail(SQK_ERR_IO, a->window->errnum, a->path, NULL);
	return 0;
}

static int verity_add(const char *path, const struct sqk_build_opts *o,
		      struct sqk_verity_info *info)
{
	struct adding a = {.path = path, .fd = -1, .slot = -1};
	struct sqk_api_verity_build *v = NULL;
	struct sqk_build_opts with = *o;
	const char *p;
	uint64_t end = 0;
	sigset_t old;
	int err, errnum = 0;

	memset(info, 0, sizeof(*info));
	with.verity.on = 1;
	err = open_locked(&a);
	if (!err)
		err = place(&a, o, &end);
	if (!err)
		err = sqk_api_verity_open(&v, &with, path, a.window, o->mo.threads,
					  o->mo.have_epoch, 0);
	if (!err) {
		err = sqk_verity_build_finish(sqk_api_verity_vb(v), end, NULL, 0);
		p = sqk_api_verity_failed(v, &errnum);
		if (err)
			sqk_api_fail(err,
				     p ? errnum
				     : err == SQK_ERR_IO || err == SQK_ERR_NOSPACE
					     ? a.window->errnum
					     : 0,
				     p ? p : path, NULL);
	}
	if (!err && a.file->sync(a.file))
		err = sqk_api_fail(SQK_ERR_IO, a.file->errnum, path, NULL);
	if (!err)
		sqk_api_verity_result(v, info);
	/* Synced, the tree is the image's: the files beside it stay, the cut-back goes. */
	sqk_sig_block(&old);
	if (err) {
		sqk_api_verity_unplace(v);
		if (a.slot >= 0 && ftruncate(a.fd, (off_t)a.cut) == 0)
			fsync(a.fd);
	} else {
		sqk_api_verity_settle(v);
	}
	sqk_sig_forget(a.slot);
	sqk_sig_restore(&old);
	sqk_api_verity_release(v);
	sqk_file_destroy(a.window);
	sqk_file_destroy(a.file);
	if (a.fd >= 0)
		close(a.fd);
	return err ? err : sqk_api_ok();
}

int(sqk_verity_add)(const char *path, const struct sqk_build_opts *o, struct sqk_verity_info *given,
		    size_t size)
{
	struct sqk_verity_info info;
	int err;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_verity_info, hash_type), "sqk_verity_info"))
		return SQK_ERR_ARG;
	err = verity_add(path, o, &info);
	sqk_api_out(given, size, &info, sizeof(info), 0, NULL);
	return err;
}
