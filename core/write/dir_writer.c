// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "dir_writer.h"
#include "format/fmt_dir.h"
#include "format/format.h"
#include "util/array.h"
#include "util/error.h"

struct state {
	struct sqk_meta_writer *mw;
	struct sqk_dir_result *res;
	uint64_t listing_start;	 /* uncompressed stream position of the listing */
	uint64_t prev_hdr_block; /* uncompressed block number of the previous header */
	int have_prev;
	size_t index_cap;
	const struct sqk_fmt_limits *lim; /* the reader's rules, for an image of these counts */
	struct sqk_fmt_report *r;
};

static int add_index(struct state *s, uint32_t index, uint32_t start, const char *name,
		     uint32_t len)
{
	struct sqk_dir_result *r = s->res;
	struct sqk_fmt_dir_index x = {index, start, len};
	size_t need = r->index_len + SQK_FMT_DIR_INDEX_SIZE + len;

	if (SQK_ARRAY_GROW(r->index, s->index_cap, need))
		return SQK_ERR_NOMEM;
	sqk_fmt_dir_index_encode(&x, r->index + r->index_len);
	memcpy(r->index + r->index_len + SQK_FMT_DIR_INDEX_SIZE, name, len);
	r->index_len += SQK_FMT_DIR_INDEX_SIZE + len;
	r->index_count++;
	return 0;
}

/* A header as it is once its entries' inode block has a start. */
static void fix_header(const void *data, uint64_t start, uint8_t *out)
{
	struct sqk_fmt_dir_header h = *(const struct sqk_fmt_dir_header *)data;

	h.start = (uint32_t)start;
	sqk_fmt_dir_header_encode(&h, out);
}

/* Write one header and its entries ents[0..count). */
static int write_group(struct state *s, const struct sqk_dir_entry *ents, uint32_t count)
{
	struct sqk_fmt_dir_header h = {count, (uint32_t)SQK_REF_BLOCK(ents[0].inode_ref),
				       ents[0].number};
	uint8_t b[SQK_FMT_DIR_HEADER_SIZE];
	uint64_t pos = s->mw->total;
	uint64_t ref = sqk_mw_ref(s->mw);
	uint32_t i;
	int err;

	if (s->have_prev && pos / SQK_META_SIZE != s->prev_hdr_block) {
		err = add_index(s, (uint32_t)(pos - s->listing_start), (uint32_t)SQK_REF_BLOCK(ref),
				ents[0].name, ents[0].len);
		if (err)
			return err;
	}
	s->have_prev = 1;
	s->prev_hdr_block = pos / SQK_META_SIZE;

	if (s->lim && sqk_fmt_dir_header_check(&h, s->r))
		return SQK_ERR_OVERFLOW;
	/* Where the entries' inodes are: known once their block is placed (meta_writer.h). */
	err = sqk_mw_write_fixed(s->mw, h.start, fix_header, &h, sizeof(h),
				 SQK_FMT_DIR_HEADER_SIZE);
	if (err)
		return err;
	for (i = 0; i < count; i++) {
		const struct sqk_dir_entry *e = &ents[i];
		struct sqk_fmt_dir_entry de = {
			(uint16_t)SQK_REF_OFFSET(e->inode_ref),
			(int16_t)((int64_t)e->number - (int64_t)h.base),
			(uint16_t)e->basic_type,
			e->len,
		};

		if (s->lim && (sqk_fmt_dir_entry_check_size(&de, s->r) ||
			       sqk_fmt_dir_entry_check(&de, &h, s->lim, s->r) ||
			       sqk_fmt_dir_entry_number(&h, &de) != e->number ||
			       sqk_fmt_dir_entry_ref(&h, &de) != e->inode_ref))
			return SQK_ERR_OVERFLOW;
		sqk_fmt_dir_entry_encode(&de, b);
		err = sqk_mw_write(s->mw, b, SQK_FMT_DIR_ENTRY_SIZE);
		if (!err)
			err = sqk_mw_write(s->mw, e->name, e->len);
		if (err)
			return err;
	}
	return 0;
}

/* The index as the reader checks it: names of 1..256 bytes, offsets rising inside the listing. */
static int check_index(const struct sqk_dir_result *res, struct sqk_fmt_report *r)
{
	struct sqk_fmt_dir_index x, prev;
	uint32_t i, at = 0;

	for (i = 0; i < res->index_count; i++) {
		sqk_fmt_dir_index_decode(res->index + at, &x);
		if (sqk_fmt_dir_index_check_size(&x, r) ||
		    sqk_fmt_dir_index_check(&x, i ? &prev : NULL, res->size, r))
			return SQK_ERR_OVERFLOW;
		at += SQK_FMT_DIR_INDEX_SIZE + (uint32_t)x.name_size;
		prev = x;
	}
	return 0;
}

/* The group being gathered: entries with their names copied, at most a header's worth. */
struct group {
	struct sqk_dir_entry e[SQK_DIR_HDR_MAX];
	char names[SQK_DIR_HDR_MAX][SQK_NAME_MAX];
	uint32_t n;
};

int sqk_dir_write_stream(struct sqk_meta_writer *mw, sqk_dir_next_fn next, void *ctx,
			 const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r,
			 struct sqk_dir_result *res)
{
	struct state s = {.mw = mw, .res = res, .lim = lim, .r = r};
	uint64_t ref = sqk_mw_ref(mw);
	struct group *g = malloc(sizeof(*g));
	uint64_t hdr_pos, pos;
	struct sqk_dir_entry e;
	int err;

	memset(res, 0, sizeof(*res));
	if (!g)
		return SQK_ERR_NOMEM;
	g->n = 0;
	res->start = (uint32_t)SQK_REF_BLOCK(ref);
	res->offset = (uint16_t)SQK_REF_OFFSET(ref);
	s.listing_start = mw->total;

	/* Group entries by the rules above, computing positions as the bytes will land. */
	hdr_pos = mw->total;
	pos = hdr_pos + SQK_FMT_DIR_HEADER_SIZE;
	while (!(err = next(ctx, &e))) {
		const struct sqk_dir_entry *h = &g->e[0];
		int split = 0;

		if (sqk_name_check(e.name, e.len, NULL)) {
			err = SQK_ERR_BADNAME;
			break;
		}
		if (g->n) {
			split = g->n == SQK_DIR_HDR_MAX ||
				SQK_REF_BLOCK(e.inode_ref) != SQK_REF_BLOCK(h->inode_ref) ||
				!sqk_fmt_dir_delta_fits(h->number, e.number) ||
				pos / SQK_META_SIZE != hdr_pos / SQK_META_SIZE;
		}
		if (split) {
			err = write_group(&s, g->e, g->n);
			if (err)
				break;
			g->n = 0;
			hdr_pos = pos;
			pos = hdr_pos + SQK_FMT_DIR_HEADER_SIZE;
		}
		memcpy(g->names[g->n], e.name, e.len);
		e.name = g->names[g->n];
		g->e[g->n++] = e;
		pos += SQK_FMT_DIR_ENTRY_SIZE + e.len;
	}
	if (err == 1)
		err = g->n ? write_group(&s, g->e, g->n) : 0;
	free(g);
	if (err) {
		free(res->index);
		res->index = NULL;
		return err;
	}
	res->size = (uint32_t)(mw->total - s.listing_start);
	return lim ? check_index(res, s.r) : 0;
}

struct array_src {
	const struct sqk_dir_entry *ents;
	uint32_t n, i;
};

static int array_next(void *ctx, struct sqk_dir_entry *e)
{
	struct array_src *a = ctx;

	if (a->i == a->n)
		return 1;
	*e = a->ents[a->i++];
	return 0;
}

int sqk_dir_write(struct sqk_meta_writer *mw, const struct sqk_dir_entry *ents, uint32_t n,
		  const struct sqk_fmt_limits *lim, struct sqk_fmt_report *r,
		  struct sqk_dir_result *res)
{
	struct array_src a = {ents, n, 0};

	return sqk_dir_write_stream(mw, array_next, &a, lim, r, res);
}
