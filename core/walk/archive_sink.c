// SPDX-License-Identifier: BSD-2-Clause
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "archive_sink.h"
#include "cache/cache.h"
#include "format/fmt_block.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "read/xattr.h"
#include "util/array.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/xattr_filter.h"

/* A file left out (its data cannot be read): its inode and why. */
struct lost_file {
	uint32_t number;
	int err;
};

struct sqk_archive_sink {
	struct sqk_sink sink;
	struct sqk_image *img;
	struct archive *a;
	int fd;
	int errnum; /* of the write that failed */
	int pax;
	int no_links; /* zip has no hard links: each one gets the data again */
	int cpio;     /* links are told by inode number and link count */
	int no_xattrs;
	const struct sqk_xattr_filter *filter;
	void (*warn)(void *ctx, const char *path, const char *what);
	void *warn_ctx;
	uint8_t *zeros;
	struct lost_file *lost; /* --keep-going: files left out, so that their links are too */
	size_t nlost;
	char *name;
	size_t name_cap;
};

static const struct {
	const char *name;
	int (*set)(struct archive *);
} formats[] = {
	{"pax", archive_write_set_format_pax},	   {"gnu", archive_write_set_format_gnutar},
	{"ustar", archive_write_set_format_ustar}, {"cpio", archive_write_set_format_cpio_newc},
	{"zip", archive_write_set_format_zip},
};

int sqk_archive_format_known(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return 1;
	return 0;
}

/* Archive member names: "." for the root, "./path" below it. */
static const char *member(struct sqk_archive_sink *s, const char *path)
{
	size_t len = strlen(path) + 3;

	if (SQK_ARRAY_GROW(s->name, s->name_cap, len))
		return NULL;
	if (*path)
		snprintf(s->name, s->name_cap, "./%s", path);
	else
		snprintf(s->name, s->name_cap, ".");
	return s->name;
}

static int add_xattrs(struct sqk_archive_sink *s, struct archive_entry *ae,
		      const struct sqk_inode *ino)
{
	struct sqk_xattr *xs;
	uint32_t n, i;
	int err;

	if (s->no_xattrs || ino->xattr == SQK_INVALID_XATTR)
		return 0;
	err = sqk_xattr_read(s->img, ino->xattr, &xs, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (sqk_xattr_filter_pass(s->filter, xs[i].name))
			archive_entry_xattr_add_entry(ae, xs[i].name, xs[i].value, xs[i].value_len);
	sqk_xattr_free(xs, n);
	return 0;
}

static struct archive_entry *make_entry(struct sqk_archive_sink *s, const char *path,
					const struct sqk_inode *ino, int *err)
{
	struct archive_entry *ae = archive_entry_new();
	const char *name = member(s, path);

	if (!ae || !name) {
		archive_entry_free(ae);
		*err = SQK_ERR_NOMEM;
		return NULL;
	}
	archive_entry_set_pathname(ae, name);
	archive_entry_set_mode(ae, ino->mode);
	archive_entry_set_uid(ae, ino->uid);
	archive_entry_set_gid(ae, ino->gid);
	archive_entry_set_mtime(ae, ino->mtime, 0);
	/*
	 * A cpio reader knows the names of one file by their inode number and
	 * link count, never by a link name: GNU cpio and the kernel's
	 * initramfs link a name whose number they have seen, the data coming
	 * with one of them and the others empty.
	 */
	if (s->cpio) {
		archive_entry_set_ino(ae, ino->number);
		archive_entry_set_nlink(ae, ino->nlink);
	}
	*err = add_xattrs(s, ae, ino);
	if (*err) {
		archive_entry_free(ae);
		return NULL;
	}
	return ae;
}

/*
 * libarchive's output. A failed write keeps its errno (libarchive's own
 * message would say only "Write error") and every later one is dropped,
 * each call told it went through: the sink checks after each call of
 * libarchive, and libarchive, never put in its fatal state, frees what it
 * holds (libarchive 3.6 leaks its output buffer after a fatal write).
 */
static la_ssize_t out_write(struct archive *a, void *ctx, const void *buf, size_t len)
{
	struct sqk_archive_sink *s = ctx;

	if (!s->errnum && sqk_write_full(s->fd, buf, len, SQK_NO_OFFSET) != 0)
		s->errnum = errno;
	return (la_ssize_t)len;
}

/*
 * A call of libarchive failed: the output's errno when a write failed,
 * else libarchive's words about the entry at path.
 */
static int archive_failed(struct sqk_archive_sink *s, const char *path)
{
	const char *m = archive_error_string(s->a);
	int err;

	if (s->errnum) {
		err = s->errnum == ENOSPC || s->errnum == EDQUOT ? SQK_ERR_NOSPACE : SQK_ERR_IO;
		sqk_fault_set(&s->sink.fault, err, s->errnum, 1, "");
		return err;
	}
	sqk_fault_set(&s->sink.fault, SQK_ERR_ARCHIVE, 0, 0, path);
	if (m)
		snprintf(s->sink.fault.what, sizeof(s->sink.fault.what), "%s", m);
	return SQK_ERR_ARCHIVE;
}

static int write_header(struct sqk_archive_sink *s, const char *path, struct archive_entry *ae)
{
	int r = archive_write_header(s->a, ae);

	archive_entry_free(ae);
	return r < ARCHIVE_WARN || s->errnum ? archive_failed(s, path) : 0;
}

static int put(struct sqk_archive_sink *s, const char *path, const void *p, size_t len)
{
	while (len > 0) {
		la_ssize_t n = archive_write_data(s->a, p, len);

		if (n < 0 || s->errnum)
			return archive_failed(s, path);
		if (n == 0)
			break;
		p = (const uint8_t *)p + n;
		len -= (size_t)n;
	}
	return 0;
}

/* In pax, the data regions become the sparse map; holes are fed as zeros and skipped. */
static void add_sparse_map(struct sqk_archive_sink *s, struct archive_entry *ae,
			   const struct sqk_inode *ino)
{
	uint32_t bs = sqk_image_super(s->img)->block_size, i;
	uint64_t start = 0, end = 0;
	int in_data = 0, any_hole = 0;

	for (i = 0; i < ino->nblocks; i++)
		if (sqk_fmt_block_size(ino->blocks[i]) == 0)
			any_hole = 1;
	if (!s->pax || !any_hole)
		return;
	for (i = 0; i <= ino->nblocks; i++) {
		int data = i < ino->nblocks ? sqk_fmt_block_size(ino->blocks[i]) != 0 : 0;
		uint64_t off = (uint64_t)i * bs;

		if (data && !in_data)
			start = off;
		if (!data && in_data) {
			end = off > ino->size ? ino->size : off;
			archive_entry_sparse_add_entry(ae, (la_int64_t)start,
						       (la_int64_t)(end - start));
		}
		in_data = data;
	}
	/* The tail in a fragment is data too. */
	if (ino->frag_index != SQK_INVALID_FRAG)
		archive_entry_sparse_add_entry(
			ae, (la_int64_t)((uint64_t)ino->nblocks * bs),
			(la_int64_t)(ino->size - (uint64_t)ino->nblocks * bs));
	else if (!end && !in_data)
		archive_entry_sparse_add_entry(ae, (la_int64_t)ino->size, 0);
}

/*
 * The file's data into the archive, or (path NULL) only read: with
 * --keep-going every block is read once before the header goes out, as a
 * file the archive announced cannot be left out any more.
 */
static int file_data(struct sqk_archive_sink *s, const char *path, const struct sqk_inode *ino)
{
	struct sqk_data_cursor c;
	struct sqk_cache_entry *e;
	uint32_t i, len;
	int err = 0;

	sqk_data_begin(&c, ino);
	for (i = 0; !err && i < ino->nblocks; i++) {
		err = sqk_data_next(s->img, &c, &e, &len);
		if (!err && path)
			err = put(s, path, e ? e->data : s->zeros, len);
		sqk_cache_put(e);
		if (!err && sqk_sig_caught())
			err = SQK_ERR_INTR;
	}
	if (!err && ino->frag_index != SQK_INVALID_FRAG) {
		const uint8_t *tail;

		err = sqk_data_tail(s->img, ino, &e, &tail, &len);
		if (!err && path)
			err = put(s, path, tail, len);
		sqk_cache_put(e);
	}
	return err;
}

/* Name an entry left out (its file's data cannot be read) and remember its inode. */
static int left_out(struct sqk_archive_sink *s, const char *path, const struct sqk_inode *ino,
		    int why, int *err)
{
	struct lost_file *l = realloc(s->lost, (s->nlost + 1) * sizeof(*l));
	struct sqk_fault f;

	if (!l) {
		*err = SQK_ERR_NOMEM;
		return 0;
	}
	s->lost = l;
	l[s->nlost].number = ino->number;
	l[s->nlost++].err = why;
	memset(&f, 0, sizeof(f));
	sqk_fault_set(&f, why, 0, 0, path);
	*err = s->sink.lost(s->sink.lost_ctx, &f);
	return 0;
}

/*
 * --keep-going: a file whose data cannot be read is named and left out
 * (0), or its failure ends the walk; 1 to write it.
 */
static int readable(struct sqk_archive_sink *s, const char *path, const struct sqk_inode *ino,
		    int *err)
{
	*err = 0;
	if (!s->sink.lost)
		return 1;
	*err = file_data(s, NULL, ino);
	if (!*err || *err == SQK_ERR_NOMEM || *err == SQK_ERR_INTR)
		return !*err;
	return left_out(s, path, ino, *err, err);
}

/* The error of the file left out whose hard link ino is, or 0. */
static int lost_link(const struct sqk_archive_sink *s, const struct sqk_inode *ino)
{
	size_t i;

	for (i = 0; i < s->nlost; i++)
		if (s->lost[i].number == ino->number)
			return s->lost[i].err;
	return 0;
}

static int as_dir_begin(struct sqk_sink *sink, const char *path, struct sqk_inode *ino)
{
	struct sqk_archive_sink *s = (struct sqk_archive_sink *)sink;
	struct archive_entry *ae;
	int err;

	ae = make_entry(s, path, ino, &err);
	if (!ae)
		return err;
	archive_entry_set_size(ae, 0);
	return write_header(s, path, ae);
}

static int as_dir_end(struct sqk_sink *sink, const char *path, struct sqk_inode *ino)
{
	return 0;
}

static int as_node(struct sqk_sink *sink, const char *path, struct sqk_inode *ino,
		   const char *link_to)
{
	struct sqk_archive_sink *s = (struct sqk_archive_sink *)sink;
	struct archive_entry *ae;
	int err;

	/* No archive format has a socket type; tar skips them too. */
	if (S_ISSOCK(ino->mode)) {
		if (s->warn)
			s->warn(s->warn_ctx, path, "socket ignored");
		return 0;
	}
	if (link_to && (err = lost_link(s, ino)) != 0) {
		left_out(s, path, ino, err, &err);
		return err;
	}
	ae = make_entry(s, path, ino, &err);
	if (!ae)
		return err;
	/*
	 * A further name of a file: in tar, a link to the first name; in cpio,
	 * the same inode number with no data of its own (the first name
	 * carried it), and any other type whole, as GNU cpio writes it.
	 */
	if (link_to && s->cpio && S_ISREG(ino->mode)) {
		archive_entry_set_size(ae, 0);
		return write_header(s, path, ae);
	}
	if (link_to && !s->no_links && !s->cpio) {
		char *target = strdup(member(s, link_to));

		if (!target) {
			archive_entry_free(ae);
			return SQK_ERR_NOMEM;
		}
		archive_entry_set_pathname(ae, member(s, path));
		archive_entry_set_hardlink(ae, target);
		archive_entry_set_size(ae, 0);
		free(target);
		return write_header(s, path, ae);
	}
	switch (ino->mode & S_IFMT) {
	case S_IFREG:
		if (!readable(s, path, ino, &err)) {
			archive_entry_free(ae);
			return err;
		}
		archive_entry_set_size(ae, (la_int64_t)ino->size);
		add_sparse_map(s, ae, ino);
		err = write_header(s, path, ae);
		return err ? err : file_data(s, path, ino);
	case S_IFLNK:
		archive_entry_set_symlink(ae, ino->target);
		break;
	case S_IFBLK:
	case S_IFCHR:
		archive_entry_set_rdevmajor(ae, sqk_dev_major(ino->rdev));
		archive_entry_set_rdevminor(ae, sqk_dev_minor(ino->rdev));
		break;
	}
	archive_entry_set_size(ae, 0);
	return write_header(s, path, ae);
}

void sqk_archive_sink_set_filter(struct sqk_archive_sink *s, const struct sqk_xattr_filter *f)
{
	s->filter = f;
}

int sqk_archive_sink_create(struct sqk_image *img, int fd, const char *format, int no_xattrs,
			    void (*warn)(void *ctx, const char *path, const char *what),
			    void *warn_ctx, struct sqk_archive_sink **out)
{
	struct sqk_archive_sink *s = calloc(1, sizeof(*s));
	size_t i;

	*out = NULL;
	if (!s)
		return SQK_ERR_NOMEM;
	s->sink.dir_begin = as_dir_begin;
	s->sink.dir_end = as_dir_end;
	s->sink.node = as_node;
	s->img = img;
	s->no_xattrs = no_xattrs;
	s->warn = warn;
	s->warn_ctx = warn_ctx;
	s->pax = strcmp(format, "pax") == 0;
	s->no_links = strcmp(format, "zip") == 0;
	s->cpio = strcmp(format, "cpio") == 0;
	s->zeros = calloc(1, sqk_image_super(img)->block_size);
	s->a = archive_write_new();
	if (!s->zeros || !s->a)
		goto fail;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, format) == 0)
			break;
	if (i == sizeof(formats) / sizeof(formats[0]) || formats[i].set(s->a) != ARCHIVE_OK)
		goto fail;
	/* GNU tar reads SCHILY.xattr.* and warns about libarchive's own keyword. */
	if (s->pax)
		archive_write_set_format_option(s->a, "pax", "xattrheader", "SCHILY");
	archive_write_set_bytes_per_block(s->a, 10240);
	s->fd = fd;
	if (archive_write_open2(s->a, s, NULL, out_write, NULL, NULL) != ARCHIVE_OK)
		goto fail;
	*out = s;
	return 0;
fail:
	sqk_archive_sink_destroy(s);
	return SQK_ERR_ARCHIVE;
}

struct sqk_sink *sqk_archive_sink_sink(struct sqk_archive_sink *s)
{
	return &s->sink;
}

int sqk_archive_sink_finish(struct sqk_archive_sink *s)
{
	return archive_write_close(s->a) == ARCHIVE_OK && !s->errnum ? 0 : archive_failed(s, "");
}

void sqk_archive_sink_destroy(struct sqk_archive_sink *s)
{
	if (!s)
		return;
	if (s->a)
		archive_write_free(s->a);
	free(s->zeros);
	free(s->lost);
	free(s->name);
	free(s);
}
