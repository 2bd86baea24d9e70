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
#include "util/extsort.h"
#include "util/store.h"

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
	uint32_t dir;	   /* directory index */
	struct fsck_dir d; /* its record as the listing began; entries and subdirs counted here */
	struct fsck_rd *rd;
	struct sqk_store *hdrs; /* struct hdr, for the index check */
	uint32_t nhdrs;
	int keep_hdrs;
};

static int take(struct listing *l, uint64_t *left, void *buf, size_t len, const char *what)
{
	struct sqk_fsck *f = l->f;
	uint32_t rec = l->d.rec;
	int err;

	if (*left < len) {
		sqk_fsck_err(
			f, rec, T_INODE, C_DIR_SIZE,
			"the listing ends inside %s: its size %u leaves %llu bytes for a %zu-byte "
			"structure",
			what, l->d.size, (unsigned long long)*left, len);
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

/*
 * A directory named by an entry of the listing: one parent, never itself or
 * the root. Listings are read in table order, not tree order, so when two
 * entries name one directory the one kept is in the directory its parent
 * field names; the other is the loop. The parent field is checked in fsck.c.
 */
static void subdir(struct listing *l, const struct sqk_dir_entry *ent, uint64_t at, uint32_t idx,
		   struct fsck_rec *r)
{
	struct sqk_fsck *f = l->f;
	uint32_t drec = l->d.rec, old, old_number, drec_number;
	struct fsck_dir child;

	l->d.subdirs++; /* what link counts count: entries of type directory */
	if (idx == drec || idx == f->root) {
		sqk_fsck_err(f, drec, T_INODE, C_DIR_LOOP, "entry '%s' names %s", ent->name,
			     idx == drec ? "this directory itself" : "the root directory");
		return;
	}
	child = sqk_fsck_dir(f, r->dir);
	old = child.tree_parent;
	if (old == FSCK_NONE) {
		child.tree_parent = drec;
		sqk_fsck_dir_set(f, r->dir, &child);
		r->up = drec;
		r->entry = at;
		return;
	}
	old_number = sqk_fsck_rec(f, old).number;
	drec_number = sqk_fsck_rec(f, drec).number;
	if (old_number != child.parent && drec_number == child.parent) {
		char name[SQK_NAME_MAX_BUF];
		uint32_t len = 0;

		if (sqk_fsck_entry_name(f, r->entry, name, &len) != 0)
			len = 0;
		name[len] = '\0';
		sqk_fsck_err(f, old, T_INODE, C_DIR_LOOP,
			     "entry '%s' names directory inode %u, which inode %u lists too "
			     "(directories have one parent)",
			     name, ent->number, drec_number);
		child.tree_parent = drec;
		sqk_fsck_dir_set(f, r->dir, &child);
		r->up = drec;
		r->entry = at;
		return;
	}
	sqk_fsck_err(f, drec, T_INODE, C_DIR_LOOP,
		     "entry '%s' names directory inode %u, which inode %u lists too (directories "
		     "have one parent)",
		     ent->name, ent->number, old_number);
}

/* One entry against the inode it names. */
static void entry(struct listing *l, const struct sqk_dir_entry *ent, uint64_t at)
{
	struct sqk_fsck *f = l->f;
	uint32_t drec = l->d.rec, idx = sqk_fsck_rec_find(f, ent->number), found;
	struct fsck_rec r;
	char a[64], b[64];

	if (idx == FSCK_NONE && f->scan_cut &&
	    sqk_fsck_inode_at(f, ent->ref, ent->number, &found) == 0)
		idx = found; /* beyond where the inode table could be read in order */
	if (idx == FSCK_NONE) {
		sqk_fsck_err(f, drec, T_INODE, C_DIR_ENTRY,
			     "entry '%s' names inode %u at %s, but %s", ent->name, ent->number,
			     sqk_fsck_ref_str(ent->ref, a, sizeof(a)),
			     f->scan_cut && ent->ref >= f->scan_cut_ref
				     ? "the inode there cannot be read"
				     : "the inode table holds no such inode there");
		return;
	}
	r = sqk_fsck_rec(f, idx);
	if (r.ref != ent->ref) {
		sqk_fsck_err(f, drec, T_INODE, C_DIR_ENTRY,
			     "entry '%s' names inode %u at %s, but inode %u is at %s", ent->name,
			     ent->number, sqk_fsck_ref_str(ent->ref, a, sizeof(a)), ent->number,
			     sqk_fsck_ref_str(r.ref, b, sizeof(b)));
		return;
	}
	if (sqk_basic_type(r.type) != ent->type) {
		sqk_fsck_err(f, drec, T_INODE, C_DIR_TYPE,
			     "entry '%s' is listed as a %s, but inode %u is a %s", ent->name,
			     sqk_fmt_type_name(ent->type), ent->number,
			     sqk_fmt_type_name(sqk_basic_type(r.type)));
		return;
	}
	l->d.entries++;
	r.links++;
	if (r.dir != FSCK_NONE) {
		subdir(l, ent, at, idx, &r);
	} else if (r.up == FSCK_NONE) {
		/* Hard links: the first entry gives the path, the others are extra edges. */
		r.up = drec;
		r.entry = at;
	} else {
		sqk_fsck_link_add(f, drec, idx);
	}
	sqk_fsck_rec_set(f, idx, &r);
}

static int keep_hdr(struct listing *l, uint32_t loff, uint64_t at, const struct sqk_dir_entry *ent)
{
	struct hdr h;
	int err;

	if (!l->hdrs && (err = sqk_store_create(l->f->budget, 0, 0, &l->hdrs)) != 0)
		return err;
	memset(&h, 0, sizeof(h));
	h.loff = loff;
	h.at = at;
	h.name_len = ent->name_len;
	memcpy(h.name, ent->name, ent->name_len);
	err = sqk_store_put(l->hdrs, l->nhdrs, &h, sizeof(h));
	if (!err)
		l->nhdrs++;
	return err;
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
	uint32_t rec = l->d.rec;
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
	uint32_t listing = sqk_fmt_dir_listing(l->d.size);
	uint64_t left = listing;
	uint32_t rec = l->d.rec;
	struct sqk_dir_entry ent, prev;
	int have_prev = 0, err;
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
			if (k == 0 && l->keep_hdrs && (err = keep_hdr(l, loff, at, &ent)) != 0) {
				sqk_fsck_fail(f, err);
				return -1;
			}
			entry(l, &ent, eat);
			prev = ent;
			have_prev = 1;
		}
	}
	return fsck_stopped(f) ? -1 : 0;
}

/* Index entry i, read again where the inode scan read it: 0, or -1 when it cannot be. */
static int read_index(struct listing *l, struct fsck_cur *c, struct sqk_fmt_dir_index *x,
		      char *name)
{
	uint8_t raw[SQK_FMT_DIR_INDEX_SIZE];
	int err = sqk_meta_read(&c->m, raw, sizeof(raw));

	if (!err) {
		sqk_fmt_dir_index_decode(raw, x);
		err = sqk_fmt_dir_index_check_size(x, NULL);
	}
	if (!err)
		err = sqk_meta_read(&c->m, name, x->name_size);
	if (err)
		sqk_fsck_fatal(l->f, err);
	return err ? -1 : 0;
}

/*
 * The index of an extended directory: each entry names the listing offset
 * of a header, the directory table block where that header starts, and the
 * header's first name. The kernel seeks to (block, (offset + listing start)
 * % 8192) and compares names, so each must be exact. The index is read
 * again from the inode table, and the headers from their store, both in
 * order, one entry at a time.
 */
static void check_index(struct listing *l, int complete)
{
	struct sqk_fsck *f = l->f;
	const struct fsck_dir *d = &l->d;
	uint32_t listing = sqk_fmt_dir_listing(d->size), i, h = 0;
	struct sqk_fmt_dir_index x, prev;
	char name[SQK_NAME_MAX_BUF];
	struct hdr hd;
	struct fsck_fmt ff;
	struct fsck_cur c;
	int have = 0;

	if (!d->nindex)
		return;
	sqk_fsck_fmt_init(&ff, f, d->rec, T_INODE, C_DIR_INDEX, NULL);
	if (sqk_fsck_cur_open(&c, f, f->sb.inode_table, d->index_at) != 0) {
		sqk_fsck_cur_close(&c);
		return;
	}
	for (i = 0; i < d->nindex && !fsck_stopped(f); i++, prev = x) {
		int name_len;
		uint32_t want_off;

		if (read_index(l, &c, &x, name))
			break;
		name_len = (int)x.name_size;
		sqk_fsck_fmt_prefix(&ff, "index entry %u ('%.*s'): ", i, name_len, name);
		/* Offsets in order and inside the listing, or the rest cannot be matched. */
		if (sqk_fmt_dir_index_check(&x, i ? &prev : NULL, listing, &ff.rep))
			break;
		/* hd is header h once have is set; both only move on. */
		while (h < l->nhdrs && !fsck_stopped(f)) {
			if (!have) {
				sqk_fsck_fail(f, sqk_store_get(l->hdrs, h, &hd, sizeof(hd)));
				have = 1;
			}
			if (hd.loff >= x.offset)
				break;
			h++;
			have = 0;
		}
		if (h == l->nhdrs || hd.loff != x.offset) {
			if (h == l->nhdrs && !complete)
				break; /* past what could be read */
			sqk_fsck_err(
				f, d->rec, T_INODE, C_DIR_INDEX,
				"index entry %u ('%.*s') points at listing offset %u, where no "
				"header starts",
				i, name_len, name, x.offset);
			continue;
		}
		want_off = sqk_fmt_dir_index_block_offset(d->offset, &x);
		if (SQK_REF_BLOCK(hd.at) != x.start || SQK_REF_OFFSET(hd.at) != want_off)
			sqk_fsck_err(
				f, d->rec, T_INODE, C_DIR_INDEX,
				"index entry %u ('%.*s') leads to block %u, offset %u, but its "
				"header is at block %llu, offset %u",
				i, name_len, name, x.start, want_off,
				(unsigned long long)SQK_REF_BLOCK(hd.at), SQK_REF_OFFSET(hd.at));
		if (sqk_name_cmp(hd.name, hd.name_len, name, x.name_size) != 0)
			sqk_fsck_err(
				f, d->rec, T_INODE, C_DIR_INDEX,
				"index entry %u is '%.*s', but its header's first name is '%.*s'",
				i, name_len, name, (int)hd.name_len, hd.name);
	}
	sqk_fsck_cur_close(&c);
}

static void do_listing(struct sqk_fsck *f, uint32_t di, struct fsck_rd *rd)
{
	struct listing l = {f, di, sqk_fsck_dir(f, di), rd, NULL, 0, 0};
	struct fsck_dir now;
	int complete;

	l.keep_hdrs = l.d.nindex > 0;
	complete = read_listing(&l) == 0;
	if (!fsck_stopped(f)) {
		if (complete) {
			l.d.listed = 1;
			f->counts.directories++;
		} else {
			f->listing_cut = 1;
		}
		check_index(&l, complete);
	}
	/* What the listing counted; the rest of the record may have changed meanwhile. */
	now = sqk_fsck_dir(f, di);
	now.entries = l.d.entries;
	now.subdirs = l.d.subdirs;
	now.listed = l.d.listed;
	sqk_fsck_dir_set(f, di, &now);
	sqk_store_destroy(l.hdrs);
}

/*
 * Where a listing starts, as a key of the external sort: its reference,
 * then the directory's number, both big-endian, so that the keys' bytes
 * sort listings in table order (by block, then offset), and as they were
 * found among equals.
 */
#define POS_KEY 12

static void pos_key(uint8_t *k, uint64_t at, uint32_t dir)
{
	int i;

	for (i = 0; i < 8; i++)
		k[i] = (uint8_t)(at >> (56 - 8 * i));
	for (i = 0; i < 4; i++)
		k[8 + i] = (uint8_t)(dir >> (24 - 8 * i));
}

static uint32_t pos_dir(const uint8_t *k)
{
	return (uint32_t)k[8] << 24 | (uint32_t)k[9] << 16 | (uint32_t)k[10] << 8 | k[11];
}

static void empty_listing(struct sqk_fsck *f, uint32_t di, const struct fsck_dir *d)
{
	struct listing l = {f, di, *d, NULL, NULL, 0, 0};

	l.d.listed = 1; /* an empty directory has no listing */
	f->counts.directories++;
	check_index(&l, 1); /* no entry of an index fits in it */
	sqk_fsck_dir_set(f, di, &l.d);
}

static void one_dir(struct sqk_fsck *f, struct fsck_ms *ms, uint32_t di, uint64_t *prev_end)
{
	struct fsck_dir d = sqk_fsck_dir(f, di);
	uint64_t table = f->dir_end - f->sb.dir_table, start;
	struct fsck_cur c;
	int err;

	if (fsck_stopped(f))
		return;
	if (d.size == 0) {
		/* The inode rules the listing out (reported with it): what it names is unknown. */
		f->listing_cut = 1;
		return;
	}
	if (sqk_fmt_dir_listing(d.size) == 0) {
		empty_listing(f, di, &d);
		return;
	}
	start = SQK_MKREF(d.block, d.offset);
	if (d.block >= table) {
		sqk_fsck_err(
			f, d.rec, T_INODE, C_DIR_HEADER,
			"the listing starts at block %u, outside the directory table (%llu bytes)",
			d.block, (unsigned long long)table);
		f->listing_cut = 1;
		return;
	}
	if (prev_end && start < *prev_end) {
		/* Listings never share bytes; reading them again could go on for ever. */
		sqk_fsck_err(f, d.rec, T_INODE, C_DIR_HEADER,
			     "the listing at block %u, offset %u overlaps the listing before it",
			     d.block, d.offset);
		f->listing_cut = 1;
		return;
	}
	err = sqk_fsck_ms_seek(ms, d.block, d.offset);
	if (err == 0) {
		do_listing(f, di, &ms->rd);
		if (prev_end)
			*prev_end = ms->rd.tell(&ms->rd);
		return;
	}
	if (sqk_fsck_fatal(f, err))
		return;
	if (err == 1 && f->cursor_left >= d.size) {
		f->cursor_left -= d.size;
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
		f, d.rec, T_INODE, C_DIR_HEADER,
		"the listing at block %u, offset %u is not inside a readable metadata block of "
		"the directory table",
		d.block, d.offset);
	f->listing_cut = 1;
}

/*
 * Where each directory's listing starts, sorted (util/extsort.h: in runs
 * past a quarter of the budget).
 */
static int listing_order(struct sqk_fsck *f, uint32_t n, struct sqk_sorter *order)
{
	uint32_t i;
	int err = 0;

	sqk_sorter_init(order, f->budget, f->budget->budget / 4);
	for (i = 0; !err && i < n && !fsck_stopped(f); i++) {
		struct fsck_dir d = sqk_fsck_dir(f, i);
		uint8_t key[POS_KEY];

		pos_key(key, SQK_MKREF(d.block, d.offset), i);
		err = sqk_sorter_add(order, key, sizeof(key), "", 0);
	}
	return err ? err : sqk_sorter_done(order);
}

void sqk_fsck_directories(struct sqk_fsck *f)
{
	uint32_t n = f->ndirs, done;
	struct sqk_sorter order;
	uint64_t prev_end = 0;
	struct sqk_rec rec;
	struct fsck_ms ms;
	int err;

	f->cursor_left = CURSOR_BUDGET;
	err = listing_order(f, n, &order);
	if (err) {
		sqk_fsck_fail(f, err);
		sqk_sorter_release(&order);
		return;
	}
	sqk_fsck_ms_init(&ms, f, T_DIR, f->sb.dir_table, f->dir_end);
	while (!fsck_stopped(f) && (err = sqk_sorter_next(&order, &rec)) == 0)
		one_dir(f, &ms, pos_dir(rec.key), &prev_end);
	if (err < 0)
		sqk_fsck_fail(f, err);
	sqk_sorter_release(&order);
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
