/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_CHECK_H
#define SQK_FMT_CHECK_H

/*
 * How the format codec reports a rule that an image breaks. Each rule is
 * written once, in core/format/, and both readers of an image use it: the
 * strict reader stops at the first report (its callback returns nonzero, or
 * it passes no callback and takes the error code), fsck records every
 * report with its path and goes on. So the two can never disagree about
 * which images are sound.
 */
#include <stdint.h>

struct sqk_fmt_issue {
	const char *field; /* the field as the format names it: "block_size" */
	uint64_t value;	   /* the value found there */
	const char *why;   /* what is wrong with it: "is not a power of two" */
};

/* Called once per broken rule; nonzero stops the check. */
typedef int (*sqk_fmt_report_fn)(void *ctx, const struct sqk_fmt_issue *issue);

struct sqk_fmt_report {
	sqk_fmt_report_fn fn; /* NULL: stop at the first broken rule */
	void *ctx;
	unsigned count; /* broken rules seen so far */
};

/*
 * Record one broken rule. Returns nonzero when the check must stop: always
 * without a callback, or when the callback says so. A codec function
 * returns SQK_ERR_CORRUPT when it saw any broken rule.
 */
static inline int sqk_fmt_fail(struct sqk_fmt_report *r, const char *field, uint64_t value,
			       const char *why)
{
	struct sqk_fmt_issue issue = {field, value, why};

	if (!r)
		return 1;
	r->count++;
	return r->fn ? r->fn(r->ctx, &issue) : 1;
}

/*
 * A callback for a caller that wants the first broken rule and no more: ctx
 * is a struct sqk_fmt_issue, which gets it; the check stops there.
 */
static inline int sqk_fmt_keep_first(void *ctx, const struct sqk_fmt_issue *issue)
{
	*(struct sqk_fmt_issue *)ctx = *issue;
	return 1;
}

/*
 * In a codec check: note a broken rule in the check's local bad and
 * return SQK_ERR_CORRUPT when the report says the check must stop.
 */
#define SQK_FMT_FAIL(field, value, why)                                                            \
	do {                                                                                       \
		bad = 1;                                                                           \
		if (sqk_fmt_fail(r, field, value, why))                                            \
			return SQK_ERR_CORRUPT;                                                    \
	} while (0)

#endif
