// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inode table, read once from its first byte to its last: every inode
 * is decoded and checked where it stands, and recorded by number for the
 * checks of the tree. Reading on after an inode needs its size, which most
 * damage leaves known (a bad field is reported and the scan goes on); an
 * unknown type or an unreadable name ends the scan, and inodes the
 * directories name beyond that point are then decoded one by one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fsck_int.h"
#include "le.h"

#define CUT 1 /* the inode's size is unknown: nothing after it can be read in order */

const char *fsck_ref_str(uint64_t ref, char *buf, size_t len)
{
	snprintf(buf, len, "block %llu, offset %u", (unsigned long long)SQFS_REF_BLOCK(ref),
		 SQFS_REF_OFFSET(ref));
	return buf;
}

struct decode {
	struct sqk_fsck *f;
	struct fsck_rd *rd;
	uint64_t ref;
	uint32_t rec; /* its record, or FSCK_NONE (number out of range or taken) */
	uint32_t number;
	unsigned type;
	uint32_t xattr;
	uint64_t *budget; /* bytes decoding out of order may still read */
};

/* A read inside an inode failed: say so unless the stream already did. */
static int rd_fail(struct decode *d, int err, const char *what)
{
	char r[64];

	if (fsck_fatal(d->f, err))
		return CUT;
	if (err == SQK_ERR_TRUNCATED || err == SQK_ERR_CORRUPT)
		fsck_err(d->f, d->rec, T_INODE, C_INODE,
			 "the inode at %s: %s runs past the end of the inode table or into an "
			 "unreadable block",
			 fsck_ref_str(d->ref, r, sizeof(r)), what);
	return CUT;
}

static int get(struct decode *d, void *buf, size_t len, const char *what)
{
	int err;

	if (len > *d->budget) {
		fsck_err(d->f, d->rec, T_INODE, C_INODE, "inode %u: %s is too large to check",
			 d->number, what);
		return CUT;
	}
	*d->budget -= len;
	err = d->rd->read(d->rd, buf, len);
	return err ? rd_fail(d, err, what) : 0;
}

static void check_xattr(struct decode *d)
{
	if (d->xattr != SQFS_INVALID_XATTR)
		fsck_xattr_index(d->f, d->rec, d->xattr);
}

/* The block list, read in chunks so the allocation follows what the table really holds. */
static int read_blocks(struct decode *d, uint64_t count, uint32_t **out)
{
	uint32_t *words = NULL, cap = 0, have = 0;
	uint8_t raw[4096];
	int err;

	*out = NULL;
	if (count > UINT32_MAX) {
		fsck_err(d->f, d->rec, T_INODE, C_INODE,
			 "the file needs %llu blocks, more than an "
			 "inode can list",
			 (unsigned long long)count);
		return CUT;
	}
	while (have < count) {
		uint32_t n = (uint32_t)(count - have), i;

		if (n > sizeof(raw) / 4)
			n = sizeof(raw) / 4;
		if (have + n > cap) {
			uint32_t ncap = cap ? cap * 2 : 256;
			uint32_t *p;

			while (ncap < have + n)
				ncap *= 2;
			p = realloc(words, (size_t)ncap * 4);
			if (!p) {
				free(words);
				fsck_fatal(d->f, SQK_ERR_NOMEM);
				return CUT;
			}
			words = p;
			cap = ncap;
		}
		err = get(d, raw, (size_t)n * 4, "the block list");
		if (err) {
			free(words);
			return err;
		}
		for (i = 0; i < n; i++)
			words[have + i] = get_le32(raw + 4 * i);
		have += n;
	}
	*out = words;
	return 0;
}

static int decode_file(struct decode *d, uint32_t *nlink)
{
	struct sqk_fsck *f = d->f;
	struct fsck_file file;
	uint32_t *words;
	uint8_t raw[40];
	uint64_t count;
	int err;

	memset(&file, 0, sizeof(file));
	file.rec = d->rec;
	if (d->type == SQFS_FILE) {
		err = get(d, raw, 16, "the file inode");
		if (err)
			return err;
		file.blocks_start = get_le32(raw);
		file.frag_index = get_le32(raw + 4);
		file.frag_offset = get_le32(raw + 8);
		file.size = get_le32(raw + 12);
		*nlink = 1;
	} else {
		err = get(d, raw, 40, "the file inode");
		if (err)
			return err;
		file.blocks_start = get_le64(raw);
		file.size = get_le64(raw + 8);
		file.sparse = get_le64(raw + 16);
		*nlink = get_le32(raw + 24);
		file.frag_index = get_le32(raw + 28);
		file.frag_offset = get_le32(raw + 32);
		d->xattr = get_le32(raw + 36);
		file.extended = 1;
	}
	count = file.size / f->sb.block_size;
	if (file.frag_index == SQFS_INVALID_FRAG && file.size % f->sb.block_size)
		count++;
	err = read_blocks(d, count, &words);
	if (err)
		return err;
	file.nblocks = (uint32_t)count;
	file.blocks = words;
	check_xattr(d);
	fsck_file_data(f, &file);
	free(words);
	return 0;
}

static int decode_dir(struct decode *d, struct fsck_dir *dir, uint32_t *nlink)
{
	struct sqk_fsck *f = d->f;
	uint8_t raw[24];
	uint32_t i, count = 0;
	int err;

	memset(dir, 0, sizeof(*dir));
	dir->tree_parent = FSCK_NONE;
	if (d->type == SQFS_DIR) {
		err = get(d, raw, 16, "the directory inode");
		if (err)
			return err;
		dir->block = get_le32(raw);
		*nlink = get_le32(raw + 4);
		dir->size = get_le16(raw + 8);
		dir->offset = get_le16(raw + 10);
		dir->parent = get_le32(raw + 12);
	} else {
		err = get(d, raw, 24, "the directory inode");
		if (err)
			return err;
		*nlink = get_le32(raw);
		dir->size = get_le32(raw + 4);
		dir->block = get_le32(raw + 8);
		dir->parent = get_le32(raw + 12);
		count = get_le16(raw + 16);
		dir->offset = get_le16(raw + 18);
		d->xattr = get_le32(raw + 20);
	}
	if (dir->size < 3)
		fsck_err(f, d->rec, T_INODE, C_DIR_SIZE,
			 "listing size %u is less than 3 (the size counts 3 bytes more than the "
			 "listing)",
			 dir->size);
	if (dir->offset >= SQFS_META_SIZE)
		fsck_err(f, d->rec, T_INODE, C_INODE,
			 "the listing offset %u is beyond a metadata block", dir->offset);
	/* The root's parent is checked with the root. */
	if (d->ref != f->sb.root_inode && (dir->parent == 0 || dir->parent > f->sb.inode_count))
		fsck_err(f, d->rec, T_INODE, C_DIR_PARENT,
			 "the parent inode number %u is outside 1..%u", dir->parent,
			 f->sb.inode_count);
	if (count) {
		dir->index = calloc(count, sizeof(*dir->index));
		if (!dir->index) {
			fsck_fatal(f, SQK_ERR_NOMEM);
			return CUT;
		}
	}
	for (i = 0; i < count; i++) {
		struct fsck_index *x = &dir->index[i];

		err = get(d, raw, 12, "the directory index");
		if (err)
			return err;
		x->offset = get_le32(raw);
		x->start = get_le32(raw + 4);
		x->name_len = get_le32(raw + 8) + 1;
		if (x->name_len == 0 || x->name_len > SQFS_NAME_MAX) {
			fsck_err(f, d->rec, T_INODE, C_DIR_INDEX,
				 "index entry %u has a name of %llu bytes (at most %u)", i,
				 (unsigned long long)get_le32(raw + 8) + 1, SQFS_NAME_MAX);
			return CUT;
		}
		x->name = malloc(x->name_len);
		if (!x->name) {
			fsck_fatal(f, SQK_ERR_NOMEM);
			return CUT;
		}
		dir->nindex = i + 1;
		err = get(d, x->name, x->name_len, "the directory index");
		if (err)
			return err;
	}
	check_xattr(d);
	return 0;
}

static int decode_symlink(struct decode *d, uint32_t *nlink)
{
	char target[4097];
	uint8_t raw[8];
	uint32_t len;
	int err;

	err = get(d, raw, 8, "the symlink inode");
	if (err)
		return err;
	*nlink = get_le32(raw);
	len = get_le32(raw + 4);
	if (len == 0)
		fsck_err(d->f, d->rec, T_INODE, C_INODE, "the symlink target is empty");
	if (len >= sizeof(target)) {
		/* Longer than PATH_MAX: no system can use it, but the size is known. */
		fsck_err(d->f, d->rec, T_INODE, C_INODE,
			 "the symlink target has %u bytes, more than 4096", len);
		err = get(d, NULL, len, "the symlink target");
	} else {
		err = get(d, target, len, "the symlink target");
		if (!err && memchr(target, '\0', len))
			fsck_err(d->f, d->rec, T_INODE, C_INODE,
				 "the symlink target holds a NUL byte");
	}
	if (err)
		return err;
	if (d->type == SQFS_LSYMLINK) {
		err = get(d, raw, 4, "the symlink inode");
		if (err)
			return err;
		d->xattr = get_le32(raw);
		check_xattr(d);
	}
	return 0;
}

static int decode_special(struct decode *d, uint32_t *nlink)
{
	unsigned basic = sqfs_basic_type(d->type);
	int dev = basic == SQFS_BLKDEV || basic == SQFS_CHRDEV;
	size_t len = 4 + (dev ? 4 : 0) + (d->type >= 8 ? 4 : 0);
	uint8_t raw[12];
	int err;

	err = get(d, raw, len, "the inode");
	if (err)
		return err;
	*nlink = get_le32(raw);
	if (d->type >= 8) {
		d->xattr = get_le32(raw + len - 4);
		check_xattr(d);
	}
	return 0;
}

/*
 * Decode the inode the reader stands on. The record is made before the body
 * is decoded so that problems in the body name the inode's path. Returns
 * 0, or CUT when nothing after it can be read.
 */
static int decode(struct sqk_fsck *f, struct fsck_rd *rd, uint64_t *budget, uint32_t want,
		  uint32_t *index)
{
	struct decode d = {f, rd, rd->tell(rd), FSCK_NONE, 0, 0, SQFS_INVALID_XATTR, budget};
	struct fsck_dir dir;
	struct fsck_rec r, *other;
	uint32_t nlink = 0, ridx = FSCK_NONE;
	uint8_t raw[16];
	char where[64], where2[64];
	unsigned basic;
	int err;

	*index = FSCK_NONE;
	err = get(&d, raw, 16, "the inode header");
	if (err)
		return err;
	d.type = get_le16(raw);
	d.number = get_le32(raw + 12);
	fsck_ref_str(d.ref, where, sizeof(where));
	if (d.type < SQFS_DIR || d.type > SQFS_LSOCKET) {
		fsck_err(f, FSCK_NONE, T_INODE, C_INODE, "the inode at %s has the unknown type %u",
			 where, d.type);
		return CUT;
	}
	if (want && d.number != want) {
		/* Out of order, for a directory entry: the entry reports the mismatch. */
		return 0;
	}
	f->counts.inodes++;
	basic = sqfs_basic_type(d.type);
	if (d.number == 0 || d.number > f->sb.inode_count) {
		fsck_err(f, FSCK_NONE, T_INODE, C_NUMBER,
			 "the inode at %s has the number %u, outside 1..%u", where, d.number,
			 f->sb.inode_count);
	} else if ((other = fsck_rec_by_number(f, d.number)) != NULL) {
		fsck_err(f, FSCK_NONE, T_INODE, C_NUMBER,
			 "the inodes at %s and at %s have the same number %u",
			 fsck_ref_str(other->ref, where2, sizeof(where2)), where, d.number);
	} else {
		memset(&r, 0, sizeof(r));
		r.ref = d.ref;
		r.entry = FSCK_NO_REF;
		r.number = d.number;
		r.up = FSCK_NONE;
		r.dir = FSCK_NONE;
		r.type = (uint8_t)d.type;
		err = fsck_rec_add(f, &r, &ridx);
		if (err) {
			fsck_fatal(f, err);
			return CUT;
		}
		d.rec = ridx;
		if (d.ref == f->sb.root_inode)
			f->root = ridx;
	}
	if (get_le16(raw + 4) >= f->sb.id_count)
		fsck_err(f, d.rec, T_INODE, C_ID, "the uid index %u is beyond the %u ids",
			 get_le16(raw + 4), f->sb.id_count);
	if (get_le16(raw + 6) >= f->sb.id_count)
		fsck_err(f, d.rec, T_INODE, C_ID, "the gid index %u is beyond the %u ids",
			 get_le16(raw + 6), f->sb.id_count);

	switch (basic) {
	case SQFS_FILE:
		err = decode_file(&d, &nlink);
		break;
	case SQFS_DIR:
		err = decode_dir(&d, &dir, &nlink);
		if (d.rec != FSCK_NONE && !fsck_stopped(f)) {
			if (f->ndirs == f->dircap) {
				uint32_t cap = f->dircap ? f->dircap * 2 : 64;
				struct fsck_dir *p = realloc(f->dirs, (size_t)cap * sizeof(*p));

				if (!p) {
					fsck_fatal(f, SQK_ERR_NOMEM);
					err = CUT;
					break;
				}
				f->dirs = p;
				f->dircap = cap;
			}
			dir.rec = d.rec;
			/* A listing that was not fully decoded is not checked. */
			if (err)
				dir.size = 0;
			f->recs[d.rec].dir = f->ndirs;
			f->dirs[f->ndirs++] = dir;
		} else {
			uint32_t k;

			for (k = 0; k < dir.nindex; k++)
				free(dir.index[k].name);
			free(dir.index);
		}
		break;
	case SQFS_SYMLINK:
		err = decode_symlink(&d, &nlink);
		break;
	default:
		err = decode_special(&d, &nlink);
		break;
	}
	if (d.rec != FSCK_NONE) {
		f->recs[d.rec].nlink = nlink;
		if (nlink == 0 && !err)
			fsck_err(f, d.rec, T_INODE, C_NLINK, "the link count is 0");
	}
	*index = d.rec;
	return err;
}

void fsck_inodes(struct sqk_fsck *f)
{
	struct fsck_ms *ms = malloc(sizeof(*ms));
	uint64_t decoded = 0, unlimited = UINT64_MAX;
	uint32_t idx;

	if (!ms) {
		fsck_fatal(f, SQK_ERR_NOMEM);
		return;
	}
	fsck_ms_init(ms, f, T_INODE, f->sb.inode_table, f->sb.dir_table);
	f->inode_ms = ms;
	while (!fsck_stopped(f) && !fsck_ms_at_end(ms)) {
		decoded++;
		unlimited = UINT64_MAX;
		f->scan_cut_ref = ms->rd.tell(&ms->rd);
		if (decode(f, &ms->rd, &unlimited, 0, &idx) != 0) {
			f->scan_cut = 1;
			break;
		}
	}
	/* The rest of the table, block by block, when an inode could not be read past. */
	fsck_ms_finish(ms);
	if (fsck_stopped(f) || f->scan_cut)
		return;
	if (decoded != f->sb.inode_count || f->nrecs != decoded)
		fsck_err(
			f, FSCK_NONE, T_INODE, C_NUMBER,
			"inode_count is %u, but the inode table holds %llu inodes with %u distinct "
			"valid numbers",
			f->sb.inode_count, (unsigned long long)decoded, f->nrecs);
}

int fsck_inode_at(struct sqk_fsck *f, uint64_t ref, uint32_t number, uint32_t *index)
{
	struct fsck_cur c;
	int err;

	*index = FSCK_NONE;
	/* Before the cut the scan saw every inode: nothing else starts there. */
	if (f->fallback_left == 0 || ref <= f->scan_cut_ref)
		return SQK_ERR_OVERFLOW;
	err = fsck_cur_open(&c, f, f->sb.inode_table, ref);
	if (!err)
		decode(f, &c.rd, &f->fallback_left, number, index);
	fsck_cur_close(&c);
	if (*index == FSCK_NONE)
		return SQK_ERR_CORRUPT;
	return 0;
}
