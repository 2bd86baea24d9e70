// SPDX-License-Identifier: BSD-2-Clause
/*
 * Reading metadata for fsck. The stream walks a chained table from its
 * first block to its end, decompressing each block once, so a table is
 * checked block by block while its contents are parsed; whatever must be
 * read out of order goes through the metadata cache instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck_int.h"
#include "read/block.h"
#include "util/error.h"

struct why {
	char *buf;
	size_t len;
};

/* The first broken rule becomes the reason given. */
static int why_issue(void *ctx, const struct sqk_fmt_issue *i)
{
	struct why *w = ctx;

	sqk_fsck_issue_text(i, w->buf, w->len);
	return 1;
}

int sqk_fsck_meta_load(struct sqk_fsck *f, const char *table, uint64_t pos, uint8_t *buf,
		       uint32_t *len, uint64_t *next, char *why, size_t whylen)
{
	struct why w = {why, whylen};
	struct sqk_fmt_report r = {why_issue, &w, 0};
	int err, refused;

	err = sqk_block_load_meta(f->file, f->sb.bytes_used, f->comp, pos, buf, len, next, &r,
				  &refused);
	if (err == SQK_ERR_IO || err == SQK_ERR_NOMEM)
		return err;
	if (err && !r.count)
		snprintf(why, whylen, "does not decompress: %s", sqk_fsck_why(err));
	if (!err && refused)
		sqk_fsck_err(f, FSCK_NONE, table, C_KERNEL, "metadata block at %llu: " FSCK_REFUSED,
			     (unsigned long long)pos);
	return err ? SQK_ERR_CORRUPT : 0;
}

static int ms_record(struct fsck_ms *ms, uint64_t rel)
{
	if (ms->nstarts == ms->cap) {
		size_t cap = ms->cap ? ms->cap * 2 : 64;
		uint64_t *p = realloc(ms->starts, cap * sizeof(*p));

		if (!p)
			return SQK_ERR_NOMEM;
		ms->starts = p;
		ms->cap = cap;
	}
	ms->starts[ms->nstarts++] = rel;
	return 0;
}

/* Load the block at ms->pos, checking it. */
static int ms_load(struct fsck_ms *ms)
{
	char why[128];
	int err;

	if (ms->failed)
		return SQK_ERR_CORRUPT;
	if (ms->pos >= ms->end)
		return SQK_ERR_TRUNCATED;
	err = sqk_fsck_meta_load(ms->f, ms->table, ms->pos, ms->buf, &ms->len, &ms->next, why,
				 sizeof(why));
	if (err) {
		ms->failed = 1;
		if (sqk_fsck_fatal(ms->f, err))
			return err;
		sqk_fsck_err(ms->f, FSCK_NONE, ms->table, C_META, "metadata block at %llu: %s",
			     (unsigned long long)ms->pos, why);
		return err;
	}
	err = ms_record(ms, ms->pos - ms->start);
	if (err) {
		ms->failed = 1;
		sqk_fsck_fatal(ms->f, err);
		return err;
	}
	if (ms->next > ms->end) {
		sqk_fsck_err(ms->f, FSCK_NONE, ms->table, C_META,
			     "metadata block at %llu runs past the table's end at %llu",
			     (unsigned long long)ms->pos, (unsigned long long)ms->end);
		/* Its bytes are still usable; the chain ends here. */
		ms->next = ms->end;
	} else if (ms->next < ms->end && ms->len != SQK_META_SIZE) {
		/* Readers find entries by offset: only the last block may be short. */
		sqk_fsck_err(ms->f, FSCK_NONE, ms->table, C_META,
			     "metadata block at %llu decompresses to %u bytes, not %u (only a "
			     "table's last block may be shorter)",
			     (unsigned long long)ms->pos, ms->len, SQK_META_SIZE);
	}
	ms->loaded = 1;
	ms->off = 0;
	return 0;
}

static int ms_read(struct fsck_rd *rd, void *buf, size_t len)
{
	struct fsck_ms *ms = (struct fsck_ms *)rd;
	uint8_t *p = buf;
	int err;

	while (len > 0) {
		size_t n;

		if (!ms->loaded) {
			err = ms_load(ms);
			if (err)
				return err;
		}
		if (ms->off >= ms->len) {
			ms->pos = ms->next;
			ms->loaded = 0;
			continue;
		}
		n = ms->len - ms->off;
		if (n > len)
			n = len;
		if (p) {
			memcpy(p, ms->buf + ms->off, n);
			p += n;
		}
		ms->off += (uint32_t)n;
		len -= n;
	}
	return 0;
}

static uint64_t ms_tell(struct fsck_rd *rd)
{
	struct fsck_ms *ms = (struct fsck_ms *)rd;

	if (ms->loaded && ms->off >= ms->len)
		return SQK_MKREF(ms->next - ms->start, 0);
	return SQK_MKREF(ms->pos - ms->start, ms->loaded ? ms->off : 0);
}

void sqk_fsck_ms_init(struct fsck_ms *ms, struct sqk_fsck *f, const char *table, uint64_t start,
		      uint64_t end)
{
	memset(ms, 0, sizeof(*ms));
	ms->rd.read = ms_read;
	ms->rd.tell = ms_tell;
	ms->f = f;
	ms->table = table;
	ms->start = start;
	ms->end = end;
	ms->pos = start;
}

void sqk_fsck_ms_free(struct fsck_ms *ms)
{
	free(ms->starts);
	ms->starts = NULL;
	ms->nstarts = ms->cap = 0;
}

int sqk_fsck_ms_seek(struct fsck_ms *ms, uint64_t rel_block, uint32_t offset)
{
	uint64_t target;
	int err;

	if (ms->failed || rel_block >= ms->end - ms->start)
		return 1;
	target = ms->start + rel_block;
	if (ms->loaded && ms->off >= ms->len && ms->next <= target) {
		ms->pos = ms->next;
		ms->loaded = 0;
	}
	if (target < ms->pos)
		return 1;
	while (ms->pos < target) {
		if (!ms->loaded) {
			err = ms_load(ms);
			if (err)
				return err == SQK_ERR_IO || err == SQK_ERR_NOMEM ? err : 1;
		}
		ms->pos = ms->next;
		ms->loaded = 0;
	}
	if (ms->pos != target)
		return SQK_ERR_CORRUPT; /* not the start of a block */
	if (!ms->loaded) {
		err = ms_load(ms);
		if (err)
			return err == SQK_ERR_IO || err == SQK_ERR_NOMEM ? err : 1;
	}
	if (offset < ms->off)
		return 1;
	if (offset > ms->len)
		return SQK_ERR_CORRUPT;
	ms->off = offset;
	return 0;
}

void sqk_fsck_ms_finish(struct fsck_ms *ms)
{
	while (!ms->failed && !fsck_stopped(ms->f)) {
		if (!ms->loaded && ms->pos >= ms->end)
			break;
		if (!ms->loaded && ms_load(ms))
			break;
		ms->pos = ms->next;
		ms->loaded = 0;
	}
}

int sqk_fsck_ms_at_end(struct fsck_ms *ms)
{
	if (ms->failed)
		return 0;
	if (!ms->loaded)
		return ms->pos >= ms->end;
	return ms->off >= ms->len && ms->next >= ms->end;
}

static int cur_read(struct fsck_rd *rd, void *buf, size_t len)
{
	struct fsck_cur *c = (struct fsck_cur *)rd;

	return sqk_meta_read(&c->m, buf, len);
}

static uint64_t cur_tell(struct fsck_rd *rd)
{
	struct fsck_cur *c = (struct fsck_cur *)rd;

	if (c->m.e && c->m.offset >= c->m.e->length)
		return SQK_MKREF(c->m.e->next - c->m.start, 0);
	return SQK_MKREF(c->m.block - c->m.start, c->m.offset);
}

int sqk_fsck_cur_open(struct fsck_cur *c, struct sqk_fsck *f, uint64_t table, uint64_t ref)
{
	memset(c, 0, sizeof(*c));
	c->rd.read = cur_read;
	c->rd.tell = cur_tell;
	c->open = 1;
	return sqk_meta_seek(&c->m, f->img, table, SQK_REF_BLOCK(ref), SQK_REF_OFFSET(ref));
}

void sqk_fsck_cur_close(struct fsck_cur *c)
{
	if (c->open)
		sqk_meta_release(&c->m);
	c->open = 0;
}
