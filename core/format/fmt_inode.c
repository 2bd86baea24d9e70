// SPDX-License-Identifier: BSD-2-Clause
/*
 * The inode codec. Every field of every type is one row of a layout table:
 * where it sits, how many bytes it takes, and which member of the decoded
 * struct holds it. Decode and encode both walk the table, so they cannot
 * disagree about a single byte.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_inode.h"
#include "format.h"
#include "util/array.h"
#include "util/error.h"
#include "util/le.h"

struct field {
	uint8_t member; /* offset of the member in struct sqk_fmt_inode */
	uint8_t msize;	/* its size: 2, 4 or 8 */
	uint8_t at;	/* offset in the inode (header) or in the body */
	uint8_t width;	/* bytes on disk: 2, 4 or 8 */
};

#define F(m, at, width)                                                                            \
	{                                                                                          \
		offsetof(struct sqk_fmt_inode, m), sizeof(((struct sqk_fmt_inode *)0)->m), at,     \
			width                                                                      \
	}
#define MAX_FIELDS 8

struct layout {
	uint8_t body; /* bytes after the header */
	uint8_t n;
	struct field f[MAX_FIELDS];
};

static const struct layout header = {
	SQK_FMT_INODE_HEADER_SIZE,
	6,
	{F(type, 0, 2), F(mode, 2, 2), F(uid_idx, 4, 2), F(gid_idx, 6, 2), F(mtime, 8, 4),
	 F(number, 12, 4)},
};

/* The bodies, by type. Offsets count from the end of the header. */
static const struct layout bodies[SQK_LSOCKET + 1] = {
	[SQK_DIR] = {16,
		     5,
		     {F(dir_block, 0, 4), F(nlink, 4, 4), F(dir_size, 8, 2), F(dir_offset, 10, 2),
		      F(parent, 12, 4)}},
	[SQK_FILE] = {16,
		      4,
		      {F(blocks_start, 0, 4), F(frag_index, 4, 4), F(frag_offset, 8, 4),
		       F(file_size, 12, 4)}},
	[SQK_SYMLINK] = {8, 2, {F(nlink, 0, 4), F(target_len, 4, 4)}},
	[SQK_BLKDEV] = {8, 2, {F(nlink, 0, 4), F(rdev, 4, 4)}},
	[SQK_CHRDEV] = {8, 2, {F(nlink, 0, 4), F(rdev, 4, 4)}},
	[SQK_FIFO] = {4, 1, {F(nlink, 0, 4)}},
	[SQK_SOCKET] = {4, 1, {F(nlink, 0, 4)}},
	[SQK_LDIR] = {24,
		      7,
		      {F(nlink, 0, 4), F(dir_size, 4, 4), F(dir_block, 8, 4), F(parent, 12, 4),
		       F(index_count, 16, 2), F(dir_offset, 18, 2), F(xattr, 20, 4)}},
	[SQK_LFILE] =
		{40,
		 7,
		 {F(blocks_start, 0, 8), F(file_size, 8, 8), F(sparse, 16, 8), F(nlink, 24, 4),
		  F(frag_index, 28, 4), F(frag_offset, 32, 4), F(xattr, 36, 4)}},
	[SQK_LSYMLINK] = {8, 2, {F(nlink, 0, 4), F(target_len, 4, 4)}},
	[SQK_LBLKDEV] = {12, 3, {F(nlink, 0, 4), F(rdev, 4, 4), F(xattr, 8, 4)}},
	[SQK_LCHRDEV] = {12, 3, {F(nlink, 0, 4), F(rdev, 4, 4), F(xattr, 8, 4)}},
	[SQK_LFIFO] = {8, 2, {F(nlink, 0, 4), F(xattr, 4, 4)}},
	[SQK_LSOCKET] = {8, 2, {F(nlink, 0, 4), F(xattr, 4, 4)}},
};

/* An extended symlink keeps its xattr index after the target. */
static const struct layout symlink_tail = {4, 1, {F(xattr, 0, 4)}};

static const struct layout *body_of(unsigned type)
{
	return sqk_fmt_type_valid(type) ? &bodies[type] : NULL;
}

static void decode(const struct layout *l, const uint8_t *raw, struct sqk_fmt_inode *ino)
{
	unsigned i;

	for (i = 0; i < l->n; i++) {
		const struct field *f = &l->f[i];
		const uint8_t *p = raw + f->at;
		uint64_t v = f->width == 2   ? get_le16(p)
			     : f->width == 4 ? get_le32(p)
					     : get_le64(p);
		uint8_t *m = (uint8_t *)ino + f->member;

		if (f->msize == 2) {
			uint16_t x = (uint16_t)v;

			memcpy(m, &x, 2);
		} else if (f->msize == 4) {
			uint32_t x = (uint32_t)v;

			memcpy(m, &x, 4);
		} else {
			memcpy(m, &v, 8);
		}
	}
}

static void encode(const struct layout *l, const struct sqk_fmt_inode *ino, uint8_t *raw)
{
	unsigned i;

	for (i = 0; i < l->n; i++) {
		const struct field *f = &l->f[i];
		const uint8_t *m = (const uint8_t *)ino + f->member;
		uint8_t *p = raw + f->at;
		uint64_t v;

		if (f->msize == 2) {
			uint16_t x;

			memcpy(&x, m, 2);
			v = x;
		} else if (f->msize == 4) {
			uint32_t x;

			memcpy(&x, m, 4);
			v = x;
		} else {
			memcpy(&v, m, 8);
		}
		if (f->width == 2)
			put_le16(p, (uint16_t)v);
		else if (f->width == 4)
			put_le32(p, (uint32_t)v);
		else
			put_le64(p, v);
	}
}

size_t sqk_fmt_inode_fixed_size(unsigned type)
{
	const struct layout *l = body_of(type);

	return l ? SQK_FMT_INODE_HEADER_SIZE + l->body : 0;
}

size_t sqk_fmt_inode_tail_size(unsigned type)
{
	return type == SQK_LSYMLINK ? symlink_tail.body : 0;
}

void sqk_fmt_inode_decode_header(const uint8_t *raw, struct sqk_fmt_inode *ino)
{
	memset(ino, 0, sizeof(*ino));
	ino->nlink = 1;
	ino->xattr = SQK_INVALID_XATTR;
	ino->frag_index = SQK_INVALID_FRAG;
	decode(&header, raw, ino);
}

void sqk_fmt_inode_decode_body(const uint8_t *raw, struct sqk_fmt_inode *ino)
{
	const struct layout *l = body_of(ino->type);

	if (l)
		decode(l, raw, ino);
}

void sqk_fmt_inode_decode(const uint8_t *raw, struct sqk_fmt_inode *ino)
{
	sqk_fmt_inode_decode_header(raw, ino);
	sqk_fmt_inode_decode_body(raw + SQK_FMT_INODE_HEADER_SIZE, ino);
}

void sqk_fmt_inode_decode_tail(const uint8_t *raw, struct sqk_fmt_inode *ino)
{
	if (ino->type == SQK_LSYMLINK)
		decode(&symlink_tail, raw, ino);
}

size_t sqk_fmt_inode_encode(const struct sqk_fmt_inode *ino, uint8_t *raw)
{
	const struct layout *l = body_of(ino->type);
	struct sqk_fmt_inode copy = *ino;

	/* The type gives the file type; only the permission bits are stored. */
	copy.mode &= 07777;
	encode(&header, &copy, raw);
	if (!l)
		return SQK_FMT_INODE_HEADER_SIZE;
	encode(l, &copy, raw + SQK_FMT_INODE_HEADER_SIZE);
	return SQK_FMT_INODE_HEADER_SIZE + l->body;
}

size_t sqk_fmt_inode_encode_tail(const struct sqk_fmt_inode *ino, uint8_t *raw)
{
	if (ino->type != SQK_LSYMLINK)
		return 0;
	encode(&symlink_tail, ino, raw);
	return symlink_tail.body;
}

void sqk_fmt_blocks_decode(const uint8_t *raw, uint32_t *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		words[i] = get_le32(raw + 4 * i);
}

void sqk_fmt_blocks_encode(const uint32_t *words, size_t n, uint8_t *raw)
{
	size_t i;

	for (i = 0; i < n; i++)
		put_le32(raw + 4 * i, words[i]);
}

int sqk_fmt_blocks_read(uint32_t count, int (*read)(void *ctx, void *buf, size_t len), void *ctx,
			uint32_t **out)
{
	uint32_t *words = NULL, have = 0;
	size_t cap = 0;
	uint8_t raw[4096];
	int err;

	*out = NULL;
	while (have < count) {
		uint32_t n = count - have;

		if (n > sizeof(raw) / 4)
			n = sizeof(raw) / 4;
		if (SQK_ARRAY_GROW(words, cap, (size_t)have + n)) {
			free(words);
			return SQK_ERR_NOMEM;
		}
		err = read(ctx, raw, (size_t)n * 4);
		if (err) {
			free(words);
			return err;
		}
		sqk_fmt_blocks_decode(raw, words + have, n);
		have += n;
	}
	*out = words;
	return 0;
}

uint64_t sqk_fmt_file_blocks(uint64_t file_size, uint32_t frag_index, uint32_t block_size)
{
	uint64_t n = file_size / block_size;

	if (frag_index == SQK_INVALID_FRAG && file_size % block_size)
		n++;
	return n;
}

unsigned sqk_fmt_inode_pick_type(const struct sqk_fmt_inode *ino)
{
	int xattr = ino->xattr != SQK_INVALID_XATTR;
	unsigned t = ino->type;

	switch (t) {
	case SQK_DIR:
		/* The basic form has a 16-bit size and no index. */
		if (xattr || ino->index_count || ino->dir_size > 0xffff)
			return SQK_LDIR;
		return SQK_DIR;
	case SQK_FILE:
		/* The basic form has 32-bit places and sizes, one link, no sparse count. */
		if (xattr || ino->nlink != 1 || ino->sparse || ino->blocks_start > UINT32_MAX ||
		    ino->file_size > UINT32_MAX)
			return SQK_LFILE;
		return SQK_FILE;
	default:
		return xattr ? t + 7 : t;
	}
}

int sqk_fmt_inode_check_header(const struct sqk_fmt_inode *ino, const struct sqk_fmt_limits *lim,
			       struct sqk_fmt_report *r)
{
	int bad = 0;

	if (!body_of(ino->type)) {
		sqk_fmt_fail(r, "type", ino->type, "is not an inode type");
		return SQK_ERR_CORRUPT;
	}
	if (ino->number == 0 || ino->number > lim->inode_count)
		SQK_FMT_FAIL("number", ino->number, "is outside 1..inode_count");
	return bad ? SQK_ERR_CORRUPT : 0;
}

int sqk_fmt_inode_check_body(const struct sqk_fmt_inode *ino, const struct sqk_fmt_limits *lim,
			     struct sqk_fmt_report *r)
{
	unsigned basic = sqk_basic_type(ino->type);
	int bad = 0;

	if (ino->uid_idx >= lim->id_count)
		SQK_FMT_FAIL("uid_idx", ino->uid_idx, "is beyond the id table");
	if (ino->gid_idx >= lim->id_count)
		SQK_FMT_FAIL("gid_idx", ino->gid_idx, "is beyond the id table");
	switch (basic) {
	case SQK_FILE:
		if (sqk_fmt_file_blocks(ino->file_size, ino->frag_index, lim->block_size) >
		    SQK_FMT_BLOCKS_MAX)
			SQK_FMT_FAIL("file_size", ino->file_size,
				     "needs more blocks than an inode can list");
		if (ino->frag_index == SQK_INVALID_FRAG)
			break;
		if (ino->frag_index >= lim->fragment_count)
			SQK_FMT_FAIL("frag_index", ino->frag_index, "is beyond the fragment table");
		if (ino->frag_offset >= lim->block_size)
			SQK_FMT_FAIL("frag_offset", ino->frag_offset, "is beyond a block");
		/* A whole number of blocks has no tail: the kernel refuses the inode. */
		if (ino->file_size % lim->block_size == 0)
			SQK_FMT_FAIL("frag_index", ino->frag_index,
				     "is set, but the file size leaves no tail");
		break;
	case SQK_DIR:
		if (ino->dir_size < 3)
			SQK_FMT_FAIL(
				"dir_size", ino->dir_size,
				"is less than 3 (the size counts 3 bytes more than the listing)");
		if (ino->dir_offset >= SQK_META_SIZE)
			SQK_FMT_FAIL("dir_offset", ino->dir_offset, "is beyond a metadata block");
		break;
	case SQK_SYMLINK:
		if (ino->target_len == 0)
			SQK_FMT_FAIL("target_len", 0, "leaves the target empty");
		else if (ino->target_len > SQK_FMT_SYMLINK_MAX)
			SQK_FMT_FAIL("target_len", ino->target_len, "is more than 4096 (PATH_MAX)");
		break;
	}
	return bad ? SQK_ERR_CORRUPT : 0;
}

int sqk_fmt_inode_check_links(const struct sqk_fmt_inode *ino, const struct sqk_fmt_limits *lim,
			      int is_root, struct sqk_fmt_report *r)
{
	int bad = 0;

	if (ino->nlink == 0)
		SQK_FMT_FAIL("nlink", 0, "leaves the inode unlinked");
	if (sqk_basic_type(ino->type) != SQK_DIR)
		return bad ? SQK_ERR_CORRUPT : 0;
	if (is_root) {
		/* mksquashfs and squashkit write inode_count + 1; squashfs-tools-ng writes 0. */
		if (ino->parent != 0 && ino->parent != sqk_fmt_root_parent(lim->inode_count))
			SQK_FMT_FAIL("parent", ino->parent,
				     "of the root is not inode_count + 1 (or 0)");
	} else if (ino->parent == 0 || ino->parent > lim->inode_count) {
		SQK_FMT_FAIL("parent", ino->parent, "is outside 1..inode_count");
	}
	return bad ? SQK_ERR_CORRUPT : 0;
}

int sqk_fmt_symlink_check(const char *target, uint32_t len, struct sqk_fmt_report *r)
{
	const char *nul = memchr(target, '\0', len);

	if (nul) {
		sqk_fmt_fail(r, "target", (uint64_t)(nul - target),
			     "holds a NUL byte at this offset");
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

int sqk_fmt_dev_check(uint32_t major, uint32_t minor, struct sqk_fmt_report *r)
{
	int bad = 0;

	if (major > SQK_FMT_DEV_MAJOR_MAX)
		SQK_FMT_FAIL("major", major, "is more than 4095 (12 bits)");
	if (minor > SQK_FMT_DEV_MINOR_MAX)
		SQK_FMT_FAIL("minor", minor, "is more than 1048575 (20 bits)");
	return bad ? SQK_ERR_CORRUPT : 0;
}
