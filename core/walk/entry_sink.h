/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_ENTRY_SINK_H
#define SQK_ENTRY_SINK_H

/*
 * A sink between the walk and another (the extract sink; none for a
 * listing) that asks its caller of each entry before it is made: make it,
 * leave it out with what is below it, or stop. A hard link whose first
 * name was left out is made from the first of its names that is made, the
 * later ones linked to that. With pass_over, an entry the inner sink cannot
 * make (it exists, an I/O error, no space) is told to the caller and left
 * out, a directory with everything below it, as unsquashfs -ignore-errors
 * does.
 */
#include <stddef.h>
#include <stdint.h>

#include "walk.h"

struct sqk_extract;

/* What the caller is told of. */
enum sqk_entry_sink_step {
	SQK_ES_BEGIN,  /* before an entry is made: 0 make it, 1 leave it out, <0 stop */
	SQK_ES_MADE,   /* it was made (a file's data may still be being written) */
	SQK_ES_END,    /* a directory that was made, after what is below it */
	SQK_ES_PASSED, /* it could not be made and was left out (f says why) */
};

/*
 * path: "a/b" ("" the root); link_to: a hard link's first name that was
 * made, or NULL; f: SQK_ES_PASSED's story, else NULL.
 */
typedef int (*sqk_entry_cb)(void *ctx, enum sqk_entry_sink_step step, const char *path,
			    const struct sqk_inode *ino, const char *link_to,
			    const struct sqk_fault *f);

struct sqk_entry_sink {
	struct sqk_sink sink; /* what the walk feeds */
	struct sqk_sink *inner;
	struct sqk_extract *x; /* pass over what it cannot make (NULL: never) */
	sqk_entry_cb fn;
	void *ctx;
	/* A directory left out, with everything below it; chosen: by fn. */
	char *skip;
	int chosen;
	/* Inode numbers whose first name was left out (bits), and who stands in. */
	uint8_t *gone;
	size_t ngone;
	struct sqk_stand_in *subst;
	size_t nsubst;
};

/* inner NULL: a listing, every entry told as made. */
void sqk_entry_sink_init(struct sqk_entry_sink *e, struct sqk_sink *inner, struct sqk_extract *x,
			 sqk_entry_cb fn, void *ctx);
void sqk_entry_sink_release(struct sqk_entry_sink *e);

#endif
