/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_INODE_H
#define SQK_FMT_INODE_H

/*
 * Inodes on disk, all 14 types: the one place that knows where each field
 * sits, how wide it is and which values are sound.
 *
 * An inode is a fixed part (a 16-byte header every type shares, then a body
 * whose size the type gives) and, for some types, a variable part after it:
 *   file, extended file   a size word per block, sqk_fmt_file_blocks() of them
 *   symlink               the target, target_len bytes
 *   extended symlink      the target, then a 4-byte tail with the xattr index
 *   extended directory    index_count directory index entries (fmt_dir.h)
 * So a reader that sees the bytes as a stream (the reader's metadata cursor,
 * fsck's walk over the whole table) reads the header, learns the fixed size
 * from the type, reads the body, and from the decoded body learns what
 * follows.
 *
 * The rules come in three groups, each reporting through fmt_check.h:
 *   sqk_fmt_inode_check_header   what identifies an inode: type, number
 *   sqk_fmt_inode_check_body     what reading it relies on: owners, sizes,
 *                                places, the block count, the fragment
 *   sqk_fmt_inode_check_links    what only the tree can confirm: the link
 *                                count and a directory's parent. The strict
 *                                reader leaves these to fsck, as the kernel
 *                                and unsquashfs do.
 */
#include <stddef.h>
#include <stdint.h>

#include "fmt_check.h"
#include "fmt_type.h"

#define SQK_FMT_INODE_HEADER_SIZE 16
#define SQK_FMT_INODE_FIXED_MAX	  56 /* the largest fixed part: an extended file */
#define SQK_FMT_INODE_TAIL_MAX	  4
#define SQK_FMT_SYMLINK_MAX	  4096 /* PATH_MAX: what any writer stores */
#define SQK_FMT_BLOCKS_MAX	  UINT32_MAX

/* One decoded inode of any type; field names follow the format. */
struct sqk_fmt_inode {
	/* The header. */
	uint16_t type; /* 1..14 */
	uint16_t mode; /* permission bits as stored; the type gives the file type */
	uint16_t uid_idx, gid_idx;
	uint32_t mtime;
	uint32_t number;
	/* Every type; a basic file stores none and has 1. */
	uint32_t nlink;
	uint32_t xattr; /* SQK_INVALID_XATTR where the type stores none */
	/* Regular file. */
	uint64_t blocks_start;
	uint64_t file_size;
	uint64_t sparse;
	uint32_t frag_index; /* SQK_INVALID_FRAG: the tail is a block of its own */
	uint32_t frag_offset;
	/* Directory. */
	uint32_t dir_block;  /* the listing's metadata block, relative to the table */
	uint32_t dir_offset; /* the listing's offset in that block */
	uint32_t dir_size;   /* as stored: the listing's bytes + 3 */
	uint32_t parent;
	uint32_t index_count;
	/* Symlink. */
	uint32_t target_len;
	/* Block and character devices: the 20-bit-minor encoding (format.h). */
	uint32_t rdev;
};

/* What the rules compare against: the superblock's counts. */
struct sqk_fmt_limits {
	uint32_t block_size;
	uint32_t inode_count;
	uint32_t fragment_count;
	uint32_t id_count;
};

/* Size of a type's fixed part, header included; 0 for an unknown type. */
size_t sqk_fmt_inode_fixed_size(unsigned type);
/* Bytes after the variable part: 4 for an extended symlink (its xattr), else 0. */
size_t sqk_fmt_inode_tail_size(unsigned type);

/* The header: raw holds SQK_FMT_INODE_HEADER_SIZE bytes. Clears every other field. */
void sqk_fmt_inode_decode_header(const uint8_t *raw, struct sqk_fmt_inode *ino);
/* The body: raw holds sqk_fmt_inode_fixed_size(ino->type) - 16 bytes. */
void sqk_fmt_inode_decode_body(const uint8_t *raw, struct sqk_fmt_inode *ino);
/* Both: raw holds the whole fixed part. */
void sqk_fmt_inode_decode(const uint8_t *raw, struct sqk_fmt_inode *ino);
void sqk_fmt_inode_decode_tail(const uint8_t *raw, struct sqk_fmt_inode *ino);

/*
 * Encode the fixed part into raw (SQK_FMT_INODE_FIXED_MAX bytes fit any
 * type); returns its size. An unknown type gets the header alone.
 */
size_t sqk_fmt_inode_encode(const struct sqk_fmt_inode *ino, uint8_t *raw);
/* The tail after the variable part; returns its size (0 when the type has none). */
size_t sqk_fmt_inode_encode_tail(const struct sqk_fmt_inode *ino, uint8_t *raw);

/* Block size words: 4 bytes each. */
void sqk_fmt_blocks_decode(const uint8_t *raw, uint32_t *words, size_t n);
void sqk_fmt_blocks_encode(const uint32_t *words, size_t n, uint8_t *raw);

/*
 * Read a block list of count words through read(ctx, buf, len), in chunks,
 * so that what is allocated never runs ahead of what the image really
 * holds: a hostile size cannot make a reader allocate gigabytes before its
 * metadata runs out. 0 and *out (malloc'd; NULL when count is 0),
 * SQK_ERR_NOMEM, or the first nonzero value read returned.
 */
int sqk_fmt_blocks_read(uint32_t count, int (*read)(void *ctx, void *buf, size_t len), void *ctx,
			uint32_t **out);

/*
 * How many size words a file lists: one per full block, and one for the
 * tail unless the tail is in a fragment. May exceed SQK_FMT_BLOCKS_MAX in
 * a broken inode (a rule of sqk_fmt_inode_check_body).
 */
uint64_t sqk_fmt_file_blocks(uint64_t file_size, uint32_t frag_index, uint32_t block_size);

/* The bytes of a file's tail kept in a fragment: 0 when it has none. */
static inline uint32_t sqk_fmt_file_tail(uint64_t file_size, uint32_t frag_index,
					 uint32_t block_size)
{
	return frag_index == SQK_INVALID_FRAG ? 0 : (uint32_t)(file_size % block_size);
}

/* The bytes a directory's listing holds, from the stored size (which counts 3 more). */
static inline uint32_t sqk_fmt_dir_listing(uint32_t dir_size)
{
	return dir_size < 3 ? 0 : dir_size - 3;
}

/* The size a directory inode stores for a listing of len bytes. */
static inline uint64_t sqk_fmt_dir_size(uint64_t listing)
{
	return listing + 3;
}

/* The parent a writer stores in the root directory, as mksquashfs does. */
static inline uint32_t sqk_fmt_root_parent(uint32_t inode_count)
{
	return inode_count + 1;
}

/*
 * Extended or basic: the type the values need. ino->type is the basic
 * type (1..7); the basic form is used wherever the values fit it.
 */
unsigned sqk_fmt_inode_pick_type(const struct sqk_fmt_inode *ino);

/*
 * The rules. Each returns 0, or SQK_ERR_CORRUPT after reporting at least
 * one broken rule through r (NULL: stop at the first, report nothing).
 * An unknown type is reported alone: nothing else in the inode can be
 * read then.
 */
int sqk_fmt_inode_check_header(const struct sqk_fmt_inode *ino, const struct sqk_fmt_limits *lim,
			       struct sqk_fmt_report *r);
int sqk_fmt_inode_check_body(const struct sqk_fmt_inode *ino, const struct sqk_fmt_limits *lim,
			     struct sqk_fmt_report *r);
/* is_root: the superblock's root inode, whose parent is outside the tree. */
int sqk_fmt_inode_check_links(const struct sqk_fmt_inode *ino, const struct sqk_fmt_limits *lim,
			      int is_root, struct sqk_fmt_report *r);
/* A device number the encoding holds: major and minor at most the maxima in format.h. */
int sqk_fmt_dev_check(uint32_t major, uint32_t minor, struct sqk_fmt_report *r);
/* A symlink's target, once read: target_len bytes. */
int sqk_fmt_symlink_check(const char *target, uint32_t len, struct sqk_fmt_report *r);

#endif
