/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SURVEY_H
#define SQK_SURVEY_H

/*
 * What a survey of an image finds (inspect prints it; the public API's
 * struct sqk_survey is this one): where the data area and each table lie
 * and what their metadata blocks hold, inodes by type, how the file data
 * is stored, what dedup and sparse blocks save, how full the fragment
 * blocks are.
 *
 * Ratios are stored bytes / uncompressed bytes. Data: the sizes of all
 * files (each inode once, so hard links count once) against the bytes of
 * the distinct data blocks and of the fragment blocks. Dedup: a block
 * position or a fragment tail reached from a second file is saved; counted
 * in file bytes and in stored bytes. Sparse: the file bytes of zero-size
 * blocks. Fragment fill: distinct tail bytes / (fragments x block size).
 * Metadata: every table's metadata blocks together.
 */
#include <squashkit/survey.h>
#include <stddef.h>
#include <stdint.h>

#include "read/layout.h"
#include "util/error.h"

struct sqk_image;

struct sqk_survey {
	struct sqk_survey_figures f;
	/*
	 * Each table as the layout places it. An export table counts only with
	 * the exportable flag: without it nothing reads the table.
	 */
	struct sqk_survey_table t[SQK_TABLE_COUNT];
	int present[SQK_TABLE_COUNT];

	/* After a failure: where ("inode table", "fragment N", or "/path" in the tree). */
	char err_where[SQK_FAULT_PATH_MAX + 1]; /* a fault's path and its leading slash */
};

/* Survey img into *s. 0, or a negative sqk_err with s->err_where set. */
int sqk_survey(struct sqk_image *img, struct sqk_survey *s);

/* part / whole, 0 when whole is 0. */
double sqk_ratio(uint64_t part, uint64_t whole);

#endif
