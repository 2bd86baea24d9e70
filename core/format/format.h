/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_FORMAT_H
#define SQK_FORMAT_H

/*
 * SquashFS 4.0 on-disk constants and the decoded superblock. All
 * multi-byte fields are little-endian; see le.h for the accessors.
 */
#include <stdint.h>
#include <stddef.h>

#define SQFS_MAGIC	      0x73717368u
#define SQFS_VERSION_MAJOR    4
#define SQFS_VERSION_MINOR    0
#define SQFS_SUPER_SIZE	      96
#define SQFS_DEVBLK_SIZE      4096 /* images are padded to this */
#define SQFS_META_SIZE	      8192 /* uncompressed metadata block */
#define SQFS_META_UNCOMPRESSED 0x8000u
#define SQFS_META_SIZE_MASK   0x7fffu
#define SQFS_BLOCK_MIN	      4096u
#define SQFS_BLOCK_MAX	      (1024u * 1024u)
#define SQFS_BLOCK_UNCOMPRESSED 0x1000000u
#define SQFS_BLOCK_SIZE_MASK  0x0ffffffu
#define SQFS_INVALID_FRAG     0xffffffffu
#define SQFS_INVALID_XATTR    0xffffffffu
#define SQFS_INVALID_TABLE    0xffffffffffffffffull
#define SQFS_MAX_IDS	      65536u /* id_count is 16 bits */
#define SQFS_NAME_MAX	      256    /* name_size is stored minus one */
#define SQFS_NAME_MAX_BUF     (SQFS_NAME_MAX + 1)
#define SQFS_DIR_HDR_MAX      256    /* entries per directory header */

/* Entries per metadata block of each lookup table. */
#define SQFS_FRAG_ENTRY_SIZE  16
#define SQFS_FRAGS_PER_META   (SQFS_META_SIZE / SQFS_FRAG_ENTRY_SIZE)
#define SQFS_IDS_PER_META     (SQFS_META_SIZE / 4)
#define SQFS_EXPORTS_PER_META (SQFS_META_SIZE / 8)
#define SQFS_XATTR_ID_SIZE    16
#define SQFS_XATTR_IDS_PER_META (SQFS_META_SIZE / SQFS_XATTR_ID_SIZE)

/* An inode or directory reference: metadata block start << 16 | offset. */
#define SQFS_REF_BLOCK(ref)  ((uint64_t)(ref) >> 16)
#define SQFS_REF_OFFSET(ref) ((unsigned)((ref) & 0xffff))
#define SQFS_MKREF(blk, off) (((uint64_t)(blk) << 16) | (uint64_t)(off))

enum sqfs_compressor_id {
	SQFS_COMP_GZIP = 1,
	SQFS_COMP_LZMA = 2,
	SQFS_COMP_LZO = 3,
	SQFS_COMP_XZ = 4,
	SQFS_COMP_LZ4 = 5,
	SQFS_COMP_ZSTD = 6,
};

enum sqfs_super_flags {
	SQFS_FLAG_UNCOMPRESSED_INODES = 0x0001,
	SQFS_FLAG_UNCOMPRESSED_DATA = 0x0002,
	SQFS_FLAG_CHECK = 0x0004,
	SQFS_FLAG_UNCOMPRESSED_FRAGMENTS = 0x0008,
	SQFS_FLAG_NO_FRAGMENTS = 0x0010,
	SQFS_FLAG_ALWAYS_FRAGMENTS = 0x0020,
	SQFS_FLAG_DUPLICATES = 0x0040,
	SQFS_FLAG_EXPORTABLE = 0x0080,
	SQFS_FLAG_UNCOMPRESSED_XATTRS = 0x0100,
	SQFS_FLAG_NO_XATTRS = 0x0200,
	SQFS_FLAG_COMPRESSOR_OPTIONS = 0x0400,
	SQFS_FLAG_UNCOMPRESSED_IDS = 0x0800,
	SQFS_FLAG_ALL = 0x0fff,
};

enum sqfs_inode_type {
	SQFS_DIR = 1,
	SQFS_FILE = 2,
	SQFS_SYMLINK = 3,
	SQFS_BLKDEV = 4,
	SQFS_CHRDEV = 5,
	SQFS_FIFO = 6,
	SQFS_SOCKET = 7,
	SQFS_LDIR = 8,
	SQFS_LFILE = 9,
	SQFS_LSYMLINK = 10,
	SQFS_LBLKDEV = 11,
	SQFS_LCHRDEV = 12,
	SQFS_LFIFO = 13,
	SQFS_LSOCKET = 14,
};

/* The basic type of a basic or extended inode type (1..7). */
static inline unsigned sqfs_basic_type(unsigned type)
{
	return type > 7 ? type - 7 : type;
}

enum sqfs_xattr_type {
	SQFS_XATTR_USER = 0,
	SQFS_XATTR_TRUSTED = 1,
	SQFS_XATTR_SECURITY = 2,
	SQFS_XATTR_PREFIX_MASK = 0xff,
	SQFS_XATTR_OOL = 0x100, /* value stored out of line */
};

/* Decoded superblock; field names follow the format. */
struct sqfs_super {
	uint32_t magic;
	uint32_t inode_count;
	uint32_t mkfs_time;
	uint32_t block_size;
	uint32_t fragment_count;
	uint16_t compressor;
	uint16_t block_log;
	uint16_t flags;
	uint16_t id_count;
	uint16_t version_major;
	uint16_t version_minor;
	uint64_t root_inode;
	uint64_t bytes_used;
	uint64_t id_table;
	uint64_t xattr_table;
	uint64_t inode_table;
	uint64_t dir_table;
	uint64_t fragment_table;
	uint64_t export_table;
};

/* Its codec and rules are in fmt_super.h. */

/*
 * The rules for a data block's size word and place, shared by the reader
 * and fsck so that they cannot disagree about an image.
 *
 * A word is bad when it sets bits above the raw flag, flags a hole (size 0)
 * as raw, is larger than a block, or stores raw a block whose length is not
 * the len bytes the file needs there.
 */
static inline int sqfs_block_word_bad(uint32_t word, uint32_t block_size, uint32_t len)
{
	uint32_t size = word & SQFS_BLOCK_SIZE_MASK;

	if (word & ~(SQFS_BLOCK_SIZE_MASK | SQFS_BLOCK_UNCOMPRESSED))
		return 1;
	if (word == SQFS_BLOCK_UNCOMPRESSED || size > block_size)
		return 1;
	return (word & SQFS_BLOCK_UNCOMPRESSED) && size != len;
}

/*
 * A stored block lies wholly in the data area [start, end): after the
 * superblock and compressor options, before the inode table. A hole (size
 * 0) is stored nowhere, so its position says nothing: writers leave
 * blocks_start 0 for a file that is all holes, and the kernel reads that.
 */
static inline int sqfs_block_in_area(uint64_t pos, uint32_t size, uint64_t start, uint64_t end)
{
	return size == 0 || (pos >= start && pos <= end && size <= end - pos);
}

/* Device numbers use the 20-bit-minor encoding. */
static inline uint32_t sqfs_encode_dev(uint32_t major, uint32_t minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

static inline uint32_t sqfs_dev_major(uint32_t dev)
{
	return (dev >> 8) & 0xfff;
}

static inline uint32_t sqfs_dev_minor(uint32_t dev)
{
	return (dev & 0xff) | ((dev >> 12) & 0xfff00);
}

#endif
