/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MKFS_H
#define SQK_MKFS_H

/*
 * Build an image: sources -> tree -> block pipeline -> metadata ->
 * superblock. The caller owns the output file (an sqk_outfile, which
 * syncs it and renames it into place) and prints; this only returns codes
 * and says where.
 */
#include <stddef.h>
#include <stdint.h>

#include "write/mkfs_opts.h"
#include "write/tree.h"

struct sqk_mkfs;

/*
 * Add to *raw the SQK_RAW_* bits of a comma-separated list of part names
 * (inodes, data, fragments, xattrs, ids); SQK_ERR_ARG for another name.
 */
int sqk_mkfs_raw_parse(const char *list, unsigned *raw);

/*
 * --offset N: may an image be written after the first n bytes of the file
 * image? 0; SQK_ERR_IO (errno kept) when it cannot be looked at,
 * SQK_ERR_ARG when it is not a regular file, SQK_ERR_TRUNCATED when it
 * holds fewer (*size says how many), SQK_ERR_EXIST when it holds more and
 * force is not set.
 */
int sqk_mkfs_leading_check(const char *image, uint64_t n, int force, uint64_t *size);
/* Copy those n bytes, and the file's mode, to out (the temporary file beside it). */
int sqk_mkfs_leading_copy(const char *image, struct sqk_file *out, uint64_t n);

/*
 * --append: the image in the file at path (after its first offset bytes),
 * open for reading (the old tree) and for writing in place, locked against
 * a second append, and guarded: from the open on, a signal cuts the file
 * back to its old bytes, and so does a close after a failure.
 */
struct sqk_mkfs_append;
/* Why an append cannot start, with sqk_mkfs_append_open's code. */
enum {
	SQK_APPEND_OPEN = 1,	/* open(2) failed (*errnum; ENOENT: no file there) */
	SQK_APPEND_NOT_REGULAR, /* not a regular file */
	SQK_APPEND_LOCKED,	/* another process appends to it (*errnum) */
	SQK_APPEND_PAST_END,	/* offset is at or after its end */
	SQK_APPEND_NOT_IMAGE,	/* it ends before a superblock would */
	SQK_APPEND_IO,		/* a read failed (*errnum) */
	SQK_APPEND_IMAGE,	/* the image does not open, or is one no build writes (the code) */
};
/* 0, or the code with *why (and *errnum when an errno says it). */
int sqk_mkfs_append_open(const char *path, uint64_t offset, struct sqk_mkfs_append **out, int *why,
			 int *errnum);
/*
 * Why, in words, for the error line "PATH: words" (opt: how the caller
 * names the append option); "" when the code's own words say it.
 */
void sqk_mkfs_append_say(int why, int errnum, uint64_t offset, const char *opt, char *buf,
			 size_t cap);
/* The image's compressor and block size, which the append keeps. */
struct sqk_codec;
const struct sqk_codec *sqk_mkfs_append_codec(const struct sqk_mkfs_append *a);
uint32_t sqk_mkfs_append_block_size(const struct sqk_mkfs_append *a);
/*
 * Make o a build that adds to the image: its compressor, options and block
 * size, the image to read back, its file never read as a source. codec and
 * block_size are what the caller asked for (NULL, 0: nothing):
 * SQK_ERR_ARG when they are not the image's.
 */
int sqk_mkfs_append_settle(struct sqk_mkfs_append *a, struct sqk_mkfs_opts *o,
			   const struct sqk_codec *codec, uint32_t block_size);
/* Where the build writes (sqk_mkfs_create's out). */
struct sqk_file *sqk_mkfs_append_file(struct sqk_mkfs_append *a);
/*
 * Close, after sqk_mkfs_destroy; after a failure (failed), first cut the
 * file back while its old superblock stands. NULL is ignored.
 */
void sqk_mkfs_append_close(struct sqk_mkfs_append *a, int failed);

int sqk_mkfs_create(const struct sqk_mkfs_opts *o, struct sqk_file *out, struct sqk_mkfs **m);
void sqk_mkfs_destroy(struct sqk_mkfs *m);

int sqk_mkfs_add_dir(struct sqk_mkfs *m, const char *path);
/* A file or directory as an entry of the root named after it (mksquashfs's several sources). */
int sqk_mkfs_add_entry(struct sqk_mkfs *m, const char *path);
/* A file or directory at its own path, leading directories kept (tar's way). */
int sqk_mkfs_add_full_path(struct sqk_mkfs *m, const char *path);
int sqk_mkfs_add_listing(struct sqk_mkfs *m, const char *path);
int sqk_mkfs_add_archive(struct sqk_mkfs *m, const char *path);
/* Archives as container image layers, the first lowest (source/layers.h): whiteouts applied. */
int sqk_mkfs_add_layers(struct sqk_mkfs *m, const char *const *paths, size_t n);
/* An OCI image (source/src.h, sqk_src_oci): its layers applied, or one alone. */
int sqk_mkfs_add_oci(struct sqk_mkfs *m, const char *spec, const char *platform, unsigned layer,
		     unsigned *nlayers);
/*
 * Every inode's security.selinux from the file_contexts l (write/label.h),
 * matched under root; with keep_source, the sources' labels stay. After
 * every source and pseudo definition, before sqk_mkfs_finish.
 */
struct sqk_labels;
int sqk_mkfs_label(struct sqk_mkfs *m, struct sqk_labels *l, const char *root, int keep_source);
/* Pseudo definitions, on top of every source added before (see pseudo.h). */
struct sqk_pseudo;
int sqk_mkfs_add_pseudo(struct sqk_mkfs *m, struct sqk_pseudo *p);

/*
 * Entries one by one (mkfs_entry.c), placed at a path of the image ("a/b")
 * beside and over what the sources added; missing parents are made as
 * implicit directories, which a later directory entry gives attributes.
 */
struct sqk_mkfs_entry {
	unsigned type; /* basic inode type: SQK_DIR, SQK_FILE, ... */
	uint16_t mode; /* permission bits */
	uint32_t uid, gid, mtime;
	const char *target;    /* symlink */
	uint32_t major, minor; /* devices */
	const char *host;      /* file: read from this host path at finish, or NULL */
	uint64_t size;	       /* file: its bytes */
};
/* SQK_ERR_EXIST for a path taken, SQK_ERR_OVERFLOW for a target the format cannot hold. */
int sqk_mkfs_add_node(struct sqk_mkfs *m, const char *path, const struct sqk_mkfs_entry *e,
		      sqk_nid *out);
/* The data of file node n (its size bytes), read now, in order, through read. */
typedef int (*sqk_mkfs_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);
int sqk_mkfs_feed(struct sqk_mkfs *m, sqk_nid n, sqk_mkfs_read_fn read, void *ctx);
/*
 * The same, read when the image's data is written, in the data's order
 * (path, the entry's, names it in a failure); ctx must live until then.
 */
int sqk_mkfs_feed_later(struct sqk_mkfs *m, sqk_nid n, const char *path, sqk_mkfs_read_fn read,
			void *ctx);
/* A hard link at path to the non-directory at existing. */
int sqk_mkfs_link(struct sqk_mkfs *m, const char *path, const char *existing);
/* An extended attribute ("user.x") of the entry at path. */
int sqk_mkfs_set_xattr(struct sqk_mkfs *m, const char *path, const char *name, const void *value,
		       size_t size);
/* The node at path ("" the root) into *out, or 0 there. */
int sqk_mkfs_lookup(struct sqk_mkfs *m, const char *path, sqk_nid *out);

/* Write everything after the sources: data, tables, superblock. */
int sqk_mkfs_finish(struct sqk_mkfs *m, struct sqk_mkfs_stats *st);

/* --reuse: what earlier image i (of o.reuse) gave; NULL outside 0..nreuse-1. */
struct sqk_reuse_stats;
const struct sqk_reuse_stats *sqk_mkfs_reuse(const struct sqk_mkfs *m, size_t i);

/*
 * What went to temporaries so far ("bytes", "files", "runs", "merges"),
 * safe from any thread while the build runs.
 */
uint64_t sqk_mkfs_spilled(const struct sqk_mkfs *m, const char *what);

/* Where the last error happened (a path, may be "") and what it was ("" for the code's text). */
const char *sqk_mkfs_err_path(const struct sqk_mkfs *m);
const char *sqk_mkfs_err_msg(const struct sqk_mkfs *m);
int sqk_mkfs_err_errno(const struct sqk_mkfs *m);
/* The last SQK_ERR_EXIST was a name the image appended to has already. */
int sqk_mkfs_err_in_image(const struct sqk_mkfs *m);

#endif
