/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DIFF_CMD_H
#define SQK_DIFF_CMD_H

/* squashkit diff: its output (diff_out.c) for the front end (diff.c). */
#include <squashkit/squashkit.h>

#include "fe.h"

struct diff_out {
	int json, stat, quiet;
	int differ; /* a change was seen */
	struct sqk_json j;
};

/* For --json, open the document (a and b: the operands). */
void cli_diff_out_begin(struct diff_out *o, const char *a, const char *b);
/* The comparison's callback (ctx: the diff_out): a change printed as a line or a JSON object. */
int cli_diff_out_change(void *ctx, const struct sqk_diff_entry *e);
/* The summary (--stat, --json) of d and the end of the document; error: why it ended early. */
int cli_diff_out_end(struct diff_out *o, const struct sqk_diff *d, const char *error);

#endif
