/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_API_INT_H
#define SQK_API_INT_H

/*
 * What the files of the public API (include/squashkit) share: the failure
 * each call leaves for sqk_error_message(), and the options of an open.
 * The API is a thin face over the library's parts; it computes nothing of
 * its own.
 */
#include <stddef.h>

#include <squashkit/squashkit.h>

#include "read/image.h"
#include "remote/remote.h"
#include "util/error.h"
#include "verity/verity_area.h"

/* The code a failure is told with: a file that is not there (ENOENT) is SQK_ERR_NOFILE. */
int sqk_api_code(int err, int errnum);
/*
 * Record the calling thread's failure (its code as sqk_api_code() says): "where: what" (where may
 * be NULL or
 * "", what is printf-like; NULL: err's words, or errnum's when set).
 * Returns err, so that a call ends with `return sqk_api_fail(...)`.
 */
int sqk_api_fail(int err, int errnum, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same from a filled fault: "where: /a/b: what", the fault's path and words. */
int sqk_api_fault(const struct sqk_fault *f, const char *where);
/* An image path without its leading "/": "a/b" (for messages that add their own). */
const char *sqk_api_relpath(const char *path);
/*
 * An image path as every callback of the API gets it: "/a/b", "/" for the
 * root. Kept in a caller's struct sqk_api_abs for the callback's time;
 * sqk_api_abs_done() frees what a long one took.
 */
struct sqk_api_abs {
	char small[512];
	char *big;
};
/* path ("a/b", "/a/b", "//a/b" or "") as "/a/b"; NULL when out of memory. */
const char *sqk_api_abspath(struct sqk_api_abs *a, const char *path);
void sqk_api_abs_done(struct sqk_api_abs *a);
/* The errno behind err when it is a failed read of img's file, else 0. */
int sqk_api_io_errnum(const struct sqk_image *img, int err);
/* A call succeeded: the message is "" again. Returns 0. */
int sqk_api_ok(void);

/* A root hash to read through, where its area is, a signature to check (api_verity.c). */
struct sqk_api_verity {
	int on;
	struct sqk_verity_where w; /* w.hash_path: see sqk_api_verity_where() */
	char hash_path[4096];	   /* "" for the image's own file */
	char sig[4096], cert[4096];
};

struct sqk_open_opts {
	uint64_t offset;
	int offset_auto;
	struct sqk_image_opts image;
	struct sqk_api_verity verity;
	struct sqk_remote_opts remote; /* for a URL */
	char tmpdir[4096]; /* image.tmpdir points here when set */
};

/* Where o's hash area is, its path pointing into o. */
const struct sqk_verity_where *sqk_api_verity_where(const struct sqk_open_opts *o,
						    struct sqk_verity_where *w);
/*
 * The image in f (taken) read through the tree o names, when it names one
 * (else *out is f): 0, or the error, said (name is for messages).
 */
int sqk_api_verity_wrap(struct sqk_file *f, const char *name, const struct sqk_open_opts *o,
			struct sqk_file **out);
/*
 * Does the signature in the file p7s sign root_hex by cert's key? 0, or
 * the code with *why (NULL: errno's words) and *which file it was about.
 */
int sqk_api_verity_signature(const char *root_hex, const char *p7s, const char *cert,
			     const char **why, const char **which);
/* The public form of a tree's parameters (root NULL: not known). */
struct sqk_verity_info;
void sqk_api_verity_info(const struct sqk_verity_params *p, const uint8_t *root, uint32_t digest,
			 uint64_t size, int in_image, struct sqk_verity_info *info);

/* The options of an open, or the defaults for NULL. */
void sqk_api_open_defaults(const struct sqk_open_opts *o, struct sqk_open_opts *out);
/*
 * The file an image is read from, moved to the offset o asks for (found in
 * it for offset auto). Takes f (destroyed on failure); name is for messages.
 */
int sqk_api_place(struct sqk_file *f, const char *name, const struct sqk_open_opts *o,
		  struct sqk_file **out);
/*
 * The file an image is read from: the file at path, or one read through
 * the caller's callbacks (copied; io->close is called when the file is
 * destroyed, or at once when this fails). 0, or the error, said.
 */
int sqk_api_path_file(const char *path, struct sqk_file **out);
int sqk_api_io_file(const struct sqk_io *io, size_t io_size, struct sqk_file **out);
/* The file at url, read over HTTP with o's settings (NULL: the defaults). 0, or the error, said. */
int sqk_api_url_file(const char *url, const struct sqk_open_opts *o, struct sqk_file **out);
/* The remote file under f (through verity, a window, callbacks of sqk_io_open_url), or NULL. */
struct sqk_file *sqk_api_remote_under(struct sqk_file *f);
/* The read callback of sqk_io_open_url's callbacks (how api_io.c knows them). */
int sqk_api_url_read_at(void *ctx, uint64_t pos, void *buf, size_t len);
/* The file behind callbacks made by sqk_io_open_url, or NULL. */
struct sqk_file *sqk_api_io_url_file(struct sqk_file *f);
/* A list of strings the options own (api_build_opts.c). */
struct sqk_api_strv {
	char **v;
	size_t n;
};
int sqk_api_strv_add(struct sqk_api_strv *v, const char *s);
void sqk_api_strv_free(struct sqk_api_strv *v);

/*
 * A struct the caller allocates comes with its size (the header's macro
 * passes sizeof; api_sized.c). SQK_API_V1(type, field): the size of its
 * first version, which ended with field; a smaller one is SQK_ERR_ARG.
 */
#define SQK_API_V1(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
/*
 * The library's filled *src (have bytes) out to the caller's dst of given
 * bytes: what both know copied, the rest of dst zeroed. 0, or the error, said.
 */
int sqk_api_out(void *dst, size_t given, const void *src, size_t have, size_t min,
		const char *what);
/*
 * The caller's src of given bytes into the library's dst (have bytes):
 * fields the caller's version lacks are 0; bytes past what the library
 * knows must be 0 (SQK_ERR_UNSUPPORTED: a setting it cannot honour).
 */
/* SQK_ERR_ARG, said, when given < min; else 0. */
int sqk_api_size(size_t given, size_t min, const char *what);
int sqk_api_in(void *dst, size_t have, const void *src, size_t given, size_t min, const char *what);
/* How an image read through callbacks is named in messages. */
#define SQK_API_IO_NAME "the image read through callbacks"

#endif
