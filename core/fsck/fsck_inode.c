// SPDX-License-Identifier: BSD-2-Clause
/*
 * The inode table, read once from its first byte to its last: every inode
 * is decoded and checked where it stands, by the codec's rules
 * (fmt_inode.h), and recorded by number for the checks of the tree.
 * Reading on after an inode needs its size, which most damage leaves known
 * (a bad field is reported and the scan goes on); an unknown type or an
 * unreadable name ends the scan, and inodes the directories name beyond
 * that point are then decoded one by one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck_int.h"
#include "util/error.h"

#define CUT 1 /* the inode's size is unknown: nothing after it can be read in order */

const char *sqk_fsck_ref_str(uint64_t ref, char *buf, size_t len)
{
	snprintf(buf, len, "block %llu, offset %u", (unsigned long long)SQK_REF_BLOCK(ref),
		 SQK_REF_OFFSET(ref));
	return buf;
}

/* The check each inode field belongs to; the rest are "inode". */
static const struct fsck_field_check inode_checks[] = {
	{"number", C_NUMBER, NULL, 0},
	{"uid_idx", C_ID, NULL, 0},
	{"gid_idx", C_ID, NULL, 0},
	{"frag_index", C_FRAGMENT, NULL, 0},
	{"frag_offset", C_FRAGMENT, NULL, 0},
	{"dir_size", C_DIR_SIZE, NULL, 0},
	{"parent", C_DIR_PARENT, NULL, 0},
	{"nlink", C_NLINK, NULL, 0},
	{NULL, C_INODE, NULL, 0},
};

struct decode {
	struct sqk_fsck *f;
	struct fsck_rd *rd;
	uint64_t ref;
	uint32_t rec; /* its record, or FSCK_NONE (number out of range or taken) */
	struct sqk_fmt_inode ino;
	struct sqk_fmt_limits lim;
	struct fsck_fmt ff;
	uint64_t *budget; /* bytes decoding out of order may still read */
	int frag_bad;	  /* the fragment fields are out of range: not looked up */
	int listing_bad;  /* the listing's size or place is impossible: not read */
};

/* A read inside an inode failed: say so unless the stream already did. */
static int rd_fail(struct decode *d, int err, const char *what)
{
	char r[64];

	if (sqk_fsck_fatal(d->f, err))
		return CUT;
	if (err == SQK_ERR_TRUNCATED || err == SQK_ERR_CORRUPT)
		sqk_fsck_err(d->f, d->rec, T_INODE, C_INODE,
			     "the inode at %s: %s runs past the end of the inode table or into an "
			     "unreadable block",
			     sqk_fsck_ref_str(d->ref, r, sizeof(r)), what);
	return CUT;
}

static int get(struct decode *d, void *buf, size_t len, const char *what)
{
	int err;

	if (len > *d->budget) {
		sqk_fsck_err(d->f, d->rec, T_INODE, C_INODE, "inode %u: %s is too large to check",
			     d->ino.number, what);
		return CUT;
	}
	*d->budget -= len;
	err = d->rd->read(d->rd, buf, len);
	return err ? rd_fail(d, err, what) : 0;
}

static int get_blocks(void *ctx, void *buf, size_t len)
{
	return get(ctx, buf, len, "the block list");
}

/* The block list, read in chunks so the allocation follows what the table really holds. */
static int read_blocks(struct decode *d, uint32_t count, uint32_t **out)
{
	int err = sqk_fmt_blocks_read(count, get_blocks, d, out);

	if (err == SQK_ERR_NOMEM) {
		sqk_fsck_fatal(d->f, SQK_ERR_NOMEM);
		return CUT;
	}
	return err;
}

static int decode_file(struct decode *d)
{
	const struct sqk_fmt_inode *ino = &d->ino;
	uint64_t count = sqk_fmt_file_blocks(ino->file_size, ino->frag_index, d->lim.block_size);
	struct fsck_file file;
	uint32_t *words;
	int err;

	if (count > SQK_FMT_BLOCKS_MAX)
		return CUT; /* reported with the body */
	err = read_blocks(d, (uint32_t)count, &words);
	if (err)
		return err;
	memset(&file, 0, sizeof(file));
	file.rec = d->rec;
	file.blocks_start = ino->blocks_start;
	file.size = ino->file_size;
	file.sparse = ino->sparse;
	/* A fragment the inode's own fields rule out was reported: it is not looked up. */
	file.frag_index = d->frag_bad ? SQK_INVALID_FRAG : ino->frag_index;
	file.frag_offset = ino->frag_offset;
	file.nblocks = (uint32_t)count;
	file.blocks = words;
	file.extended = ino->type == SQK_LFILE;
	sqk_fsck_file_data(d->f, &file);
	free(words);
	return 0;
}

/*
 * The index of an extended directory: each entry checked for its size and
 * read past here; the listing pass reads it again from index_at to check it
 * against the headers (fsck_dir.c), so nothing of it is kept.
 */
static int decode_index(struct decode *d, struct fsck_dir *dir)
{
	struct sqk_fsck *f = d->f;
	uint32_t i, count = d->ino.index_count;
	struct fsck_fmt ff;

	dir->index_at = d->rd->tell(d->rd);
	if (count == 0)
		return 0;
	sqk_fsck_fmt_init(&ff, f, d->rec, T_INODE, C_DIR_INDEX, NULL);
	for (i = 0; i < count; i++) {
		struct sqk_fmt_dir_index x;
		uint8_t raw[SQK_FMT_DIR_INDEX_SIZE];
		int err;

		err = get(d, raw, sizeof(raw), "the directory index");
		if (err)
			return err;
		sqk_fmt_dir_index_decode(raw, &x);
		sqk_fsck_fmt_prefix(&ff, "index entry %u: ", i);
		if (sqk_fmt_dir_index_check_size(&x, &ff.rep))
			return CUT;
		dir->nindex = i + 1;
		err = get(d, NULL, x.name_size, "the directory index");
		if (err)
			return err;
	}
	return 0;
}

/* Keep the directory for the listing pass; a listing the inode rules out is not read. */
static int decode_dir(struct decode *d)
{
	struct sqk_fsck *f = d->f;
	struct fsck_dir dir;
	struct fsck_rec r;
	int err;

	memset(&dir, 0, sizeof(dir));
	dir.tree_parent = FSCK_NONE;
	dir.block = d->ino.dir_block;
	dir.offset = d->ino.dir_offset;
	dir.size = d->ino.dir_size;
	dir.parent = d->ino.parent;
	err = decode_index(d, &dir);
	if (d->rec == FSCK_NONE || fsck_stopped(f))
		return err;
	dir.rec = d->rec;
	/* A listing that was not fully decoded is not checked. */
	if (err || d->listing_bad)
		dir.size = 0;
	r = sqk_fsck_rec(f, d->rec);
	if (sqk_fsck_dir_add(f, &dir, &r.dir) != 0)
		return CUT;
	sqk_fsck_rec_set(f, d->rec, &r);
	return err;
}

static int decode_symlink(struct decode *d)
{
	uint32_t len = d->ino.target_len;
	uint8_t tail[SQK_FMT_INODE_TAIL_MAX];
	char target[SQK_FMT_SYMLINK_MAX];
	size_t n;
	int err;

	if (len > SQK_FMT_SYMLINK_MAX) {
		/* Too long for any system to use (reported), but its size is known. */
		err = get(d, NULL, len, "the symlink target");
	} else {
		err = get(d, target, len, "the symlink target");
		if (!err)
			sqk_fmt_symlink_check(target, len, &d->ff.rep);
	}
	n = sqk_fmt_inode_tail_size(d->ino.type);
	if (err || !n)
		return err;
	err = get(d, tail, n, "the symlink inode");
	if (!err)
		sqk_fmt_inode_decode_tail(tail, &d->ino);
	return err;
}

static const char *body_name(unsigned type)
{
	switch (sqk_basic_type(type)) {
	case SQK_FILE:
		return "the file inode";
	case SQK_DIR:
		return "the directory inode";
	case SQK_SYMLINK:
		return "the symlink inode";
	}
	return "the inode";
}

/* Record the inode unless its number is taken. */
static int add_record(struct decode *d)
{
	struct sqk_fsck *f = d->f;
	struct fsck_rec r;
	uint32_t other;
	char where[64], where2[64];
	int err;

	other = sqk_fsck_rec_find(f, d->ino.number);
	if (other != FSCK_NONE) {
		sqk_fsck_err(f, FSCK_NONE, T_INODE, C_NUMBER,
			     "the inodes at %s and at %s have the same number %u",
			     sqk_fsck_ref_str(sqk_fsck_rec(f, other).ref, where2, sizeof(where2)),
			     sqk_fsck_ref_str(d->ref, where, sizeof(where)), d->ino.number);
		return 0;
	}
	memset(&r, 0, sizeof(r));
	r.ref = d->ref;
	r.entry = FSCK_NO_REF;
	r.number = d->ino.number;
	r.nlink = d->ino.nlink;
	r.up = FSCK_NONE;
	r.dir = FSCK_NONE;
	r.type = (uint8_t)d->ino.type;
	err = sqk_fsck_rec_add(f, &r, &d->rec);
	if (err) {
		sqk_fsck_fatal(f, err);
		return CUT;
	}
	if (d->ref == f->sb.root_inode)
		f->root = d->rec;
	return 0;
}

/* Body rules: note which parts of the inode its own fields rule out, then record. */
static int body_issue(void *ctx, const struct sqk_fmt_issue *is)
{
	struct decode *d = ctx;

	if (strncmp(is->field, "frag_", 5) == 0)
		d->frag_bad = 1;
	if (strcmp(is->field, "dir_size") == 0 || strcmp(is->field, "dir_offset") == 0)
		d->listing_bad = 1;
	return d->ff.rep.fn(d->ff.rep.ctx, is);
}

/*
 * Decode the inode the reader stands on. The record is made before the body
 * is decoded so that problems in the body name the inode's path. Returns
 * 0, or CUT when nothing after it can be read.
 */
static int decode(struct sqk_fsck *f, struct fsck_rd *rd, uint64_t *budget, uint32_t want,
		  uint32_t *index)
{
	struct decode d;
	struct sqk_fmt_report body_rep = {body_issue, &d, 0};
	uint8_t raw[SQK_FMT_INODE_FIXED_MAX];
	char where[64];
	size_t fixed;
	int err;

	*index = FSCK_NONE;
	memset(&d, 0, sizeof(d));
	d.f = f;
	d.rd = rd;
	d.ref = rd->tell(rd);
	d.rec = FSCK_NONE;
	d.budget = budget;
	d.lim = (struct sqk_fmt_limits){f->sb.block_size, f->sb.inode_count, f->sb.fragment_count,
					f->sb.id_count};
	sqk_fsck_fmt_init(&d.ff, f, FSCK_NONE, T_INODE, C_INODE, inode_checks);
	err = get(&d, raw, SQK_FMT_INODE_HEADER_SIZE, "the inode header");
	if (err)
		return err;
	sqk_fmt_inode_decode_header(raw, &d.ino);
	fixed = sqk_fmt_inode_fixed_size(d.ino.type);
	/* Out of order, for a directory entry: the entry reports a mismatch. */
	if (want && fixed && d.ino.number != want)
		return 0;
	if (sqk_fmt_inode_check_header(&d.ino, &d.lim, NULL)) {
		/* No record: the messages say where the inode is. */
		sqk_fsck_fmt_prefix(
			&d.ff, "the inode at %s: ", sqk_fsck_ref_str(d.ref, where, sizeof(where)));
		sqk_fmt_inode_check_header(&d.ino, &d.lim, &d.ff.rep);
		if (!fixed)
			return CUT;
		f->counts.inodes++;
	} else {
		f->counts.inodes++;
		if (add_record(&d))
			return CUT;
		if (d.rec == FSCK_NONE)
			sqk_fsck_fmt_prefix(&d.ff, "the inode at %s: ",
					    sqk_fsck_ref_str(d.ref, where, sizeof(where)));
	}
	/* From here on the problems are the record's, named by its path. */
	d.ff.rec = d.rec;
	err = get(&d, raw + SQK_FMT_INODE_HEADER_SIZE, fixed - SQK_FMT_INODE_HEADER_SIZE,
		  body_name(d.ino.type));
	if (err)
		return err;
	sqk_fmt_inode_decode_body(raw + SQK_FMT_INODE_HEADER_SIZE, &d.ino);
	sqk_fmt_inode_check_body(&d.ino, &d.lim, &body_rep);
	if (d.rec != FSCK_NONE) {
		struct fsck_rec r = sqk_fsck_rec(f, d.rec);

		r.nlink = d.ino.nlink;
		sqk_fsck_rec_set(f, d.rec, &r);
		sqk_fmt_inode_check_links(&d.ino, &d.lim, d.ref == f->sb.root_inode, &d.ff.rep);
	}
	switch (sqk_basic_type(d.ino.type)) {
	case SQK_FILE:
		err = decode_file(&d);
		break;
	case SQK_DIR:
		err = decode_dir(&d);
		break;
	case SQK_SYMLINK:
		err = decode_symlink(&d);
		break;
	}
	/* Known once the whole inode is read: an extended symlink keeps it last. */
	if (!err && d.ino.xattr != SQK_INVALID_XATTR)
		sqk_fsck_xattr_index(f, d.rec, d.ino.xattr);
	*index = d.rec;
	return err;
}

void sqk_fsck_inodes(struct sqk_fsck *f)
{
	struct fsck_ms *ms = malloc(sizeof(*ms));
	uint64_t decoded = 0, unlimited = UINT64_MAX;
	uint32_t idx;

	if (!ms) {
		sqk_fsck_fatal(f, SQK_ERR_NOMEM);
		return;
	}
	sqk_fsck_ms_init(ms, f, T_INODE, f->sb.inode_table, f->sb.dir_table);
	f->inode_ms = ms;
	f->scan_last_ref = UINT64_MAX;
	while (!fsck_stopped(f) && !sqk_fsck_ms_at_end(ms)) {
		if (decoded++)
			f->scan_last_ref = f->scan_cut_ref;
		unlimited = UINT64_MAX;
		f->scan_cut_ref = ms->rd.tell(&ms->rd);
		if (decode(f, &ms->rd, &unlimited, 0, &idx) != 0) {
			f->scan_cut = 1;
			break;
		}
	}
	/* The rest of the table, block by block, when an inode could not be read past. */
	sqk_fsck_ms_finish(ms);
	if (fsck_stopped(f) || f->scan_cut)
		return;
	if (decoded != f->sb.inode_count || f->nrecs != decoded)
		sqk_fsck_err(
			f, FSCK_NONE, T_INODE, C_NUMBER,
			"inode_count is %u, but the inode table holds %llu inodes with %u distinct "
			"valid numbers",
			f->sb.inode_count, (unsigned long long)decoded, f->nrecs);
}

int sqk_fsck_inode_at(struct sqk_fsck *f, uint64_t ref, uint32_t number, uint32_t *index)
{
	struct fsck_cur c;
	int err;

	*index = FSCK_NONE;
	/*
	 * Before the last inode the scan read whole, it saw every inode: nothing
	 * else starts there. That inode's own length may be wrong (a symlink's
	 * size one too large runs into the next inode, and the scan meets
	 * garbage after it), so what lies after its start is decoded here.
	 */
	if (f->fallback_left == 0 || (f->scan_last_ref != UINT64_MAX && ref <= f->scan_last_ref))
		return SQK_ERR_OVERFLOW;
	err = sqk_fsck_cur_open(&c, f, f->sb.inode_table, ref);
	if (!err)
		decode(f, &c.rd, &f->fallback_left, number, index);
	sqk_fsck_cur_close(&c);
	if (*index == FSCK_NONE)
		return SQK_ERR_CORRUPT;
	return 0;
}
