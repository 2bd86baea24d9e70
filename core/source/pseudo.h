/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_PSEUDO_H
#define SQK_PSEUDO_H

/*
 * Pseudo definitions in mksquashfs's own syntax (4.5): mkimage --pseudo and
 * --pseudo-file. They are read and checked first, before anything is
 * written; they are applied on top of the sources once every source is in
 * the tree (src_pseudo_apply.c), as mksquashfs applies them.
 */
#include "src.h"

struct sqk_pseudo;

enum {
	/* Never run a program: no date(1) for date strings (the fuzzer). */
	SQK_PSEUDO_NO_EXEC = 1,
};

int sqk_pseudo_create(unsigned flags, struct sqk_pseudo **out);
void sqk_pseudo_destroy(struct sqk_pseudo *p);

/*
 * One definition (--pseudo), or a file of them (--pseudo-file; "-" is
 * standard input). A bad definition is SQK_ERR_ARG, and the error says
 * where ("FILE:LINE" or "--pseudo 'DEF'") and why; a file that cannot be
 * read is SQK_ERR_IO with errno kept.
 */
int sqk_pseudo_add_def(struct sqk_pseudo *p, const char *def);
int sqk_pseudo_add_file(struct sqk_pseudo *p, const char *path);

const char *sqk_pseudo_err_where(const struct sqk_pseudo *p);
const char *sqk_pseudo_err_msg(const struct sqk_pseudo *p);

/*
 * Apply the definitions to the tree of c: place every entry (a definition
 * that clashes with what the sources gave is SQK_ERR_ARG, with the
 * definition's place in c's error), then give the files of commands (f, F)
 * and of inline data (R) their contents, in the order of the definitions.
 * sqk_src_pseudo does both; the fuzzer only places.
 */
int sqk_src_pseudo_place(struct sqk_src_ctx *c, struct sqk_pseudo *p);
int sqk_src_pseudo_fill(struct sqk_src_ctx *c, struct sqk_pseudo *p);
int sqk_src_pseudo(struct sqk_src_ctx *c, struct sqk_pseudo *p);

#endif
