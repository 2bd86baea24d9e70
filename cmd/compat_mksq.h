/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_COMPAT_MKSQ_H
#define SQK_COMPAT_MKSQ_H

/* mksquashfs's command line as parsed (compat_mksq_opts.c), before it is mapped. */
#include <stddef.h>

enum { MKSQ_HELP = -1, MKSQ_VERSION = -2 };
enum { EXCL_PATH, EXCL_WILDCARDS, EXCL_REGEX };

/* An option passed on as it is, in command-line order: its native spelling and value. */
struct mksq_pass {
	const char *opt, *val;
};

struct mksq {
	char **src;
	int nsrc;
	const char *dest;
	const char *comp, *level, *block, *threads, *offset;
	const char *uid, *gid, *mkfs_time, *all_time;
	const char **copts;
	int ncopts;
	/* Root owner, modes, xattr filters and adds, sort: passed on in order. */
	struct mksq_pass *attr;
	int nattr;
	int root_mode, root_uid, root_gid;
	/* -p and -pf, in order. */
	struct mksq_pass *pseudo;
	int npseudo;
	const char **excl;
	int nexcl;
	const char **excl_files;
	int nexcl_files;
	int excl_style;
	/* -mem SIZE (K/M/G), or -mem-percent of the memory: the build's --memory. */
	const char *mem;
	unsigned mem_percent;
	unsigned raw; /* 1 inodes, 2 data, 4 fragments, 8 xattrs, 16 ids */
	int noappend, quiet, no_progress, no_fragments, tail_ends, no_dedup, no_sparse, no_xattrs;
	int no_hardlinks, no_pad, exports, tar, keep_as_dir, no_strip, named, one_fs;
	/* Strings made here (excludes read from files), freed with the rest. */
	char **owned;
	int nowned;
};

void cli_mksq_init(struct mksq *m);
void cli_mksq_release(struct mksq *m);
/* 0, MKSQ_HELP, MKSQ_VERSION, or the exit status after the error line. */
int cli_mksq_parse(struct mksq *m, int argc, char **argv);
/* Add an exclude (copied); 0 or -1. */
int cli_mksq_add_exclude(struct mksq *m, const char *pattern);

#endif
