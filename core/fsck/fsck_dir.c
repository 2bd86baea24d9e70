// SPDX-License-Identifier: BSD-2-Clause
/*
 * Directory listings, read in the order they sit in the directory table,
 * so each block of the table is decompressed once. Each listing is checked
 * for its headers, names, order and size; each entry against the inode it
 * names (number, place, type, the parent a directory names); an extended
 * directory's index against the headers it points at. What the entries say
 * about the tree (reachability, loops, link counts) is kept for fsck.c.
 * A listing is not read past its first structural problem.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_type.h"
#include "fsck_int.h"
#include "read/dir.h"
#include "read/inode.h"
#include "util/array.h"
#include "util/error.h"

/* Bytes read out of order across all listings, whatever the image says. */
#define CURSOR_BUDGET (64ull << 20)

/* A header, kept for the index check. */
struct hdr {
	uint32_t loff; /* offset in the listing */
	uint64_t at;   /* where it starts: directory table reference */
	uint32_t name_len;
	char name[SQK_NAME_MAX];
};

struct listing {
	struct sqk_fsck *f;
	uint32_t dir; /* directory record index (f->dirs may move: keep indexes) */
	struct fsck_rd *rd;
	struct hdr *hdrs;
	uint32_t nhdrs, hcap;
	int keep_hdrs;
};

static int take(struct listing *l, uint64_t *left, void *buf, size_t len, const char *what)
{
	struct sqk_fsck *f = l->f;
	uint32_t rec = f->dirs[l->dir].rec;
	int err;

	if (*left < len) {
		sqk_fsck_err(
			f, rec, T_INODE, C_DIR_SIZE,
			"the listing ends inside %s: its size %u leaves %llu bytes for a %zu-byte "
			"structure",
			what, f->dirs[l->dir].size, (unsigned long long)*left, len);
		return -1;
	}
	*left -= len;
	err = l->rd->read(l->rd, buf, len);
	if (err) {
		if (!sqk_fsck_fatal(f, err))
			sqk_fsck_err(
				f, rec, T_INODE, C_DIR_HEADER,
				"the listing cannot be read: %s runs past the end of the directory "
				"table or into an unreadable block",
				what);
		return -1;
	}
	return 0;
}

static int add_link(struct sqk_fsck *f, uint32_t from, uint32_t to)
{
	if (SQK_ARRAY_GROW(f->links, f->linkcap, f->nlinks + 1))
		return SQK_ERR_NOMEM;
	f->links[f->nlinks][0] = from;
	f->links[f->nlinks++][1] = to;
	return 0;
}

/* One entry against the inode it names. */
static void entry(struct listing *l, const struct sqk_dir_entry *ent, uint64_t at)
{
	struct sqk_fsck *f = l->f;
	uint32_t drec = f->dirs[l->dir].rec, idx, child, old;
	struct fsck_rec *r = sqk_fsck_rec_by_number(f, ent->number);
	char a[64], b[64];

	if (!r && f->scan_cut && sqk_fsck_inode_at(f, ent->ref, ent->number, &idx) == 0)
		r = &f->recs[idx]; /* beyond where the inode table could be read in order */
	if (!r) {
		sqk_fsck_err(f, drec, T_INODE, C_DIR_ENTRY,
			     "entry '%s' names inode %u at %s, but %s", ent->name, ent->number,
			     sqk_fsck_ref_str(ent->ref, a, sizeof(a)),
			     f->scan_cut && ent->ref >= f->scan_cut_ref
				     ? "the inode there cannot be read"
				     : "the inode table holds no such inode there");
		return;
	}
	idx = (uint32_t)(r - f->recs);
	if (r->ref != ent->ref) {
		sqk_fsck_err(f, drec, T_INODE, C_DIR_ENTRY,
			     "entry '%s' names inode %u at %s, but inode %u is at %s", ent->name,
			     ent->number, sqk_fsck_ref_str(ent->ref, a, sizeof(a)), ent->number,
			     sqk_fsck_ref_str(r->ref, b, sizeof(b)));
		return;
	}
	if (sqk_basic_type(r->type) != ent->type) {
		sqk_fsck_err(f, drec, T_INODE, C_DIR_TYPE,
			     "entry '%s' is listed as a %s, but inode %u is a %s", ent->name,
			     sqk_fmt_type_name(ent->type), ent->number,
			     sqk_fmt_type_name(sqk_basic_type(r->type)));
		return;
	}
	f->dirs[l->dir].entries++;
	r->links++;
	if (r->dir == FSCK_NONE) {
		/* Hard links: the first entry gives the path, the others are extra edges. */
		if (r->up == FSCK_NONE) {
			r->up = drec;
			r->entry = at;
		} else if (add_link(f, drec, idx) != 0) {
			sqk_fsck_fatal(f, SQK_ERR_NOMEM);
		}
		return;
	}

	/*
	 * A directory: one parent, never itself or the root. Listings are read
	 * in table order, not tree order, so when two entries name one
	 * directory the one kept is in the directory its parent field names;
	 * the other is the loop. The parent field is checked in fsck.c.
	 */
	f->dirs[l->dir].subdirs++; /* what link counts count: entries of type directory */
	child = r->dir;
	if (idx == drec || idx == f->root) {
		sqk_fsck_err(f, drec, T_INODE, C_DIR_LOOP, "entry '%s' names %s", ent->name,
			     idx == drec ? "this directory itself" : "the root directory");
		return;
	}
	old = f->dirs[child].tree_parent;
	if (old == FSCK_NONE) {
		f->dirs[child].tree_parent = drec;
		r->up = drec;
		r->entry = at;
		return;
	}
	if (f->recs[old].number != f->dirs[child].parent &&
	    f->recs[drec].number == f->dirs[child].parent) {
		char name[SQK_NAME_MAX_BUF];
		uint32_t len = 0;

		if (sqk_fsck_entry_name(f, r->entry, name, &len) != 0)
			len = 0;
		name[len] = '\0';
		sqk_fsck_err(f, old, T_INODE, C_DIR_LOOP,
			     "entry '%s' names directory inode %u, which inode %u lists too "
			     "(directories have one parent)",
			     name, ent->number, f->recs[drec].number);
		f->dirs[child].tree_parent = drec;
		r->up = drec;
		r->entry = at;
		return;
	}
	sqk_fsck_err(f, drec, T_INODE, C_DIR_LOOP,
		     "entry '%s' names directory inode %u, which inode %u lists too (directories "
		     "have one parent)",
		     ent->name, ent->number, f->recs[old].number);
}

static int keep_hdr(struct listing *l, uint32_t loff, uint64_t at, const struct sqk_dir_entry *ent)
{
	struct hdr *h;

	if (l->nhdrs == l->hcap) {
		uint32_t cap = l->hcap ? l->hcap * 2 : 16;
		struct hdr *p = realloc(l->hdrs, (size_t)cap * sizeof(*p));

		if (!p)
			return SQK_ERR_NOMEM;
		l->hdrs = p;
		l->hcap = cap;
	}
	h = &l->hdrs[l->nhdrs++];
	h->loff = loff;
	h->at = at;
	h->name_len = ent->name_len;
	memcpy(h->name, ent->name, ent->name_len);
	return 0;
}

/* A name as a C string for a message: a NUL byte shows as \0. */
static void show_name(const struct sqk_dir_entry *e, char *shown)
{
	uint32_t k, n = 0;

	for (k = 0; k < e->name_len; k++) {
		if (e->name[k] == '\0')
			shown[n++] = '\\';
		shown[n++] = e->name[k] ? e->name[k] : '0';
	}
	shown[n] = '\0';
}

/* The check each entry field belongs to; the rest are "dir-entry". */
static const struct fsck_field_check entry_checks[] = {
	{"type", C_DIR_TYPE, NULL, 0},
	{NULL, C_DIR_ENTRY, NULL, 0},
};

/*
 * One entry: its fixed part, its name, and the inode it names. Each rule is
 * tried quietly first; only a broken one is run again to be recorded.
 */
static int read_entry(struct listing *l, uint64_t *left, const struct sqk_fmt_dir_header *h,
		      struct sqk_dir_entry *ent, struct sqk_dir_entry *prev, int have_prev)
{
	struct sqk_fsck *f = l->f;
	const struct sqk_fmt_limits lim = {f->sb.block_size, f->sb.inode_count,
					   f->sb.fragment_count, f->sb.id_count};
	uint32_t rec = f->dirs[l->dir].rec;
	uint8_t raw[SQK_FMT_DIR_ENTRY_SIZE];
	char shown[2 * SQK_NAME_MAX + 1];
	struct sqk_fmt_dir_entry e;
	struct fsck_fmt ff;

	if (take(l, left, raw, sizeof(raw), "an entry"))
		return -1;
	sqk_fmt_dir_entry_decode(raw, &e);
	if (sqk_fmt_dir_entry_check_size(&e, NULL)) {
		sqk_fsck_fmt_init(&ff, f, rec, T_INODE, C_DIR_HEADER, NULL);
		sqk_fsck_fmt_prefix(&ff, "an entry: ");
		sqk_fmt_dir_entry_check_size(&e, &ff.rep);
		return -1;
	}
	if (take(l, left, ent->name, e.name_size, "a name"))
		return -1;
	ent->name_len = e.name_size;
	ent->name[ent->name_len] = '\0';
	ent->type = e.type;
	ent->ref = sqk_fmt_dir_entry_ref(h, &e);
	sqk_fsck_fmt_init(&ff, f, rec, T_INODE, C_DIR_NAME, NULL);
	ff.quiet = 1; /* the messages show the names themselves */
	if (sqk_name_check(ent->name, ent->name_len, NULL)) {
		sqk_name_check(ent->name, ent->name_len, &ff.rep);
		show_name(ent, shown);
		sqk_fsck_err(f, rec, T_INODE, C_DIR_NAME, "the name '%s' %s", shown, ff.last.why);
		return -1;
	}
	if (have_prev &&
	    sqk_name_check_order(prev->name, prev->name_len, ent->name, ent->name_len, NULL)) {
		sqk_name_check_order(prev->name, prev->name_len, ent->name, ent->name_len, &ff.rep);
		if (sqk_name_cmp(prev->name, prev->name_len, ent->name, ent->name_len) == 0)
			sqk_fsck_err(f, rec, T_INODE, C_DIR_ORDER, "'%s' %s", ent->name,
				     ff.last.why);
		else
			sqk_fsck_err(f, rec, T_INODE, C_DIR_ORDER, "'%s' %s ('%s')", ent->name,
				     ff.last.why, prev->name);
		return -1;
	}
	if (sqk_fmt_dir_entry_check(&e, h, &lim, NULL)) {
		sqk_fsck_fmt_init(&ff, f, rec, T_INODE, C_DIR_ENTRY, entry_checks);
		sqk_fsck_fmt_prefix(&ff, "entry '%s': ", ent->name);
		sqk_fmt_dir_entry_check(&e, h, &lim, &ff.rep);
		return -1;
	}
	ent->number = (uint32_t)sqk_fmt_dir_entry_number(h, &e);
	return 0;
}

/* Read one listing; returns 0 when it was read to its end. */
static int read_listing(struct listing *l)
{
	struct sqk_fsck *f = l->f;
	uint32_t listing = sqk_fmt_dir_listing(f->dirs[l->dir].size);
	uint64_t left = listing;
	uint32_t rec = f->dirs[l->dir].rec;
	struct sqk_dir_entry ent, prev;
	int have_prev = 0;
	uint8_t raw[SQK_FMT_DIR_HEADER_SIZE];

	while (left > 0 && !fsck_stopped(f)) {
		uint32_t loff = listing - (uint32_t)left;
		uint64_t at = l->rd->tell(l->rd), k;
		struct sqk_fmt_dir_header h;
		struct fsck_fmt ff;

		if (take(l, &left, raw, sizeof(raw), "a header"))
			return -1;
		sqk_fmt_dir_header_decode(raw, &h);
		if (sqk_fmt_dir_header_check(&h, NULL)) {
			sqk_fsck_fmt_init(&ff, f, rec, T_INODE, C_DIR_HEADER, NULL);
			sqk_fsck_fmt_prefix(&ff, "the header at listing offset %u: ", loff);
			sqk_fmt_dir_header_check(&h, &ff.rep);
			return -1;
		}
		for (k = 0; k < h.count; k++) {
			uint64_t eat = l->rd->tell(l->rd);

			if (read_entry(l, &left, &h, &ent, &prev, have_prev))
				return -1;
			if (k == 0 && l->keep_hdrs && keep_hdr(l, loff, at, &ent)) {
				sqk_fsck_fatal(f, SQK_ERR_NOMEM);
				return -1;
			}
			entry(l, &ent, eat);
			prev = ent;
			have_prev = 1;
		}
	}
	return fsck_stopped(f) ? -1 : 0;
}

/*
 * The index of an extended directory: each entry names the listing offset
 * of a header, the directory table block where that header starts, and the
 * header's first name. The kernel seeks to (block, (offset + listing start)
 * % 8192) and compares names, so each must be exact.
 */
static void check_index(struct listing *l, int complete)
{
	struct sqk_fsck *f = l->f;
	struct fsck_dir *d = &f->dirs[l->dir];
	uint32_t listing = sqk_fmt_dir_listing(d->size), i, h = 0;
	struct fsck_fmt ff;

	sqk_fsck_fmt_init(&ff, f, d->rec, T_INODE, C_DIR_INDEX, NULL);
	for (i = 0; i < d->nindex; i++) {
		const struct fsck_index *x = &d->index[i];
		int name_len = (int)x->x.name_size;
		const struct hdr *hd;
		uint32_t want_off;

		sqk_fsck_fmt_prefix(&ff, "index entry %u ('%.*s'): ", i, name_len, x->name);
		/* Offsets in order and inside the listing, or the rest cannot be matched. */
		if (sqk_fmt_dir_index_check(&x->x, i ? &d->index[i - 1].x : NULL, listing, &ff.rep))
			return;
		while (h < l->nhdrs && l->hdrs[h].loff < x->x.offset)
			h++;
		if (h == l->nhdrs || l->hdrs[h].loff != x->x.offset) {
			if (h == l->nhdrs && !complete)
				return; /* past what could be read */
			sqk_fsck_err(
				f, d->rec, T_INODE, C_DIR_INDEX,
				"index entry %u ('%.*s') points at listing offset %u, where no "
				"header starts",
				i, name_len, x->name, x->x.offset);
			continue;
		}
		hd = &l->hdrs[h];
		want_off = sqk_fmt_dir_index_block_offset(d->offset, &x->x);
		if (SQK_REF_BLOCK(hd->at) != x->x.start || SQK_REF_OFFSET(hd->at) != want_off)
			sqk_fsck_err(
				f, d->rec, T_INODE, C_DIR_INDEX,
				"index entry %u ('%.*s') leads to block %u, offset %u, but its "
				"header is at block %llu, offset %u",
				i, name_len, x->name, x->x.start, want_off,
				(unsigned long long)SQK_REF_BLOCK(hd->at), SQK_REF_OFFSET(hd->at));
		if (sqk_name_cmp(hd->name, hd->name_len, x->name, x->x.name_size) != 0)
			sqk_fsck_err(
				f, d->rec, T_INODE, C_DIR_INDEX,
				"index entry %u is '%.*s', but its header's first name is '%.*s'",
				i, name_len, x->name, (int)hd->name_len, hd->name);
	}
}

static void do_listing(struct sqk_fsck *f, uint32_t di, struct fsck_rd *rd)
{
	struct listing l = {f, di, rd, NULL, 0, 0, f->dirs[di].nindex > 0};
	int complete = read_listing(&l) == 0;

	if (fsck_stopped(f)) {
		free(l.hdrs);
		return;
	}
	if (complete) {
		f->dirs[di].listed = 1;
		f->counts.directories++;
	} else {
		f->listing_cut = 1;
	}
	if (f->dirs[di].nindex)
		check_index(&l, complete);
	free(l.hdrs);
}

/* Listings in table order: by block, then offset. */
static int cmp_pos(const void *a, const void *b, void *arg)
{
	const struct fsck_dir *dirs = arg;
	const struct fsck_dir *x = &dirs[*(const uint32_t *)a], *y = &dirs[*(const uint32_t *)b];
	uint64_t p = SQK_MKREF(x->block, x->offset), q = SQK_MKREF(y->block, y->offset);

	return p < q ? -1 : p > q;
}

static void one_dir(struct sqk_fsck *f, struct fsck_ms *ms, uint32_t di, uint64_t *prev_end)
{
	struct fsck_dir *d = &f->dirs[di];
	uint64_t table = f->dir_end - f->sb.dir_table, start;
	struct fsck_cur c;
	int err;

	if (d->size == 0) {
		/* The inode rules the listing out (reported with it): what it names is unknown. */
		f->listing_cut = 1;
		return;
	}
	if (sqk_fmt_dir_listing(d->size) == 0) {
		struct listing l = {f, di, NULL, NULL, 0, 0, 0};

		d->listed = 1; /* an empty directory has no listing */
		f->counts.directories++;
		check_index(&l, 1); /* no entry of an index fits in it */
		return;
	}
	start = SQK_MKREF(d->block, d->offset);
	if (d->block >= table) {
		sqk_fsck_err(
			f, d->rec, T_INODE, C_DIR_HEADER,
			"the listing starts at block %u, outside the directory table (%llu bytes)",
			d->block, (unsigned long long)table);
		f->listing_cut = 1;
		return;
	}
	if (prev_end && start < *prev_end) {
		/* Listings never share bytes; reading them again could go on for ever. */
		sqk_fsck_err(f, d->rec, T_INODE, C_DIR_HEADER,
			     "the listing at block %u, offset %u overlaps the listing before it",
			     d->block, d->offset);
		f->listing_cut = 1;
		return;
	}
	err = sqk_fsck_ms_seek(ms, d->block, d->offset);
	if (err == 0) {
		do_listing(f, di, &ms->rd);
		if (prev_end)
			*prev_end = ms->rd.tell(&ms->rd);
		return;
	}
	if (sqk_fsck_fatal(f, err))
		return;
	if (err == 1 && f->cursor_left >= d->size) {
		f->cursor_left -= d->size;
		err = sqk_fsck_cur_open(&c, f, f->sb.dir_table, start);
		if (!err) {
			do_listing(f, di, &c.rd);
			if (prev_end)
				*prev_end = c.rd.tell(&c.rd);
		}
		sqk_fsck_cur_close(&c);
		if (!err)
			return;
	}
	sqk_fsck_err(
		f, d->rec, T_INODE, C_DIR_HEADER,
		"the listing at block %u, offset %u is not inside a readable metadata block of "
		"the directory table",
		d->block, d->offset);
	f->listing_cut = 1;
}

void sqk_fsck_directories(struct sqk_fsck *f)
{
	uint32_t n = f->ndirs, i, done;
	uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
	uint64_t prev_end = 0;
	struct fsck_ms ms;

	if (!order) {
		sqk_fsck_fatal(f, SQK_ERR_NOMEM);
		return;
	}
	f->cursor_left = CURSOR_BUDGET;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_pos, f->dirs);
	sqk_fsck_ms_init(&ms, f, T_DIR, f->sb.dir_table, f->dir_end);
	for (i = 0; i < n && !fsck_stopped(f); i++)
		one_dir(f, &ms, order[i], &prev_end);
	free(order);
	/* Directories found only by following entries past a damaged inode table. */
	for (done = n; done < f->ndirs && !fsck_stopped(f); done++)
		one_dir(f, &ms, done, NULL);
	sqk_fsck_ms_finish(&ms);
	sqk_fsck_ms_free(&ms);
}

int sqk_fsck_entry_name(struct sqk_fsck *f, uint64_t ref, char *name, uint32_t *len)
{
	uint8_t raw[SQK_FMT_DIR_ENTRY_SIZE];
	struct sqk_fmt_dir_entry e;
	struct fsck_cur c;
	int err;

	err = sqk_fsck_cur_open(&c, f, f->sb.dir_table, ref);
	if (!err)
		err = sqk_meta_read(&c.m, raw, sizeof(raw));
	if (!err) {
		sqk_fmt_dir_entry_decode(raw, &e);
		*len = e.name_size;
		err = sqk_fmt_dir_entry_check_size(&e, NULL);
	}
	if (!err)
		err = sqk_meta_read(&c.m, name, *len);
	sqk_fsck_cur_close(&c);
	return err;
}
