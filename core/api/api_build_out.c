// SPDX-License-Identifier: BSD-2-Clause
/*
 * Where a build writes: the output at its path as util/outfile.c decides
 * for what the path holds (a file beside it and renamed, a block device
 * in place, a fifo or character device as a stream), with the bytes kept
 * in front under "offset"; the image an append adds to; the caller's
 * descriptor. And the output put in place at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api_build.h"
#include "mkfs/mkfs.h"
#include "util/outfile.h"

struct sqk_file *sqk_api_build_file(struct sqk_build *b)
{
	if (b->append)
		return sqk_mkfs_append_file(b->append);
	return b->window ? b->window : sqk_outfile_file(b->of);
}

/* A temporary file left by a writer that is gone, removed: the build's warning. */
static void stale(void *ctx, const char *path)
{
	struct sqk_build *b = ctx;

	if (b->mo.warn)
		b->mo.warn(b->mo.warn_ctx, path,
			   "removed a stale temporary file (its writer is gone)");
}

/* A stream's spool file, in $TMPDIR, could not be made (errno): said. */
static int spool_fail(int err)
{
	const char *dir = getenv("TMPDIR");
	int e = errno;

	sqk_api_build_step(SQK_STEP_OUTPUT_SPOOL);
	return sqk_api_fail(err, e, dir && *dir ? dir : "/tmp", "cannot create a spool file: %s",
			    strerror(e));
}

/* "offset": the existing file or device must hold the bytes kept, and no more unless "force". */
static int leading_check(const char *path, uint64_t n, int force)
{
	uint64_t size = 0;
	int err = sqk_mkfs_leading_check(path, n, force, &size);

	if (err == SQK_ERR_IO)
		return sqk_api_fail(err, errno, path, "offset needs the existing file: %s",
				    strerror(errno));
	if (err == SQK_ERR_ARG)
		return sqk_api_fail(err, 0, path, "offset needs a regular file or a block device");
	if (err == SQK_ERR_TRUNCATED)
		return sqk_api_fail(err, 0, path, "holds %llu bytes, fewer than the offset %llu",
				    (unsigned long long)size, (unsigned long long)n);
	if (err)
		return sqk_api_fail(err, 0, path,
				    "has bytes after offset %llu (set \"force\" to replace them)",
				    (unsigned long long)n);
	return 0;
}

/* Never read the image being written, nor the file it replaces, as a source. */
static void skip_output(struct sqk_build *b)
{
	uint64_t dev[2], ino[2];
	unsigned n = sqk_outfile_ids(b->of, dev, ino);

	for (unsigned i = 0; i < n; i++) {
		b->mo.skip_dev[b->mo.nskip] = dev[i];
		b->mo.skip_ino[b->mo.nskip++] = ino[i];
	}
}

/*
 * A new image at the path, holding the bytes kept in front with "offset"
 * (copied into the temporary file; on a device they are in place). 0, or
 * the error, said.
 */
static int open_output(struct sqk_build *b, const struct sqk_build_opts *o)
{
	struct sqk_outfile_how how = {o->force || o->offset, 1, stale, b};
	const char *path = b->path;
	int err, opened;

	sqk_api_build_step(SQK_STEP_OFFSET);
	err = o->offset ? leading_check(path, o->offset, o->force) : 0;
	if (err)
		return err;
	sqk_api_build_step(SQK_STEP_OUTPUT);
	errno = 0;
	err = sqk_outfile_create(path, &how, &b->of, &opened);
	if (err) {
		if (err == SQK_ERR_EXIST)
			return sqk_api_fail(err, 0, path,
					    "file exists (set \"force\" to replace it)");
		if (err == SQK_ERR_ARG)
			return sqk_api_fail(err, 0, path, "is a directory");
		if (opened == 2)
			return spool_fail(err);
		if (opened)
			sqk_api_build_step(SQK_STEP_OUTPUT_OPEN);
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, path, NULL);
	}
	skip_output(b);
	b->device = sqk_outfile_kind(b->of) == SQK_OUT_DEVICE;
	if (!o->offset)
		return 0;
	sqk_api_build_step(SQK_STEP_OFFSET_COPY);
	err = 0;
	if (sqk_outfile_kind(b->of) == SQK_OUT_FILE)
		err = sqk_mkfs_leading_copy(path, sqk_outfile_file(b->of), o->offset);
	if (!err && !(b->window = sqk_file_window_rw(sqk_outfile_file(b->of), o->offset)))
		err = SQK_ERR_NOMEM;
	return err ? sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, path, NULL) : 0;
}

/*
 * "append": the image at the path (after "offset" bytes), added to in
 * place with its own compressor settings and block size. 0, or the error,
 * said.
 */
static int open_append(struct sqk_build *b, const struct sqk_build_opts *o)
{
	char words[256];
	int why, errnum, err;

	sqk_api_build_step(SQK_STEP_APPEND);
	err = sqk_mkfs_append_open(b->path, o->offset, &b->append, &why, &errnum);
	if (err) {
		static const enum sqk_build_step steps[] = {
			[SQK_APPEND_OPEN] = SQK_STEP_APPEND_OPEN,
			[SQK_APPEND_NOT_REGULAR] = SQK_STEP_APPEND_NOT_REGULAR,
			[SQK_APPEND_LOCKED] = SQK_STEP_APPEND_LOCKED,
			[SQK_APPEND_PAST_END] = SQK_STEP_APPEND_PAST_END,
			[SQK_APPEND_NOT_IMAGE] = SQK_STEP_APPEND_NOT_IMAGE,
			[SQK_APPEND_IO] = SQK_STEP_APPEND_IO,
			[SQK_APPEND_IMAGE] = SQK_STEP_APPEND,
		};

		if (why > 0 && why <= SQK_APPEND_IMAGE)
			sqk_api_build_step(steps[why]);
		sqk_mkfs_append_say(why, errnum, o->offset, "append", words, sizeof(words));
		return *words ? sqk_api_fail(err, errnum, b->path, "%s", words)
			      : sqk_api_fail(err, errnum, b->path, NULL);
	}
	err = sqk_mkfs_append_settle(b->append, &b->mo, o->codec_given ? o->codec : NULL,
				     o->block_given ? o->mo.block_size : 0);
	if (err == SQK_ERR_ARG && o->codec_given && o->codec != sqk_mkfs_append_codec(b->append))
		return sqk_api_fail(err, 0, b->path,
				    "compressed with %s; append cannot add %s blocks",
				    sqk_mkfs_append_codec(b->append)->name, o->codec->name);
	if (err == SQK_ERR_ARG)
		return sqk_api_fail(err, 0, b->path, "block size %u; append cannot use %u",
				    sqk_mkfs_append_block_size(b->append), o->mo.block_size);
	return err ? sqk_api_fail(err, 0, b->path, NULL) : 0;
}

/*
 * An image written through the caller's descriptor fd: a regular file at
 * its start in place, anything else as a stream at its position (spooled,
 * copied out at finish). Never read as a source.
 */
static int open_fd(struct sqk_build *b, const struct sqk_build_opts *o, int fd)
{
	struct sqk_outfile_how how = {0, 1, NULL, NULL};
	int err;

	sqk_api_build_step(SQK_STEP_DESCRIPTOR);
	if (o->append || o->offset)
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path,
				    "an image written to a descriptor takes no %s",
				    o->append ? "append" : "offset");
	if (fcntl(fd, F_GETFL) < 0)
		return sqk_api_fail(SQK_ERR_IO, errno, b->path, NULL);
	errno = 0;
	err = sqk_outfile_fd(fd, &how, &b->of);
	if (err == SQK_ERR_IO)
		return spool_fail(err);
	if (err)
		return sqk_api_fail(err, 0, b->path, NULL);
	skip_output(b);
	return 0;
}

int sqk_api_build_open(struct sqk_build *b, const struct sqk_build_opts *o, int fd)
{
	if (fd >= 0)
		return open_fd(b, o, fd);
	return o->append ? open_append(b, o) : open_output(b, o);
}

int sqk_api_build_commit(struct sqk_build *b)
{
	int err;

	sqk_file_destroy(b->window);
	b->window = NULL;
	errno = 0;
	err = sqk_outfile_commit(b->of);
	b->of = NULL;
	return err;
}
