// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "format/fmt_meta.h"
#include "format/fmt_super.h"
#include "format/fmt_table.h"
#include "layout.h"
#include "util/error.h"

/* The field names the lookup tables' rules report under. */
static const char *const list_field[SQK_TABLE_COUNT] = {
	[SQK_TABLE_FRAG] = "fragment_table",
	[SQK_TABLE_EXPORT] = "export_table",
	[SQK_TABLE_ID] = "id_table",
	[SQK_TABLE_XATTR] = "xattr_table",
};
static const char *const pos_field[SQK_TABLE_COUNT] = {
	[SQK_TABLE_FRAG] = "fragment_lookup",
	[SQK_TABLE_EXPORT] = "export_lookup",
	[SQK_TABLE_ID] = "id_lookup",
	[SQK_TABLE_XATTR] = "xattr_lookup",
};

struct reading {
	struct sqk_layout *l;
	struct sqk_file *file;
	struct sqk_fmt_report *r;
	int first; /* the first error */
};

/* Note an error; nonzero when reading must stop (no report, or an operational one). */
static int note(struct reading *rd, int err)
{
	if (!err)
		return 0;
	if (!rd->first)
		rd->first = err;
	return !rd->r || !rd->r->fn || err == SQK_ERR_IO || err == SQK_ERR_NOMEM;
}

static int read_options(struct reading *rd, const struct sqk_super *sb)
{
	struct sqk_fmt_meta_hdr h;
	uint8_t raw[SQK_FMT_META_HDR_SIZE];
	int err;

	rd->l->data_start = sqk_fmt_data_start(NULL);
	if (!(sb->flags & SQK_FLAG_COMPRESSOR_OPTIONS))
		return 0;
	if (sb->bytes_used < SQK_FMT_OPTIONS_POS + SQK_FMT_META_HDR_SIZE)
		return sqk_fmt_options_check(NULL, sb->bytes_used, rd->r);
	err = rd->file->read_at(rd->file, SQK_FMT_OPTIONS_POS, raw, sizeof(raw));
	if (err)
		return err;
	sqk_fmt_meta_hdr_decode(&h, raw);
	err = sqk_fmt_options_check(&h, sb->bytes_used, rd->r);
	if (err)
		return err;
	rd->l->data_start = sqk_fmt_data_start(&h);
	rd->l->options_size = rd->l->data_start - SQK_FMT_OPTIONS_POS;
	return 0;
}

/*
 * A lookup table whose list is at t->list, after *prev: read and check its
 * list; blocks must end by blocks_end. On success the table is ok and
 * *prev moves past its list.
 */
static int read_list(struct reading *rd, int which, uint64_t lo, uint64_t blocks_end,
		     uint64_t *prev)
{
	struct sqk_table *t = &rd->l->t[which];
	uint64_t n = sqk_fmt_table_blocks(t->entries, t->entry_size), i;
	uint8_t *raw;
	int err;

	err = sqk_fmt_span_check(list_field[which], t->list, n * SQK_FMT_LOOKUP_SIZE, *prev,
				 rd->l->bytes_used, rd->r);
	if (err)
		return err;
	if (n) {
		raw = malloc(n * SQK_FMT_LOOKUP_SIZE);
		t->pos = malloc(n * sizeof(*t->pos));
		if (!raw || !t->pos) {
			free(raw);
			return SQK_ERR_NOMEM;
		}
		err = rd->file->read_at(rd->file, t->list, raw, n * SQK_FMT_LOOKUP_SIZE);
		for (i = 0; !err && i < n; i++)
			t->pos[i] = sqk_fmt_lookup_decode(raw + SQK_FMT_LOOKUP_SIZE * i);
		free(raw);
		if (!err)
			err = sqk_fmt_lookup_check(pos_field[which], t->pos, n, lo,
						   blocks_end ? blocks_end : t->list, rd->r);
		if (err)
			return err;
	}
	t->nblocks = (uint32_t)n;
	t->start = n ? t->pos[0] : t->list;
	t->blocks_end = blocks_end ? blocks_end : t->list;
	t->end = t->list + n * SQK_FMT_LOOKUP_SIZE;
	t->ok = 1;
	*prev = t->end;
	return 0;
}

/* The xattr table: a header (key/value start, id count), then the list of id blocks. */
static int read_xattrs(struct reading *rd, const struct sqk_super *sb, uint64_t *prev)
{
	struct sqk_layout *l = rd->l;
	struct sqk_table *t = &l->t[SQK_TABLE_XATTR];
	struct sqk_fmt_xattr_table h;
	uint8_t raw[SQK_FMT_XATTR_HDR_SIZE];
	uint64_t after;
	int err;

	err = sqk_fmt_span_check(list_field[SQK_TABLE_XATTR], sb->xattr_table, sizeof(raw), *prev,
				 l->bytes_used, rd->r);
	if (!err)
		err = rd->file->read_at(rd->file, sb->xattr_table, raw, sizeof(raw));
	if (err)
		return err;
	sqk_fmt_xattr_table_decode(&h, raw);
	err = sqk_fmt_xattr_table_check(&h, *prev, sb->xattr_table, rd->r);
	if (err)
		return err;
	/* The key/value blocks, then the id blocks, then the header and the list. */
	t->entries = h.count;
	t->list = sb->xattr_table + sizeof(raw);
	after = h.kv_start;
	err = read_list(rd, SQK_TABLE_XATTR, h.kv_start, sb->xattr_table, &after);
	if (err)
		return err;
	l->kv_start = h.kv_start;
	l->kv_end = t->nblocks ? t->pos[0] : sb->xattr_table;
	t->start = h.kv_start;
	*prev = t->end;
	return 0;
}

static void init_table(struct sqk_table *t, uint64_t ptr, uint64_t entries, uint32_t entry_size)
{
	t->present = ptr != SQK_INVALID_TABLE;
	t->ptr = ptr;
	t->list = ptr;
	t->entries = entries;
	t->entry_size = entry_size;
}

int sqk_layout_read(struct sqk_layout *l, struct sqk_file *file, const struct sqk_super *sb,
		    struct sqk_fmt_report *r)
{
	struct reading rd = {l, file, r, 0};
	uint64_t prev = sb->dir_table, end;
	int i, err;

	memset(l, 0, sizeof(*l));
	l->bytes_used = sb->bytes_used;
	err = read_options(&rd, sb);
	if (!err)
		err = sqk_fmt_main_tables_check(sb, l->data_start, r);
	if (err) {
		note(&rd, err);
		return rd.first;
	}
	l->placed = 1;
	init_table(&l->t[SQK_TABLE_INODE], sb->inode_table, 0, 0);
	init_table(&l->t[SQK_TABLE_DIR], sb->dir_table, 0, 0);
	init_table(&l->t[SQK_TABLE_FRAG], sb->fragment_table, sb->fragment_count,
		   SQK_FMT_FRAG_SIZE);
	init_table(&l->t[SQK_TABLE_EXPORT], sb->export_table, sb->inode_count, SQK_FMT_EXPORT_SIZE);
	init_table(&l->t[SQK_TABLE_ID], sb->id_table, sb->id_count, SQK_FMT_ID_SIZE);
	init_table(&l->t[SQK_TABLE_XATTR], sb->xattr_table, 0, SQK_FMT_XATTR_ID_SIZE);
	/* The id table is always there: a missing one breaks its place rule. */
	l->t[SQK_TABLE_ID].present = 1;

	/* In the order the format stores them, each after the one before. */
	for (i = SQK_TABLE_FRAG; i <= SQK_TABLE_ID; i++) {
		if (!l->t[i].present)
			continue;
		err = read_list(&rd, i, prev, 0, &prev);
		if (note(&rd, err))
			return rd.first;
	}
	if (l->t[SQK_TABLE_XATTR].present) {
		err = read_xattrs(&rd, sb, &prev);
		if (note(&rd, err))
			return rd.first;
	}
	/* Where the last table ends is known only when every one could be placed. */
	if (!rd.first) {
		err = sqk_fmt_tables_end_check(prev, sb->bytes_used, r);
		if (note(&rd, err))
			return rd.first;
	}

	/* The inode table runs to the directory table, that one to the next usable table. */
	end = sb->bytes_used;
	for (i = SQK_TABLE_FRAG; i < SQK_TABLE_COUNT; i++)
		if (l->t[i].ok && l->t[i].start < end)
			end = l->t[i].start;
	l->t[SQK_TABLE_INODE].ok = l->t[SQK_TABLE_DIR].ok = 1;
	l->t[SQK_TABLE_INODE].start = sb->inode_table;
	l->t[SQK_TABLE_INODE].blocks_end = l->t[SQK_TABLE_INODE].end = sb->dir_table;
	l->t[SQK_TABLE_DIR].start = sb->dir_table;
	l->t[SQK_TABLE_DIR].blocks_end = l->t[SQK_TABLE_DIR].end = end;
	return rd.first;
}

void sqk_layout_free(struct sqk_layout *l)
{
	int i;

	for (i = 0; i < SQK_TABLE_COUNT; i++) {
		free(l->t[i].pos);
		l->t[i].pos = NULL;
	}
}

uint64_t sqk_layout_meta_end(const struct sqk_layout *l, uint64_t start)
{
	uint64_t end = l->bytes_used;
	int i;

	if (start == l->t[SQK_TABLE_INODE].start)
		return l->t[SQK_TABLE_INODE].blocks_end;
	if (start == l->t[SQK_TABLE_DIR].start)
		return l->t[SQK_TABLE_DIR].blocks_end;
	if (l->t[SQK_TABLE_XATTR].ok && start == l->kv_start)
		return l->kv_end;
	for (i = 0; i < SQK_TABLE_COUNT; i++)
		if (l->t[i].ok && l->t[i].start > start && l->t[i].start < end)
			end = l->t[i].start;
	return end;
}

int sqk_table_entry(struct sqk_blocks *b, struct sqk_cache *meta, const struct sqk_table *t,
		    uint64_t idx, void *out)
{
	uint64_t per, blk, expect;
	struct sqk_cache_entry *e;
	uint32_t off;
	int err;

	if (!t->ok || idx >= t->entries)
		return SQK_ERR_CORRUPT;
	/* 8 KiB is a multiple of every entry size: no entry spans two blocks. */
	per = SQK_META_SIZE / t->entry_size;
	blk = idx / per;
	off = (uint32_t)((idx % per) * t->entry_size);
	err = sqk_block_meta(b, meta, t->pos[blk], &e);
	if (err)
		return err;
	expect = blk + 1 < t->nblocks ? t->pos[blk + 1] : t->blocks_end;
	err = sqk_fmt_table_block_check(e->length,
					sqk_fmt_table_block_bytes(t->entries, t->entry_size, blk),
					e->next, expect, NULL);
	if (!err)
		memcpy(out, e->data + off, t->entry_size);
	sqk_cache_put(e);
	return err;
}
