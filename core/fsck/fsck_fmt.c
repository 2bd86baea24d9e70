// SPDX-License-Identifier: BSD-2-Clause
/*
 * The format codec's reports turned into problems. The codec words each
 * rule once (core/format); the reader stops at the first, fsck records
 * them all here, each under the table and check its field belongs to.
 */
#include <stdio.h>
#include <string.h>

#include "fsck_int.h"

void sqk_fsck_issue_text(const struct sqk_fmt_issue *i, char *buf, size_t len)
{
	char ref[64];

	if (!strcmp(i->field, "root_inode") || !strcmp(i->field, "ref"))
		snprintf(buf, len, "%s (%s) %s", i->field,
			 sqk_fsck_ref_str(i->value, ref, sizeof(ref)), i->why);
	else if (!strcmp(i->field, "magic") || !strcmp(i->field, "flags"))
		snprintf(buf, len, "%s 0x%llx %s", i->field, (unsigned long long)i->value, i->why);
	else if (!strcmp(i->field, "inode_number") && (int64_t)i->value < 0)
		/* An entry's number is base + delta: past 2^63 it is a negative one. */
		snprintf(buf, len, "%s %lld %s", i->field, (long long)i->value, i->why);
	else
		snprintf(buf, len, "%s %llu %s", i->field, (unsigned long long)i->value, i->why);
}

static int fmt_issue(void *ctx, const struct sqk_fmt_issue *is)
{
	struct fsck_fmt *ff = ctx;
	const struct fsck_field_check *m, *hit = NULL;
	char text[256];

	ff->last = *is;
	for (m = ff->map; m && m->field && !hit; m++)
		if (strcmp(m->field, is->field) == 0)
			hit = m;
	if (!hit || !hit->soft)
		ff->hard++;
	if (ff->quiet)
		return 0;
	sqk_fsck_issue_text(is, text, sizeof(text));
	sqk_fsck_err(ff->f, ff->rec, hit && hit->table ? hit->table : ff->table,
		     hit ? hit->check : ff->check, "%s%s", ff->prefix, text);
	return 0; /* go on: every broken rule is worth knowing */
}

void sqk_fsck_fmt_init(struct fsck_fmt *ff, struct sqk_fsck *f, uint32_t rec, const char *table,
		       enum fsck_check check, const struct fsck_field_check *map)
{
	/* Cheap: one per inode. The prefix is written only where a message needs it. */
	ff->rep.fn = fmt_issue;
	ff->rep.ctx = ff;
	ff->rep.count = 0;
	ff->f = f;
	ff->rec = rec;
	ff->table = table;
	ff->check = check;
	ff->map = map;
	ff->prefix[0] = '\0';
	ff->quiet = 0;
	ff->hard = 0;
}

void sqk_fsck_fmt_prefix(struct fsck_fmt *ff, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ff->prefix, sizeof(ff->prefix), fmt, ap);
	va_end(ap);
}
