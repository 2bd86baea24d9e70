// SPDX-License-Identifier: BSD-2-Clause
/*
 * Archives through libarchive: tar, pax, GNU, cpio, zip, plain or
 * compressed, from a file or stdin. An archive can only be read in its own
 * order, so each file's data goes to the block pipeline while it streams
 * by (sparse entries keep their holes); only entries without a size are
 * spooled to a temporary file first. Nothing here needs root.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "src.h"
#include "src_archive.h"
#include "util/error.h"
#include "write/reuse.h"

struct stream {
	struct archive *a;
	const uint8_t *chunk;
	size_t chunk_len;
	uint64_t chunk_off;
	int eof;
};

static uint32_t clamp_u32(int64_t v)
{
	if (v < 0)
		return 0;
	if (v > 0xffffffffll)
		return 0xffffffffu;
	return (uint32_t)v;
}

static int fail_archive(struct sqk_src_ctx *c, struct archive *a, const char *what)
{
	const char *msg = archive_error_string(a);

	errno = 0;
	sqk_src_fail(c, what, "%s", msg ? msg : "archive error");
	return SQK_ERR_ARCHIVE;
}

static int next_chunk(struct sqk_src_ctx *c, struct stream *s, const char *path)
{
	const void *buf;
	size_t len;
	la_int64_t off;
	int r = archive_read_data_block(s->a, &buf, &len, &off);

	if (r == ARCHIVE_EOF) {
		s->eof = 1;
		s->chunk_len = 0;
		return 0;
	}
	if (r < ARCHIVE_WARN)
		return fail_archive(c, s->a, path);
	s->chunk = buf;
	s->chunk_len = len;
	s->chunk_off = (uint64_t)off;
	return 0;
}

/* Feed one entry's data; gaps between data blocks are holes. */
static int feed_stream(struct sqk_src_ctx *c, struct stream *s, uint64_t size, const char *path,
		       uint64_t *id)
{
	int err = sqk_data_file_begin(c->dw, size, id);

	s->chunk_len = 0;
	s->eof = 0;
	while (!err) {
		uint8_t *buf;
		uint32_t len;
		uint64_t off, cur, end;
		int r, hole = 1;

		r = sqk_data_piece(c->dw, &buf, &len, &off);
		if (r)
			return r < 0 ? r : 0;
		cur = off;
		end = off + len;
		while (cur < end) {
			uint64_t n;

			if (!s->chunk_len && !s->eof) {
				err = next_chunk(c, s, path);
				if (err)
					return err;
				continue;
			}
			if (s->eof || s->chunk_off >= end)
				break;
			if (s->chunk_off + s->chunk_len <= cur) {
				s->chunk_len = 0; /* data before this point was given already */
				continue;
			}
			if (s->chunk_off > cur) {
				if (!hole)
					memset(buf + (cur - off), 0, (size_t)(s->chunk_off - cur));
				cur = s->chunk_off;
			}
			if (hole && cur > off)
				memset(buf, 0, (size_t)(cur - off));
			hole = 0;
			n = s->chunk_off + s->chunk_len - cur;
			if (n > end - cur)
				n = end - cur;
			memcpy(buf + (cur - off), s->chunk + (cur - s->chunk_off), (size_t)n);
			cur += n;
			if (cur == s->chunk_off + s->chunk_len)
				s->chunk_len = 0;
		}
		if (!hole && cur < end)
			memset(buf + (cur - off), 0, (size_t)(end - cur));
		err = sqk_data_piece_done(c->dw, hole);
	}
	return err;
}

/* An entry without a size: spool it to learn the size, then feed the spool. */
static int feed_unsized(struct sqk_src_ctx *c, struct archive *a, uint64_t *size, const char *path,
			uint64_t *id)
{
	FILE *tmp = tmpfile();
	char buf[65536];
	la_ssize_t n;
	int err = 0;

	if (!tmp) {
		sqk_src_fail(c, "temporary file", "%s", strerror(errno));
		return SQK_ERR_IO;
	}
	while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, (size_t)n, tmp) != (size_t)n) {
			sqk_src_fail(c, "temporary file", "%s", strerror(errno));
			fclose(tmp);
			return sqk_err_from_errno();
		}
	}
	if (n < 0) {
		fclose(tmp);
		return fail_archive(c, a, path);
	}
	if (fflush(tmp) != 0) {
		sqk_src_fail(c, "temporary file", "%s", strerror(errno));
		fclose(tmp);
		return SQK_ERR_IO;
	}
	*size = (uint64_t)ftello(tmp);
	err = sqk_src_feed_fd(c, fileno(tmp), path, *size, id);
	fclose(tmp);
	return err;
}

static void set_attrs(struct sqk_src_ctx *c, struct sqk_node *n, struct archive_entry *e,
		      const char *path)
{
	n->mode = archive_entry_perm(e) & 07777;
	n->uid = clamp_u32(archive_entry_uid(e));
	n->gid = clamp_u32(archive_entry_gid(e));
	n->mtime = sqk_src_time(c, path, archive_entry_mtime(e));
}

static int read_xattrs(struct sqk_src_ctx *c, struct archive_entry *e, struct sqk_node *n)
{
	int cnt = archive_entry_xattr_reset(e), i = 0, err;
	struct sqk_xattr_in *in;
	const char *name;
	const void *value;
	size_t size;

	if (cnt <= 0 || !c->xattrs)
		return 0;
	in = calloc((size_t)cnt, sizeof(*in));
	if (!in)
		return SQK_ERR_NOMEM;
	while (i < cnt && archive_entry_xattr_next(e, &name, &value, &size) == ARCHIVE_OK) {
		if (!sqk_xattr_filter_pass(c->xattr_filter, name))
			continue;
		in[i].name = name;
		in[i].value = value;
		in[i].value_len = size;
		i++;
	}
	err = sqk_xattrs_intern(c->xattrs, in, (size_t)i, &n->xattrs, &c->xattrs_skipped);
	free(in);
	return err;
}

static unsigned node_type(mode_t t)
{
	switch (t) {
	case AE_IFDIR:
		return SQK_DIR;
	case AE_IFREG:
		return SQK_FILE;
	case AE_IFLNK:
		return SQK_SYMLINK;
	case AE_IFBLK:
		return SQK_BLKDEV;
	case AE_IFCHR:
		return SQK_CHRDEV;
	case AE_IFIFO:
		return SQK_FIFO;
	case AE_IFSOCK:
		return SQK_SOCKET;
	}
	return 0;
}

/* The entry's data to the pipeline, now: node n (id) is told where it went. */
static int feed_node(struct sqk_src_ctx *c, struct stream *s, sqk_nid id, struct sqk_node *n,
		     struct archive_entry *e, const char *path, sqk_nid parent, const char *name,
		     size_t len)
{
	uint64_t size = (uint64_t)(archive_entry_size(e) > 0 ? archive_entry_size(e) : 0), data;
	struct sqk_node d;
	int err = sqk_tree_get(c->tree, parent, &d);

	if (err)
		return err;
	/* Data goes to the pipeline now, so its path is told now (--reuse finds it by it). */
	sqk_data_next_key(c->dw, sqk_reuse_entry_key(&d, name, len));
	if (archive_entry_size_is_set(e))
		err = feed_stream(c, s, size, path, &data);
	else
		err = feed_unsized(c, s->a, &size, path, &data);
	if (err)
		return err;
	n->size = size;
	n->file.srclen = 0;
	sqk_src_data_done(n, data);
	return sqk_tree_put(c->tree, id, n);
}

/* A hard link to an earlier entry, at parent/name. */
static int hard_link(struct sqk_src_ctx *c, struct stream *s, struct archive_entry *e,
		     const char *path, const char *link, sqk_nid parent, const char *name,
		     size_t len)
{
	struct sqk_node n;
	sqk_nid lp, node = 0;
	const char *ln;
	size_t ll;
	int err;

	while (link[0] == '/')
		link++;
	err = sqk_tree_walk_parent(c->tree, link, &lp, &ln, &ll);
	if (!err && ll)
		err = sqk_tree_lookup(c->tree, lp, ln, ll, &node);
	if (!err && node)
		err = sqk_tree_get(c->tree, node, &n);
	if (err && err != SQK_ERR_BADNAME && err != SQK_ERR_NOTDIR)
		return err;
	if (err || !node || n.type == SQK_DIR) {
		errno = 0;
		sqk_src_fail(c, path, "hard link to '%s', which is not in the archive before it",
			     link);
		return SQK_ERR_ARCHIVE;
	}
	if (c->no_hardlinks) {
		err = sqk_tree_clone(c->tree, node, &node);
		if (!err)
			err = sqk_tree_get(c->tree, node, &n);
		if (err)
			return err;
	}
	/* cpio keeps a link group's data with its last member. */
	if (n.type == SQK_FILE && archive_entry_size_is_set(e) && archive_entry_size(e) > 0) {
		err = feed_node(c, s, node, &n, e, path, parent, name, len);
		if (err)
			return err;
	}
	return sqk_tree_add(c->tree, parent, name, len, node);
}

/* What a symlink or a device holds besides its attributes: its target, its numbers. */
static int special(struct sqk_tree *t, struct sqk_node *n, struct archive_entry *e)
{
	const char *target = archive_entry_symlink(e);

	switch (n->type) {
	case SQK_SYMLINK:
		if (!target)
			target = "";
		n->size = strlen(target);
		return sqk_tree_str(t, target, n->size, &n->target);
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		n->dev.major = (uint32_t)archive_entry_rdevmajor(e);
		n->dev.minor = (uint32_t)archive_entry_rdevminor(e);
		break;
	}
	return 0;
}

/* A new node for the entry, and what it holds: data, a target, device numbers. */
static int new_node(struct sqk_src_ctx *c, struct stream *s, struct archive_entry *e,
		    const char *path, unsigned type, sqk_nid parent, const char *name, size_t len,
		    sqk_nid *id)
{
	struct sqk_node n;
	int err = sqk_tree_new(c->tree, type, id, &n);

	if (err)
		return err;
	set_attrs(c, &n, e, path);
	err = read_xattrs(c, e, &n);
	if (err)
		return err;
	if (type == SQK_FILE)
		return feed_node(c, s, *id, &n, e, path, parent, name, len);
	err = special(c->tree, &n, e);
	return err ? err : sqk_tree_put(c->tree, *id, &n);
}

/* Does an --exclude pattern match path? They see it without "./" and trailing '/'. */
static int excluded(struct sqk_src_ctx *c, const char *path)
{
	char norm[4096];
	size_t n;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	n = strlen(path);
	if (n >= sizeof(norm))
		n = sizeof(norm) - 1;
	memcpy(norm, path, n);
	while (n && norm[n - 1] == '/')
		n--;
	norm[n] = '\0';
	return n && sqk_src_excluded_path(c, norm);
}

static int entry(struct sqk_src_ctx *c, struct stream *s, struct archive_entry *e,
		 const char *apath)
{
	const char *path = archive_entry_pathname(e), *link = archive_entry_hardlink(e);
	sqk_nid parent, node, old;
	struct sqk_node o;
	const char *name;
	size_t len;
	unsigned type;
	int err;

	if (!path)
		path = archive_entry_pathname_utf8(e);
	if (!path) {
		errno = 0;
		sqk_src_fail(c, apath, "an entry has no name");
		return SQK_ERR_ARCHIVE;
	}
	while (path[0] == '/')
		path++;
	if (excluded(c, path))
		return 0;
	err = sqk_tree_walk_parent(c->tree, path, &parent, &name, &len);
	if (err == SQK_ERR_NOTDIR || err == SQK_ERR_BADNAME) {
		errno = 0;
		sqk_src_fail(c, path,
			     err == SQK_ERR_NOTDIR ? "a parent is not a directory"
						   : "unsafe path in archive");
		return SQK_ERR_ARCHIVE;
	}
	if (err)
		return err;
	if (link) {
		err = hard_link(c, s, e, path, link, parent, name, len);
		goto added;
	}
	type = node_type(archive_entry_filetype(e));
	if (!type) {
		errno = 0;
		sqk_src_fail(c, path, "unsupported entry type in archive");
		return SQK_ERR_UNSUPPORTED;
	}
	if (!len) {
		if (type != SQK_DIR) {
			errno = 0;
			sqk_src_fail(c, path, "the root entry is not a directory");
			return SQK_ERR_ARCHIVE;
		}
		err = sqk_tree_get(c->tree, SQK_NID_ROOT, &o);
		if (err)
			return err;
		set_attrs(c, &o, e, "/");
		o.flags &= ~SQK_NODE_IMPLICIT;
		err = read_xattrs(c, e, &o);
		return err ? err : sqk_tree_put(c->tree, SQK_NID_ROOT, &o);
	}
	err = sqk_tree_lookup(c->tree, parent, name, len, &old);
	if (!err && old)
		err = sqk_tree_get(c->tree, old, &o);
	if (err)
		return err;
	if (old && o.type == SQK_DIR && type == SQK_DIR) {
		/* Made earlier as a parent, or given twice: the entry's attributes win. */
		set_attrs(c, &o, e, path);
		o.flags &= ~SQK_NODE_IMPLICIT;
		o.xattrs = NULL;
		err = read_xattrs(c, e, &o);
		return err ? err : sqk_tree_put(c->tree, old, &o);
	}
	if (old && type == SQK_FILE) {
		/* Refused before its data is read. */
		err = SQK_ERR_EXIST;
		goto added;
	}
	err = new_node(c, s, e, path, type, parent, name, len, &node);
	if (err)
		return err;
	err = sqk_tree_add(c->tree, parent, name, len, node);
added:
	if (err == SQK_ERR_EXIST) {
		errno = 0;
		sqk_src_fail(c, path, "given more than once");
		return err;
	}
	if (err == SQK_ERR_ARCHIVE)
		return err;
	if (err) {
		errno = 0;
		sqk_src_fail(c, path, "%s", sqk_strerror(err));
		return err;
	}
	c->entries++;
	return 0;
}

/*
 * The formats and compressions mkimage(1) lists, and no others: libarchive
 * would otherwise take any text for an mtree description, and empty input
 * for an empty archive.
 */
void sqk_src_archive_formats(struct archive *a)
{
	archive_read_support_format_tar(a); /* ustar, pax, GNU tar */
	archive_read_support_format_cpio(a);
	archive_read_support_format_zip(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_lzma(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_lz4(a);
	archive_read_support_filter_compress(a);
}

/* The input, read here: its size tells an empty input, its errno a failed read. */
struct input {
	int fd;
	uint64_t bytes;
	int errnum;
	uint8_t buf[1 << 16];
};

static la_ssize_t input_read(struct archive *a, void *ctx, const void **buf)
{
	struct input *in = ctx;
	ssize_t n;

	do
		n = read(in->fd, in->buf, sizeof(in->buf));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		in->errnum = errno;
		archive_set_error(a, errno, "%s", strerror(errno));
		return -1;
	}
	in->bytes += (uint64_t)n;
	*buf = in->buf;
	return n;
}

/* The input could not be read: its errno's words. */
static int input_failed(struct sqk_src_ctx *c, int e, const char *name)
{
	errno = e;
	sqk_src_fail(c, name, "%s", strerror(e));
	return SQK_ERR_IO;
}

/* The archive could not be opened or its first header read: what the input is not. */
static int not_an_archive(struct sqk_src_ctx *c, struct archive *a, const struct input *in,
			  const char *name)
{
	if (in->errnum)
		return input_failed(c, in->errnum, name);
	errno = 0;
	if (in->bytes == 0)
		sqk_src_fail(c, name, "empty input, not an archive");
	else if (archive_format(a) == 0)
		sqk_src_fail(c, name, "not a tar, cpio or zip archive");
	else
		return fail_archive(c, a, name);
	return SQK_ERR_ARCHIVE;
}

int sqk_src_archive(struct sqk_src_ctx *c, const char *path)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct stream s = {0};
	const char *name = strcmp(path, "-") == 0 ? "stdin" : path;
	struct input *in = calloc(1, sizeof(*in));
	int r, err = 0, first = 1;

	if (!a || !in) {
		archive_read_free(a);
		free(in);
		return SQK_ERR_NOMEM;
	}
	sqk_src_archive_formats(a);
	in->fd = STDIN_FILENO;
	if (strcmp(path, "-") != 0) {
		do
			in->fd = open(path, O_RDONLY | O_CLOEXEC);
		while (in->fd < 0 && errno == EINTR);
		if (in->fd < 0) {
			err = input_failed(c, errno, name);
			goto out;
		}
	}
	r = archive_read_open(a, in, NULL, input_read, NULL);
	if (r != ARCHIVE_OK) {
		err = not_an_archive(c, a, in, name);
		goto out;
	}
	s.a = a;
	for (;;) {
		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			err = first ? not_an_archive(c, a, in, name) : fail_archive(c, a, name);
			break;
		}
		first = 0;
		err = entry(c, &s, e, name);
		if (err)
			break;
	}
out:
	archive_read_free(a);
	if (in->fd != STDIN_FILENO && in->fd >= 0)
		close(in->fd);
	free(in);
	return err;
}

/*
 * What layered sources (src_layers.c) make of an archive's entries, the
 * same way as an archive source: wrappers of the functions above.
 */
int sqk_src_archive_excluded(struct sqk_src_ctx *c, const char *path)
{
	return excluded(c, path);
}

unsigned sqk_src_archive_type(struct archive_entry *e)
{
	return node_type(archive_entry_filetype(e));
}

int sqk_src_archive_attrs(struct sqk_src_ctx *c, struct sqk_node *n, struct archive_entry *e,
			  const char *path)
{
	set_attrs(c, n, e, path);
	n->xattrs = NULL;
	return read_xattrs(c, e, n);
}

int sqk_src_archive_special(struct sqk_src_ctx *c, struct sqk_node *n, struct archive_entry *e)
{
	return special(c->tree, n, e);
}

int sqk_src_archive_feed(struct sqk_src_ctx *c, struct archive *a, struct archive_entry *e,
			 sqk_nid id, struct sqk_node *n, const char *path, sqk_nid parent,
			 const char *name, size_t len)
{
	struct stream s = {.a = a};

	return feed_node(c, &s, id, n, e, path, parent, name, len);
}

int sqk_src_archive_fail(struct sqk_src_ctx *c, struct archive *a, const char *what)
{
	return fail_archive(c, a, what);
}
