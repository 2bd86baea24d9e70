/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_COMPAT_UNSQ_H
#define SQK_COMPAT_UNSQ_H

/*
 * squashkit unsquashfs: what its driver (compat_unsquashfs.c), its walk
 * and extraction (compat_unsq_extract.c), its -follow-symlinks
 * (compat_unsq_follow.c) and its formatters and filters (compat_unsq_out.c)
 * share.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <squashkit/squashkit.h>

#include "fe.h"

/* One extract or exclude name, as given, and compiled into its components. */
struct usq_pattern {
	char *name;
	struct sqk_pattern p;
	/* The directory itself is needed, not what it holds (-follow-symlinks). */
	int dir_only;
};

struct usq_filter {
	struct usq_pattern *extract, *exclude;
	unsigned nextract, nexclude;
	int no_wildcards, regex;
	int max_depth; /* -1: unlimited */
};

/* Where an entry stands: left out, a directory on the way to a match, or in. */
enum { USQ_OUT, USQ_ON_THE_WAY, USQ_IN };

/*
 * Add name (as given on the command line or in a file) to the list,
 * matched in the style the options chose so far. 0 or -1.
 */
int cli_usq_filter_add(struct usq_filter *f, int exclude, const char *name);
/* The names added before the options were all read, in the style they chose. 0 or -1. */
int cli_usq_filter_restyle(struct usq_filter *f, const char **bad);
/* Add the directory name to the extract list, without what it holds. 0 or -1. */
int cli_usq_filter_add_dir(struct usq_filter *f, const char *name);
/* Where path ("" for the root, "a/b" below it) stands. */
int cli_usq_filter_match(const struct usq_filter *f, const char *path);
void cli_usq_filter_release(struct usq_filter *f);

/* How entries are printed, as unsquashfs prints them. */
struct usq_format {
	int lng;     /* attributes, like ls -l */
	int numeric; /* owners as numbers */
	int utc;     /* times in UTC, else local time */
	const char *dest;
};

/*
 * One entry: "DEST/path", with attributes when lng (size: as a mounted
 * image reports it; target: a symlink's).
 */
void cli_usq_print_entry(FILE *out, const struct usq_format *fmt, const char *path,
			 const struct sqk_stat *st, uint64_t size, const char *target);

/* unsquashfs -s: the superblock, as unsquashfs describes it (compat_unsq_stat.c). */
int cli_usq_print_stat(FILE *out, struct sqk_image *img, const char *image, int utc);

struct usq {
	const char *dest, *image, *pf, *offset;
	int cat, ls, lng, numeric, concise, info, quiet, progress, force, no_xattrs;
	int stat, utc, mkfs_time, excludes, ignore_errors, strict_errors, exit_code;
	int follow, missing, user_xattrs;
	unsigned threads;
	struct usq_filter filter;
	struct usq_format fmt;
	int print;	/* print entries as they pass */
	int extracting; /* the second pass: what it leaves out is told */
	int failed;	/* the failure callback was told */
	/* -lc: a directory is printed when nothing came after it before its end. */
	char *pending;
	struct sqk_stat pending_st;
	uint64_t pending_size;
	/* Counted as unsquashfs counts them. */
	uint64_t inodes, blocks, files, dirs, symlinks, devices, fifos, sockets, hardlinks;
	uint32_t block_size;
	/* Non-fatal errors: the extraction's warnings and what -ignore-errors let pass. */
	unsigned warnings, failures;
	/* Warnings given in the walking thread (the others come from workers). */
	pthread_t walker;
	unsigned walker_warnings, warned;
};

/* The listing options: the entries that pass, printed. COMPAT_OK or COMPAT_FATAL. */
int cli_usq_list(struct usq *u, struct sqk_image *img);
/* Extract what passes into u->dest: COMPAT_OK, COMPAT_NONFATAL or COMPAT_FATAL. */
int cli_usq_extract(struct usq *u, struct sqk_image *img);
/*
 * -follow-symlinks: names resolved in the image, and each one's target,
 * the symlinks on the way and the directories left through ".." added to
 * the extract names. COMPAT_OK or COMPAT_FATAL (-missing-symlinks).
 */
int cli_usq_follow(struct usq *u, struct sqk_image *img, char **names, int n);
/*
 * Without -follow-symlinks: each literal name that goes through a symlink
 * (or "..") added as what it resolves to, as lstat(2) resolves it, with
 * the symlinks on the way; every other name added as it is. COMPAT_OK or
 * COMPAT_FATAL.
 */
int cli_usq_through(struct usq *u, struct sqk_image *img, char **names, int n);

#endif
