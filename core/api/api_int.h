/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_API_INT_H
#define SQK_API_INT_H

/*
 * What the files of the public API (include/squashkit) share: the failure
 * each call leaves for sqk_error_message(), and the options of an open.
 * The API is a thin face over the library's parts; it computes nothing of
 * its own.
 */
#include <squashkit/squashkit.h>

#include "read/image.h"
#include "util/error.h"
#include "verity/verity_area.h"

/*
 * Record the calling thread's failure: "where: what" (where may be NULL or
 * "", what is printf-like; NULL: err's words, or errnum's when set).
 * Returns err, so that a call ends with `return sqk_api_fail(...)`.
 */
int sqk_api_fail(int err, int errnum, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same from a filled fault: "where: /a/b: what", the fault's path and words. */
int sqk_api_fault(const struct sqk_fault *f, const char *where);
/* An image path as the API names it: "a/b", never "/a/b". */
const char *sqk_api_relpath(const char *path);
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
int sqk_api_io_file(const struct sqk_io *io, struct sqk_file **out);
/* A list of strings the options own (api_build_opts.c). */
struct sqk_api_strv {
	char **v;
	size_t n;
};
int sqk_api_strv_add(struct sqk_api_strv *v, const char *s);
void sqk_api_strv_free(struct sqk_api_strv *v);

/* How an image read through callbacks is named in messages. */
#define SQK_API_IO_NAME "the image read through callbacks"

#endif
