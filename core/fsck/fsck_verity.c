// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bytes a dm-verity check found bad (sqk_fsck_opts.verity_bad), named
 * by what holds them: each file with data or a tail there (from the data
 * pass, which knows every file's blocks), then each fragment block, table
 * and stretch of the image no file or table holds (the superblock, the
 * compressor options, the padding after the image, unused bytes).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fsck_int.h"
#include "util/error.h"

/* The first bad stretch that ends after a, or n. */
static size_t first_after(const struct sqk_fsck *f, uint64_t a)
{
	size_t lo = 0, hi = f->o.nverity_bad;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->o.verity_bad[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Mark stretch i named; NOMEM leaves it unmarked, so that it is named again as unused. */
static void named(struct sqk_fsck *f, size_t i)
{
	if (!f->verity_named)
		f->verity_named = calloc(f->o.nverity_bad, 1);
	if (f->verity_named)
		f->verity_named[i] = 1;
}

/* Each bad stretch [a, b) overlaps, reported for rec or table, what saying which bytes. */
static void name(struct sqk_fsck *f, uint32_t rec, const char *table, uint64_t a, uint64_t b,
		 const char *what)
{
	size_t i;

	for (i = first_after(f, a); i < f->o.nverity_bad && f->o.verity_bad[i].start < b; i++) {
		named(f, i);
		sqk_fsck_err(f, rec, table, C_VERITY, "%s: %s", what, f->o.verity_bad[i].why);
	}
}

void sqk_fsck_verity_file(struct sqk_fsck *f, uint32_t rec, uint64_t a, uint64_t b,
			  const char *what)
{
	if (f->o.nverity_bad)
		name(f, rec, T_INODE, a, b, what);
}

static void table(struct sqk_fsck *f, const char *t, uint64_t a, uint64_t b)
{
	if (a < b)
		name(f, FSCK_NONE, t, a, b, "its bytes");
}

static void lookup_table(struct sqk_fsck *f, const struct fsck_table *t)
{
	if (t->ok)
		table(f, t->name, t->first, t->end);
}

void sqk_fsck_verity_rest(struct sqk_fsck *f)
{
	uint64_t used = f->sb.bytes_used;
	uint32_t i;
	size_t k;

	if (!f->o.nverity_bad)
		return;
	for (i = 0; i < f->nfrags; i++) {
		char what[64];

		if (!f->frags[i].size)
			continue;
		snprintf(what, sizeof(what), "fragment block %u", f->frags[i].index);
		name(f, FSCK_NONE, T_FRAG, f->frags[i].start, f->frags[i].start + f->frags[i].size,
		     what);
	}
	table(f, T_SUPER, 0, SQK_SUPER_SIZE);
	table(f, T_COMP, SQK_SUPER_SIZE, f->data_start);
	if (f->img) {
		table(f, T_INODE, f->sb.inode_table, f->sb.dir_table);
		table(f, T_DIR, f->sb.dir_table, f->dir_end);
		lookup_table(f, &f->frag);
		lookup_table(f, &f->exp);
		lookup_table(f, &f->ids);
		if (f->xids.ok)
			table(f, T_XATTR, f->xattr_kv, f->xids.end);
	}
	/* What no file or table holds: the padding, bytes between blocks, or all of it. */
	for (k = 0; k < f->o.nverity_bad; k++) {
		const struct sqk_fsck_bad *b = &f->o.verity_bad[k];

		if (f->verity_named && f->verity_named[k])
			continue;
		sqk_fsck_err(f, FSCK_NONE, b->start >= used ? "padding" : "image", C_VERITY, "%s%s",
			     b->why,
			     b->start >= used ? " (after the image's last byte)"
					      : " (no file or table found to hold it)");
	}
}
