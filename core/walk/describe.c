// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the pseudo syntax can hold decides what is refused: a name is
 * written with '\' before white space, '"', '\' and a leading '#', but a
 * newline cannot be written at all (a file is read line by line); a symlink
 * target is the rest of its line, raw, so it cannot start with white space,
 * hold a newline or end in one backslash (that continues the line).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/cache.h"
#include "describe.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "util/array.h"
#include "util/error.h"

#define OUT_CAP 65536

struct sqk_describe {
	struct sqk_sink sink;
	struct sqk_image *img;
	int fd;
	char buf[OUT_CAP];
	size_t len;
	struct described { /* the R definitions, in order */
		uint64_t ref;
		char *path;
	} * files;
	size_t nfiles, cap;
	uint64_t offset; /* of the next file's data */
	uint64_t xattrs_left;
	uint8_t *zeros;
};

static int flush(struct sqk_describe *d)
{
	if (sqk_write_full(d->fd, d->buf, d->len, SQK_NO_OFFSET) != 0) {
		int e = errno, err = sqk_err_from_errno();

		sqk_fault_set(&d->sink.fault, err, e, 1, "");
		return err;
	}
	d->len = 0;
	return 0;
}

static int put(struct sqk_describe *d, const void *p, size_t len)
{
	const char *s = p;
	int err;

	while (len) {
		size_t n = OUT_CAP - d->len < len ? OUT_CAP - d->len : len;

		memcpy(d->buf + d->len, s, n);
		d->len += n;
		s += n;
		len -= n;
		if (d->len == OUT_CAP && (err = flush(d)))
			return err;
	}
	return 0;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Something of the entry being described that the syntax cannot hold (the walk adds its path). */
static int unsupported(struct sqk_describe *d, const char *why)
{
	sqk_fault_set(&d->sink.fault, SQK_ERR_UNSUPPORTED, 0, 0, "");
	snprintf(d->sink.fault.what, sizeof(d->sink.fault.what), "%s", why);
	return SQK_ERR_UNSUPPORTED;
}

/* A path as a pseudo name: "/" for the root. */
static int put_name(struct sqk_describe *d, const char *path)
{
	const char *s;
	int err = 0;

	if (!*path)
		return put(d, "/", 1);
	if (strchr(path, '\n'))
		return unsupported(d, "a name with a newline cannot be written in a pseudo file");
	for (s = path; *s && !err; s++) {
		if (is_ws(*s) || *s == '"' || *s == '\\' || (s == path && *s == '#'))
			err = put(d, "\\", 1);
		if (!err)
			err = put(d, s, 1);
	}
	return err;
}

static int putf(struct sqk_describe *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int putf(struct sqk_describe *d, const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return put(d, line, n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* NAME TYPE TIME MODE UID GID */
static int put_head(struct sqk_describe *d, const char *path, char type,
		    const struct sqk_inode *ino)
{
	int err = put_name(d, path);

	if (ino->xattr != SQK_INVALID_XATTR)
		d->xattrs_left++;
	return err ? err
		   : putf(d, " %c %" PRIu32 " %o %" PRIu32 " %" PRIu32, type, ino->mtime,
			  (unsigned)(ino->mode & 07777), ino->uid, ino->gid);
}

static int ds_dir_begin(struct sqk_sink *sink, const char *path, struct sqk_inode *ino)
{
	struct sqk_describe *d = (struct sqk_describe *)sink;
	int err = put_head(d, path, 'D', ino);

	return err ? err : put(d, "\n", 1);
}

static int ds_dir_end(struct sqk_sink *sink, const char *path, struct sqk_inode *ino)
{
	return 0;
}

static int check_target(struct sqk_describe *d, const char *t)
{
	size_t len = strlen(t);

	if (!len || is_ws(t[0]))
		return unsupported(d, "a symlink target that is empty or starts with white space "
				      "cannot be written in a pseudo file");
	if (strchr(t, '\n'))
		return unsupported(d, "a symlink target with a newline cannot be written in a "
				      "pseudo file");
	if (t[len - 1] == '\\' && (len < 2 || t[len - 2] != '\\'))
		return unsupported(d, "a symlink target ending in one backslash cannot be "
				      "written in a pseudo file");
	return 0;
}

static int ds_node(struct sqk_sink *sink, const char *path, struct sqk_inode *ino,
		   const char *link_to)
{
	struct sqk_describe *d = (struct sqk_describe *)sink;
	int err;

	if (link_to) {
		err = put_name(d, path);
		if (!err)
			err = put(d, " L ", 3);
		if (!err)
			err = put_name(d, link_to);
		return err ? err : put(d, "\n", 1);
	}
	switch (ino->mode & S_IFMT) {
	case S_IFREG:
		if (SQK_ARRAY_GROW(d->files, d->cap, d->nfiles + 1))
			return SQK_ERR_NOMEM;
		d->files[d->nfiles].path = strdup(path);
		if (!d->files[d->nfiles].path)
			return SQK_ERR_NOMEM;
		d->files[d->nfiles++].ref = ino->ref;
		err = put_head(d, path, 'R', ino);
		if (!err)
			err = putf(d, " %" PRIu64 " %" PRIu64 "\n", ino->size, d->offset);
		d->offset += ino->size;
		return err;
	case S_IFLNK:
		err = check_target(d, ino->target);
		if (!err)
			err = put_head(d, path, 'S', ino);
		if (!err)
			err = putf(d, " ");
		if (!err)
			err = put(d, ino->target, strlen(ino->target));
		return err ? err : put(d, "\n", 1);
	case S_IFBLK:
	case S_IFCHR:
		err = put_head(d, path, S_ISBLK(ino->mode) ? 'B' : 'C', ino);
		return err ? err
			   : putf(d, " %" PRIu32 " %" PRIu32 "\n", sqk_dev_major(ino->rdev),
				  sqk_dev_minor(ino->rdev));
	case S_IFIFO:
	case S_IFSOCK:
		err = put_head(d, path, 'I', ino);
		return err ? err : put(d, S_ISFIFO(ino->mode) ? " f\n" : " s\n", 3);
	}
	return SQK_ERR_CORRUPT;
}

int sqk_describe_create(struct sqk_image *img, int fd, struct sqk_describe **out)
{
	struct sqk_describe *d = calloc(1, sizeof(*d));

	if (!d)
		return SQK_ERR_NOMEM;
	d->zeros = calloc(1, sqk_image_super(img)->block_size);
	if (!d->zeros) {
		free(d);
		return SQK_ERR_NOMEM;
	}
	d->sink.dir_begin = ds_dir_begin;
	d->sink.dir_end = ds_dir_end;
	d->sink.node = ds_node;
	d->img = img;
	d->fd = fd;
	*out = d;
	return 0;
}

struct sqk_sink *sqk_describe_sink(struct sqk_describe *d)
{
	return &d->sink;
}

static int put_data(struct sqk_describe *d, const struct sqk_inode *ino)
{
	struct sqk_data_cursor c;
	struct sqk_cache_entry *e;
	uint64_t done = 0;
	uint32_t i, len;
	int err = 0;

	sqk_data_begin(&c, ino);
	for (i = 0; !err && i < ino->nblocks; i++) {
		err = sqk_data_next(d->img, &c, &e, &len);
		if (!err) {
			err = put(d, e ? e->data : d->zeros, len);
			done += len;
		}
		sqk_cache_put(e);
	}
	if (!err && ino->frag_index != SQK_INVALID_FRAG) {
		const uint8_t *tail;

		err = sqk_data_tail(d->img, ino, &e, &tail, &len);
		if (!err) {
			err = put(d, tail, len);
			done += len;
		}
		sqk_cache_put(e);
	}
	/* The offsets written already promised exactly size bytes. */
	if (!err && done != ino->size)
		err = SQK_ERR_CORRUPT;
	return err;
}

int sqk_describe_finish(struct sqk_describe *d)
{
	size_t i;
	int err = 0;

	static const char marker[] = "#\n# START OF DATA - DO NOT MODIFY\n#\n";

	if (d->nfiles)
		err = put(d, marker, sizeof(marker) - 1);
	for (i = 0; i < d->nfiles && !err; i++) {
		struct sqk_inode ino;

		err = sqk_inode_read(d->img, d->files[i].ref, &ino);
		if (!err) {
			err = put_data(d, &ino);
			sqk_inode_free(&ino);
		}
		/* The image's failure, at the file it was reading. */
		if (err)
			sqk_fault_set(&d->sink.fault, err, 0, 0, d->files[i].path);
	}
	return err ? err : flush(d);
}

void sqk_describe_destroy(struct sqk_describe *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nfiles; i++)
		free(d->files[i].path);
	free(d->files);
	free(d->zeros);
	free(d);
}

uint64_t sqk_describe_xattrs_left(const struct sqk_describe *d)
{
	return d->xattrs_left;
}
