/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TEST_FORMAT_IMAGE_H
#define SQK_TEST_FORMAT_IMAGE_H

/*
 * For format_inode_dir.c: an image laid out by hand from the inode and
 * directory codec's bytes, in memory. One inode of each type 1..14: the
 * thirteen entries of the root, numbered 1..13 in name order, and the root
 * (an extended directory with one index entry) last. Two files have raw
 * data blocks (one with a hole); there are no fragments, xattrs or export
 * table; the ids are 0 and 1000. A test changes the inodes before they are
 * encoded (pre) or the listing after its entries are made (post).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_dir.h"
#include "format/fmt_inode.h"
#include "format/fmt_super.h"
#include "format/format.h"
#include "fsck/fsck.h"
#include "mem_image.h"
#include "read/image.h"
#include "util/file.h"
#include "util/le.h"

#define BS	 4096
#define NINO	 14 /* 13 entries in the root, then the root */
#define NENT	 (NINO - 1)
#define ROOT	 (NINO - 1)
#define DATA_AT	 SQK_SUPER_SIZE
#define NAME_CAP 320

struct spec {
	const char *name;
	struct sqk_fmt_inode ino;
	uint32_t blocks[4], nblocks;
	char target[5000];
	uint64_t ref;
	size_t at, len; /* its bytes in the inode table */
};

struct lent {
	unsigned spec;
	char name[NAME_CAP];
	uint32_t len;
	struct sqk_fmt_dir_entry e;
};

struct world {
	struct spec s[NINO];
	struct lent ent[NENT];
	struct sqk_fmt_dir_header hdr;
	struct sqk_fmt_dir_index x[2];
	char xname[2][NAME_CAP];
	unsigned nindex;
	uint8_t itab[8192], dtab[8192];
	size_t ilen, dlen;
	uint8_t img[65536];
	size_t len;
};

static const char *names[NINO] = {
	"t01-dir",     "t02-file",   "t03-symlink", "t04-blkdev",   "t05-chrdev",
	"t06-fifo",    "t07-socket", "t09-lfile",   "t10-lsymlink", "t11-lblkdev",
	"t12-lchrdev", "t13-lfifo",  "t14-lsocket", NULL,
};
static const unsigned types[NINO] = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 8};

static void defaults(struct world *w)
{
	unsigned i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < NINO; i++) {
		struct spec *s = &w->s[i];
		struct sqk_fmt_inode *n = &s->ino;

		s->name = names[i];
		n->type = (uint16_t)types[i];
		n->mode = (uint16_t)(0640 + i);
		n->uid_idx = (uint16_t)(i & 1);
		n->gid_idx = (uint16_t)(!(i & 1));
		n->mtime = i == 3 ? 4294967295u : 1600000000u + i;
		n->number = i + 1;
		n->nlink = 1;
		n->xattr = SQK_INVALID_XATTR;
		n->frag_index = SQK_INVALID_FRAG;
	}
	w->s[0].ino.dir_size = 3; /* empty */
	w->s[0].ino.parent = NINO;
	w->s[0].ino.nlink = 2;
	/* 5000 bytes: a full block and a 904-byte tail, both stored raw. */
	w->s[1].ino.blocks_start = DATA_AT;
	w->s[1].ino.file_size = 5000;
	w->s[1].blocks[0] = BS | SQK_BLOCK_UNCOMPRESSED;
	w->s[1].blocks[1] = 904 | SQK_BLOCK_UNCOMPRESSED;
	w->s[1].nblocks = 2;
	/* 10000 bytes: a hole, a block, a 1808-byte tail. */
	w->s[7].ino.blocks_start = DATA_AT + 5000;
	w->s[7].ino.file_size = 10000;
	w->s[7].ino.sparse = BS;
	w->s[7].blocks[0] = 0;
	w->s[7].blocks[1] = BS | SQK_BLOCK_UNCOMPRESSED;
	w->s[7].blocks[2] = 1808 | SQK_BLOCK_UNCOMPRESSED;
	w->s[7].nblocks = 3;
	strcpy(w->s[2].target, "t02-file");
	strcpy(w->s[8].target, "../somewhere/else");
	w->s[2].ino.target_len = 8;
	w->s[8].ino.target_len = 17;
	w->s[3].ino.rdev = sqk_encode_dev(8, 1);
	w->s[4].ino.rdev = sqk_encode_dev(1, 3);
	w->s[9].ino.rdev = sqk_encode_dev(259, 70000);
	w->s[10].ino.rdev = sqk_encode_dev(4095, 0xfffff);
	/* The root: extended, with an index entry for its one header. */
	w->s[ROOT].ino.nlink = 3;
	w->s[ROOT].ino.parent = sqk_fmt_root_parent(NINO);
	w->s[ROOT].ino.index_count = 1;
	w->nindex = 1;
	w->x[0] = (struct sqk_fmt_dir_index){0, 0, strlen(names[0])};
	strcpy(w->xname[0], names[0]);
	w->hdr = (struct sqk_fmt_dir_header){NENT, 0, 1};
	for (i = 0; i < NENT; i++) {
		w->ent[i].spec = i;
		w->ent[i].len = (uint32_t)strlen(names[i]);
		memcpy(w->ent[i].name, names[i], w->ent[i].len);
	}
}

static void put_inode(struct world *w, struct spec *s)
{
	uint8_t *p = w->itab + w->ilen;
	size_t n = sqk_fmt_inode_encode(&s->ino, p);
	unsigned basic = sqk_basic_type(s->ino.type);
	unsigned i;

	s->at = w->ilen;
	s->ref = SQK_MKREF(0, w->ilen);
	if (n > SQK_FMT_INODE_HEADER_SIZE && basic == SQK_FILE) {
		sqk_fmt_blocks_encode(s->blocks, s->nblocks, p + n);
		n += 4 * s->nblocks;
	} else if (n > SQK_FMT_INODE_HEADER_SIZE && basic == SQK_SYMLINK) {
		memcpy(p + n, s->target, s->ino.target_len);
		n += s->ino.target_len;
	}
	if (n > SQK_FMT_INODE_HEADER_SIZE && s->ino.type == SQK_LDIR) {
		for (i = 0; i < w->nindex; i++) {
			sqk_fmt_dir_index_encode(&w->x[i], p + n);
			memcpy(p + n + SQK_FMT_DIR_INDEX_SIZE, w->xname[i], w->x[i].name_size);
			n += SQK_FMT_DIR_INDEX_SIZE + w->x[i].name_size;
		}
	}
	n += sqk_fmt_inode_encode_tail(&s->ino, p + n);
	s->len = n;
	w->ilen += n;
}

/* Each entry names its spec's inode where it was put, by the number and type it had. */
static void fill_entries(struct world *w)
{
	unsigned i;

	for (i = 0; i < NENT; i++) {
		unsigned k = w->ent[i].spec;

		w->ent[i].e = (struct sqk_fmt_dir_entry){
			(uint16_t)SQK_REF_OFFSET(w->s[k].ref),
			(int16_t)(k + 1 - w->hdr.base),
			(uint16_t)sqk_basic_type(types[k]),
			w->ent[i].len,
		};
	}
}

static void put_block(struct world *w, const uint8_t *data, size_t len)
{
	put_le16(w->img + w->len, (uint16_t)(len | SQK_META_UNCOMPRESSED));
	memcpy(w->img + w->len + 2, data, len);
	w->len += 2 + len;
}

/* Lay the image out: data, inode table, directory table, id table. */
static void serialize(struct world *w)
{
	static const uint32_t ids[2] = {0, 1000};
	struct sqk_super sb = {0};
	uint64_t id_block;
	unsigned i;

	memset(w->img, 0, sizeof(w->img));
	w->dlen = 0;
	sqk_fmt_dir_header_encode(&w->hdr, w->dtab);
	w->dlen = SQK_FMT_DIR_HEADER_SIZE;
	for (i = 0; i < NENT; i++) {
		sqk_fmt_dir_entry_encode(&w->ent[i].e, w->dtab + w->dlen);
		memcpy(w->dtab + w->dlen + SQK_FMT_DIR_ENTRY_SIZE, w->ent[i].name, w->ent[i].len);
		w->dlen += SQK_FMT_DIR_ENTRY_SIZE + w->ent[i].len;
	}
	w->s[ROOT].ino.dir_size = (uint32_t)sqk_fmt_dir_size(w->dlen);
	w->ilen = w->s[ROOT].at;
	put_inode(w, &w->s[ROOT]);

	for (i = 0; i < 15000; i++)
		w->img[DATA_AT + i] = (uint8_t)(i * 7 + i / 251);
	w->len = DATA_AT + 15000;
	sb.inode_table = w->len;
	put_block(w, w->itab, w->ilen);
	sb.dir_table = w->len;
	put_block(w, w->dtab, w->dlen);
	id_block = w->len;
	put_le16(w->img + w->len, 8 | SQK_META_UNCOMPRESSED);
	put_le32(w->img + w->len + 2, ids[0]);
	put_le32(w->img + w->len + 6, ids[1]);
	w->len += 10;
	sb.id_table = w->len;
	put_le64(w->img + w->len, id_block);
	w->len += 8;

	sb.magic = SQK_MAGIC;
	sb.inode_count = NINO;
	sb.mkfs_time = 1600000000;
	sb.block_size = BS;
	sb.compressor = SQK_COMP_GZIP;
	sb.block_log = 12;
	sb.id_count = 2;
	sb.version_major = 4;
	sb.root_inode = w->s[ROOT].ref;
	sb.bytes_used = w->len;
	sb.fragment_table = SQK_INVALID_TABLE;
	sb.export_table = SQK_INVALID_TABLE;
	sb.xattr_table = SQK_INVALID_TABLE;
	sqk_fmt_super_encode(&sb, w->img);
	w->len = (w->len + SQK_DEVBLK_SIZE - 1) / SQK_DEVBLK_SIZE * SQK_DEVBLK_SIZE;
}

/* defaults, inode changes (pre), inodes, entries, listing changes (post), the image. */
static void build(struct world *w, void (*pre)(struct world *), void (*post)(struct world *))
{
	unsigned i;

	defaults(w);
	if (pre)
		pre(w);
	w->ilen = 0;
	for (i = 0; i < NINO; i++)
		put_inode(w, &w->s[i]);
	fill_entries(w);
	if (post)
		post(w);
	serialize(w);
}

/* --- what fsck says --- */

struct report {
	char text[8192];
	unsigned n;
};

static void collect(void *ctx, const char *path, const char *check, const char *detail)
{
	struct report *r = ctx;
	size_t n = strlen(r->text);

	snprintf(r->text + n, sizeof(r->text) - n, "%s: %s: %s\n", path, check, detail);
	r->n++;
}

static int fsck(const struct world *w, struct report *r, struct sqk_fsck_counts *c)
{
	struct sqk_fsck_opts o = {0};

	memset(r, 0, sizeof(*r));
	o.report = collect;
	o.ctx = r;
	return mem_image_fsck(w->img, w->len, &o, c);
}

static struct sqk_image *open_image(const struct world *w)
{
	struct sqk_image *img = NULL;

	if (sqk_image_open(sqk_file_mem(w->img, w->len), NULL, &img))
		return NULL;
	return img;
}

#endif
