/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_EXTRACT_INT_H
#define SQK_EXTRACT_INT_H

/*
 * Inside the directory sink (extract.h), shared by its three files:
 * extract.c makes the entries, extract_data.c writes the files' data on
 * the workers, extract_attr.c tells failures and warnings and sets the
 * attributes.
 */
#include <pthread.h>
#include <string.h>
#include <sys/types.h>

#include "dirstack.h"
#include "extract.h"
#include "read/inode.h"
#include "util/hash.h"
#include "xnode.h"

struct sqk_ex_chunk;

struct sqk_extract {
	struct sqk_sink sink;
	struct sqk_image *img;
	struct sqk_pool *pool;
	struct sqk_extract_conf o;
	int root_fd;
	int as_root;
	uid_t euid;
	gid_t egid;
	struct sqk_ex_chunk *batch;
	unsigned nbatch;
	mode_t old_umask;
	struct sqk_xowner owner;  /* whose entries the destination makes ours */
	struct sqk_dirstack dirs; /* the root, ..., the directory being filled */
	/*
	 * The first name made of each inode with more than one: the image's
	 * inode number to the made file's inode number + 1. A hard link made
	 * later must link to that file and no other.
	 */
	struct sqk_hash made;
	int failed;	      /* sink.fault is filled: the walk stops too */
	pthread_mutex_t lock; /* guards sink.fault and the fields below */
	unsigned warnings;
	/*
	 * --keep-going: files not made whole, removed at the end (err: the
	 * image's, when their data could not be read)...
	 */
	struct undone_file {
		char *path;
		int err;
	} * undone;
	size_t nundone, undone_cap;
	/* ...and the hard links made, whose first name may be one of them. */
	char **links; /* path, link_to, path, link_to, ... */
	size_t nlinks, links_cap;
};

static inline const char *sqk_ex_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* extract_attr.c: a warning about path (counted), or one with the errno's words. */
void sqk_ex_warn(struct sqk_extract *x, const char *path, const char *what);
void sqk_ex_warn_errno(struct sqk_extract *x, const char *path, const char *what, const char *name);
/* A failure: its story in the sink's fault (the first stays); stop ends the workers too. */
void sqk_ex_fail(struct sqk_extract *x, const char *path, int err, int errnum, int output);
void sqk_ex_stop(struct sqk_extract *x, const char *path, int err, int errnum, int output);
/* The workers' failure, once sqk_ex_stop said so, or 0. */
int sqk_ex_stopped(struct sqk_extract *x);
/* A call on the destination failed just now: its errno, path; the code returned. */
int sqk_ex_out_fail(struct sqk_extract *x, const char *path);
/* A failure with a code: the destination's errno when it was a system call's. */
int sqk_ex_out_code(struct sqk_extract *x, const char *path, int err);
/* The permission bits to give (setuid and setgid only as root). */
mode_t sqk_ex_perm_bits(const struct sqk_extract *x, const struct sqk_inode *ino);
/* Whether an entry made now in the directory being filled has ino's owner by itself. */
int sqk_ex_owner_ok(const struct sqk_extract *x, const struct sqk_inode *ino);
/*
 * Owner, xattrs, mode, times through fd: an open file or directory, or
 * (held) the O_PATH descriptor holding a symlink or a device; the owner or
 * mode that was right at creation (owner_ok, mode_ok) is left as it is.
 */
void sqk_ex_finish(struct sqk_extract *x, const char *path, int fd, int held,
		   const struct sqk_inode *ino, int owner_ok, int mode_ok);

/* extract_data.c: the file open as fd, its data to the workers (the job owns fd and the blocks). */
int sqk_ex_submit_file(struct sqk_extract *x, const char *path, int fd, struct sqk_inode *ino,
		       int created_ok);
/* Hand the batch of small files to the workers. */
void sqk_ex_flush_batch(struct sqk_extract *x);
/* --keep-going: a hard link made, undone at the end if its first name's data is lost. */
int sqk_ex_note_link(struct sqk_extract *x, const char *path, const char *link_to);
/* --keep-going, the workers done: the files not made whole go, with their hard links. */
void sqk_ex_drop_undone(struct sqk_extract *x);

/* extract.c: the directory holding path, beneath the root, following no symlink; or -1. */
int sqk_ex_open_parent(struct sqk_extract *x, const char *path);

#endif
