// SPDX-License-Identifier: BSD-2-Clause
/*
 * An OCI image layout's files and blobs (oci_blob.h). A directory's are
 * files under it; an archive's are members of the tar, found by reading
 * its headers from the start (an uncompressed tar's data is skipped by
 * seeking) and read through libarchive where they lie.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oci_blob.h"
#include "util/error.h"

struct sqk_oci_store {
	char *path;
	int archive;
	int fd;	    /* the directory, or the archive file */
	int errnum; /* the archive file's failed read */
};

struct sqk_oci_blob {
	struct sqk_oci_store *s;
	char member[160]; /* blobs/ALG/HEX */
	char where[4352];
	const char *hex;
	const EVP_MD *md_type;
	EVP_MD_CTX *md;
	uint64_t size, got;
	int fd;		   /* a directory's blob */
	struct archive *a; /* an archive's, positioned at its data */
	int done;	   /* the end was reached and checked */
	int err;	   /* a read failed: every read after it fails so */
	uint8_t buf[1 << 16];
	uint8_t raw[1 << 16]; /* the archive file's bytes, which libarchive reads the member from */
};

static int failed(struct sqk_src_ctx *c, const char *where, int e)
{
	errno = e;
	sqk_src_fail(c, where, "%s", strerror(e));
	return SQK_ERR_IO;
}

static int say(struct sqk_src_ctx *c, int err, const char *where, const char *what)
{
	errno = 0;
	sqk_src_fail(c, where, "%s", what);
	return err;
}

static ssize_t read_fd(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* The archive file through libarchive: its reads, and its data skipped by seeking. */
static la_ssize_t outer_read(struct archive *a, void *ctx, const void **buf)
{
	struct sqk_oci_blob *b = ctx;
	ssize_t n = read_fd(b->s->fd, b->raw, sizeof(b->raw));

	if (n < 0) {
		b->s->errnum = errno;
		archive_set_error(a, errno, "%s", strerror(errno));
		return -1;
	}
	*buf = b->raw;
	return n;
}

static la_int64_t outer_skip(struct archive *a, void *ctx, la_int64_t request)
{
	struct sqk_oci_blob *b = ctx;

	(void)a;
	return lseek(b->s->fd, request, SEEK_CUR) < 0 ? 0 : request;
}

/* A member's name without "./" or a leading '/'. */
static const char *member_name(const char *p)
{
	for (;;) {
		if (p[0] == '/')
			p++;
		else if (p[0] == '.' && p[1] == '/')
			p += 2;
		else
			return p;
	}
}

/* The archive's failure: its file's errno, else libarchive's words. */
static int outer_failed(struct sqk_oci_blob *b, struct sqk_src_ctx *c)
{
	const char *msg = archive_error_string(b->a);

	if (b->s->errnum)
		return failed(c, b->s->path, b->s->errnum);
	return say(c, SQK_ERR_ARCHIVE, b->s->path, msg ? msg : "not a tar archive");
}

/* b->a positioned at the data of member b->member: 0, SQK_ERR_NOENT, or the error, said. */
static int outer_open(struct sqk_oci_blob *b, struct sqk_src_ctx *c)
{
	struct archive_entry *e;
	int rc;

	b->s->errnum = 0;
	if (lseek(b->s->fd, 0, SEEK_SET) < 0)
		return failed(c, b->s->path, errno);
	b->a = archive_read_new();
	if (!b->a)
		return SQK_ERR_NOMEM;
	archive_read_support_format_tar(b->a);
	archive_read_support_filter_all(b->a);
	archive_read_set_read_callback(b->a, outer_read);
	archive_read_set_skip_callback(b->a, outer_skip);
	archive_read_set_callback_data(b->a, b);
	if (archive_read_open1(b->a) != ARCHIVE_OK)
		return outer_failed(b, c);
	while ((rc = archive_read_next_header(b->a, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
		const char *p = archive_entry_pathname(e);

		if (p && !strcmp(member_name(p), b->member))
			return 0;
	}
	return rc == ARCHIVE_EOF ? SQK_ERR_NOENT : outer_failed(b, c);
}

int sqk_oci_digest_valid(const char *digest)
{
	size_t want, i;
	const char *hex;

	if (!strncmp(digest, "sha256:", 7))
		want = 64;
	else if (!strncmp(digest, "sha512:", 7))
		want = 128;
	else
		return 0;
	hex = digest + 7;
	for (i = 0; hex[i]; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
			return 0;
	return i == want;
}

int sqk_oci_store_open(struct sqk_src_ctx *c, const char *path, int archive,
		       struct sqk_oci_store **out)
{
	struct sqk_oci_store *s = calloc(1, sizeof(*s));

	if (!s || !(s->path = strdup(path))) {
		free(s);
		return SQK_ERR_NOMEM;
	}
	s->archive = archive;
	do
		s->fd = open(path, O_RDONLY | O_CLOEXEC | (archive ? 0 : O_DIRECTORY));
	while (s->fd < 0 && errno == EINTR);
	if (s->fd < 0) {
		int e = errno;

		sqk_oci_store_close(s);
		if (e == ENOTDIR)
			return say(c, SQK_ERR_ARG, path,
				   "not an OCI image layout directory (oci-archive:FILE for a tar "
				   "of one)");
		return failed(c, path, e);
	}
	*out = s;
	return 0;
}

void sqk_oci_store_close(struct sqk_oci_store *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
}

const char *sqk_oci_store_path(const struct sqk_oci_store *s)
{
	return s->path;
}

/* Begin reading b (or the layout's file b->member): 0, SQK_ERR_NOENT, or the error, said. */
static int begin(struct sqk_oci_blob *b, struct sqk_src_ctx *c)
{
	b->got = 0;
	b->done = b->err = 0;
	if (b->md && !EVP_DigestInit_ex(b->md, b->md_type, NULL))
		return SQK_ERR_NOMEM;
	if (b->s->archive)
		return outer_open(b, c);
	do
		b->fd = openat(b->s->fd, b->member, O_RDONLY | O_CLOEXEC);
	while (b->fd < 0 && errno == EINTR);
	if (b->fd < 0)
		return errno == ENOENT && !b->md ? SQK_ERR_NOENT : failed(c, b->where, errno);
	return 0;
}

static void end(struct sqk_oci_blob *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	archive_read_free(b->a);
	b->a = NULL;
}

/* The blob's end: its size and digest what its descriptor says. */
static int check(struct sqk_oci_blob *b, struct sqk_src_ctx *c)
{
	uint8_t sum[EVP_MAX_MD_SIZE];
	char hex[2 * EVP_MAX_MD_SIZE + 1], why[512];
	unsigned len = 0, i;

	b->done = 1;
	if (!b->md)
		return 0;
	if (b->got != b->size) {
		snprintf(why, sizeof(why), "%llu bytes, where its descriptor says %llu",
			 (unsigned long long)b->got, (unsigned long long)b->size);
		return say(c, SQK_ERR_CORRUPT, b->where, why);
	}
	if (!EVP_DigestFinal_ex(b->md, sum, &len))
		return SQK_ERR_NOMEM;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", sum[i]);
	if (strcmp(hex, b->hex) != 0) {
		snprintf(why, sizeof(why), "digest mismatch: its bytes hash to %.6s:%s",
			 b->member + 6, hex);
		return say(c, SQK_ERR_CORRUPT, b->where, why);
	}
	return 0;
}

/* The next bytes of b: their count, 0 at its end (checked), or the error, said. */
static ssize_t step(struct sqk_oci_blob *b, struct sqk_src_ctx *c, const void **buf)
{
	ssize_t n;

	if (b->err)
		return b->err;
	if (b->done)
		return 0;
	if (b->a) {
		n = archive_read_data(b->a, b->buf, sizeof(b->buf));
		if (n < 0)
			return b->err = outer_failed(b, c);
	} else {
		n = read_fd(b->fd, b->buf, sizeof(b->buf));
		if (n < 0)
			return b->err = failed(c, b->where, errno);
	}
	if (n == 0) {
		int err = check(b, c);

		return err ? err : 0;
	}
	b->got += (uint64_t)n;
	if (b->md && b->got > b->size) {
		char why[128];

		snprintf(why, sizeof(why), "more than the %llu bytes its descriptor says",
			 (unsigned long long)b->size);
		return say(c, SQK_ERR_CORRUPT, b->where, why);
	}
	if (b->md && !EVP_DigestUpdate(b->md, b->buf, (size_t)n))
		return SQK_ERR_NOMEM;
	*buf = b->buf;
	return n;
}

static int slurp(struct sqk_oci_blob *b, struct sqk_src_ctx *c, size_t max, char **data,
		 size_t *len)
{
	size_t n = 0, cap = 0;
	const void *buf;
	char *d = NULL;
	ssize_t got;
	int err = begin(b, c);

	while (!err && (got = step(b, c, &buf)) != 0) {
		if (got < 0) {
			err = (int)got;
			break;
		}
		if (n + (size_t)got > max) {
			char why[96];

			snprintf(why, sizeof(why), "larger than %zu bytes", max);
			err = say(c, SQK_ERR_ARCHIVE, b->where, why);
			break;
		}
		if (n + (size_t)got + 1 > cap) {
			char *nd = realloc(d, cap = (n + (size_t)got + 1) * 2);

			if (!nd) {
				err = SQK_ERR_NOMEM;
				break;
			}
			d = nd;
		}
		memcpy(d + n, buf, (size_t)got);
		n += (size_t)got;
	}
	end(b);
	if (!err && !d && !(d = malloc(1)))
		err = SQK_ERR_NOMEM;
	if (err) {
		free(d);
		return err;
	}
	d[n] = '\0';
	*data = d;
	*len = n;
	return 0;
}

static struct sqk_oci_blob *blob_new(struct sqk_oci_store *s, const char *member)
{
	struct sqk_oci_blob *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->s = s;
	b->fd = -1;
	snprintf(b->member, sizeof(b->member), "%s", member);
	snprintf(b->where, sizeof(b->where), s->archive ? "%s: %s" : "%s/%s", s->path, member);
	return b;
}

int sqk_oci_store_file(struct sqk_oci_store *s, struct sqk_src_ctx *c, const char *name, size_t max,
		       char **data, size_t *len)
{
	struct sqk_oci_blob *b = blob_new(s, name);
	int err;

	if (!b)
		return SQK_ERR_NOMEM;
	err = slurp(b, c, max, data, len);
	sqk_oci_blob_destroy(b);
	return err;
}

int sqk_oci_blob_create(struct sqk_oci_store *s, struct sqk_src_ctx *c, const char *digest,
			uint64_t size, struct sqk_oci_blob **out)
{
	char member[160];
	struct sqk_oci_blob *b;

	if (!sqk_oci_digest_valid(digest)) {
		char why[256];

		snprintf(why, sizeof(why), "a blob's digest '%.160s' is no sha256 or sha512 digest",
			 digest);
		return say(c, SQK_ERR_ARCHIVE, s->path, why);
	}
	snprintf(member, sizeof(member), "blobs/%.6s/%s", digest, digest + 7);
	b = blob_new(s, member);
	if (!b)
		return SQK_ERR_NOMEM;
	b->hex = b->member + 13;
	b->md_type = digest[3] == '2' ? EVP_sha256() : EVP_sha512();
	b->md = EVP_MD_CTX_new();
	b->size = size;
	if (!b->md) {
		sqk_oci_blob_destroy(b);
		return SQK_ERR_NOMEM;
	}
	*out = b;
	return 0;
}

void sqk_oci_blob_destroy(struct sqk_oci_blob *b)
{
	if (!b)
		return;
	end(b);
	EVP_MD_CTX_free(b->md);
	free(b);
}

const char *sqk_oci_blob_where(const struct sqk_oci_blob *b)
{
	return b->where;
}

int sqk_oci_blob_slurp(struct sqk_oci_blob *b, struct sqk_src_ctx *c, size_t max, char **data,
		       size_t *len)
{
	int err = slurp(b, c, max, data, len);

	/* A member the archive lacks: said as the blob's absence. */
	if (err == SQK_ERR_NOENT)
		err = say(c, SQK_ERR_ARCHIVE, b->where, "no such blob in the archive");
	return err;
}

static int layer_open(void *ctx, struct sqk_src_ctx *c, int again)
{
	struct sqk_oci_blob *b = ctx;
	int err;

	(void)again; /* the blob is there to be read again */
	err = begin(b, c);
	if (err == SQK_ERR_NOENT)
		err = say(c, SQK_ERR_ARCHIVE, b->where, "no such blob in the archive");
	return err;
}

static ssize_t layer_read(void *ctx, struct sqk_src_ctx *c, const void **buf)
{
	return step(ctx, c, buf);
}

/* What the archive left unread is read and hashed (no decompression): the digest covers it. */
static int layer_finish(void *ctx, struct sqk_src_ctx *c)
{
	const void *buf;
	ssize_t n;

	while ((n = step(ctx, c, &buf)) > 0)
		;
	return (int)n;
}

static void layer_close(void *ctx)
{
	end(ctx);
}

static const struct sqk_layer_ops blob_ops = {layer_open, layer_read, layer_finish, layer_close};

void sqk_oci_blob_layer(struct sqk_oci_blob *b, const char *name, enum sqk_layer_filter f,
			struct sqk_layer *l)
{
	*l = (struct sqk_layer){name, &blob_ops, b, f};
}
