/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_PSEUDO_INT_H
#define SQK_PSEUDO_INT_H

/* What the pseudo parser (src_pseudo.c) hands to the applier (src_pseudo_apply.c). */
#include <stdint.h>

#include "pseudo.h"
#include "write/tree.h"

enum sqk_pseudo_kind {
	SQK_PK_NONE,	/* a parent named only by the paths below it */
	SQK_PK_DIR,	/* d, D */
	SQK_PK_MODIFY,	/* m, M */
	SQK_PK_NODE,	/* b, c, i (and B, C, I): a device, fifo or socket */
	SQK_PK_COMMAND, /* f, F */
	SQK_PK_SYMLINK, /* s, S */
	SQK_PK_HOST,	/* l: a file of the host, as it is */
	SQK_PK_LINK,	/* L: a hard link to another definition */
	SQK_PK_DATA,	/* R: data stored in the pseudo file */
};

/* Where definitions come from: a file, or one --pseudo argument. */
struct sqk_pseudo_src {
	struct sqk_pseudo_src *next;
	int data_fd; /* R data: the file, or a spool of standard input; -1 */
	uint64_t data_start, data_size;
	char name[];
};

struct sqk_pseudo_def {
	struct sqk_pseudo_def *parent, *child, *last_child, *sibling;
	struct sqk_pseudo_def *hnext;	 /* hash chain */
	struct sqk_pseudo_def *next_def; /* definitions in the order given */
	char *path;			 /* image path without a leading '/'; "" is the root */
	size_t namepos;			 /* the last component starts here */
	const struct sqk_pseudo_src *src;
	unsigned line; /* 0 for --pseudo */
	uint32_t hash;
	uint8_t kind;  /* SQK_PK_* */
	uint8_t type;  /* SQK_* basic type made; for SQK_PK_HOST that of the host file */
	uint8_t timed; /* a time was given (upper-case definitions) */
	uint16_t mode;
	uint32_t uid, gid, mtime, major, minor;
	char *arg;		     /* command, symlink target, host path */
	struct sqk_pseudo_def *link; /* L: the definition linked to (never an L) */
	uint64_t length, offset;     /* R; for l the host file's size */
	uint64_t dev, ino;	     /* l: the host file */
	int64_t host_mtime;	     /* l: its time as it is, clamped when placed */
	sqk_nid node;		     /* once placed */
};

struct sqk_pseudo {
	unsigned flags;
	uint32_t mtime; /* for definitions without a time */
	struct sqk_pseudo_def *root;
	struct sqk_pseudo_def **tab; /* by path */
	size_t tab_n, tab_used;
	struct sqk_pseudo_def *first, *last;
	struct sqk_pseudo_src *srcs;
	char err_where[4200];
	char err_msg[512];
};

/* Where the definition being read is. */
struct sqk_pseudo_line {
	struct sqk_pseudo *p;
	const struct sqk_pseudo_src *src;
	unsigned no; /* 0 for --pseudo */
};

/* "FILE:LINE", or the --pseudo argument, of a definition. */
void sqk_pseudo_where(const struct sqk_pseudo_def *d, char *buf, size_t len);

/* Record a bad definition at src:line; returns SQK_ERR_ARG. */
int sqk_pseudo_fail(struct sqk_pseudo *p, const struct sqk_pseudo_src *src, unsigned line,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The definition (or placeholder) of an image path, or NULL. */
struct sqk_pseudo_def *sqk_pseudo_lookup(struct sqk_pseudo *p, const char *path);

/* Parse one definition (pseudo_parse.c) and insert it; s is overwritten. */
int sqk_pseudo_parse_def(struct sqk_pseudo_line *l, char *s);

/* Add a parsed definition under its path: each path once. Takes d, even on failure. */
int sqk_pseudo_insert(struct sqk_pseudo_line *l, struct sqk_pseudo_def *d);
void sqk_pseudo_free_def(struct sqk_pseudo_def *d);

/* White space as mksquashfs's isspace() sees it in the C locale. */
static inline int sqk_pseudo_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static inline char *sqk_pseudo_skip_ws(char *s)
{
	while (sqk_pseudo_ws(*s))
		s++;
	return s;
}

#endif
