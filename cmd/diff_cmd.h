/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_DIFF_CMD_H
#define SQK_DIFF_CMD_H

/* squashkit diff: its output (diff_out.c) for the front end (diff.c). */
#include "diff/diff.h"
#include "util/json.h"

struct diff_out {
	struct sqk_diff_sink sink; /* first: the library calls it */
	int json, stat, quiet;
	int differ; /* a change was seen */
	struct sqk_json j;
};

/* Set up the sink and, for --json, open the document (a and b: the operands). */
void cli_diff_out_begin(struct diff_out *o, const char *a, const char *b);
/* The sink's call: a change printed as a line or a JSON object. */
int cli_diff_out_change(struct sqk_diff_sink *s, const struct sqk_diff_change *c);
/* The summary (--stat, --json) and the end of the document; error: why it ended early. */
int cli_diff_out_end(struct diff_out *o, const struct sqk_diff_stats *st, const char *error);

#endif
