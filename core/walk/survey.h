/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_SURVEY_H
#define SQK_SURVEY_H

/*
 * What a walk of every inode finds (inspect prints it): inodes by type,
 * how the file data is stored, what dedup and sparse blocks save, how full
 * the fragment blocks are.
 *
 * Ratios are stored bytes / uncompressed bytes. Data: the sizes of all
 * files (each inode once, so hard links count once) against the bytes of
 * the distinct data blocks and of the fragment blocks. Dedup: a block
 * position or a fragment tail reached from a second file is saved; counted
 * in file bytes and in stored bytes. Sparse: the file bytes of zero-size
 * blocks. Fragment fill: distinct tail bytes / (fragments x block size).
 */
#include <stddef.h>
#include <stdint.h>

#include "format/fmt_type.h"

struct sqk_image;

struct sqk_survey {
	uint64_t type[SQK_FMT_BASIC_TYPES]; /* inodes by basic type (1..7) */
	uint64_t inodes;		    /* all of them */
	uint64_t extended, hard_links;
	uint64_t file_bytes;		   /* sizes of all files */
	uint64_t data_blocks, data_stored; /* distinct data blocks, their stored bytes */
	uint64_t frag_stored;		   /* stored bytes of every fragment block */
	uint64_t stored;		   /* data_stored + frag_stored */
	uint64_t sparse_blocks, sparse_bytes;
	uint64_t dedup_blocks, dedup_bytes, dedup_stored; /* shared data blocks */
	uint64_t dedup_tails, dedup_tail_bytes;		  /* shared fragment tails */
	uint64_t tails, tail_bytes;			  /* distinct fragment tails */
	double data_ratio;				  /* stored / file_bytes */
	double fragment_fill; /* tail_bytes / (fragments x block size) */

	/* After a failure: where ("fragment N", or "/path" in the tree). */
	char err_where[4096 + 256 + 2];
	int err_in_tree; /* err_where is an image path */
};

/* Survey img into *s. 0, or a negative sqk_err with s->err_where set. */
int sqk_survey(struct sqk_image *img, struct sqk_survey *s);

/* part / whole, 0 when whole is 0. */
double sqk_ratio(uint64_t part, uint64_t whole);

#endif
