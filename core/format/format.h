/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FORMAT_H
#define SQK_FORMAT_H

/*
 * SquashFS 4.0 on-disk constants and the decoded superblock. All
 * multi-byte fields are little-endian; see le.h for the accessors.
 */
#include <stdint.h>
#include <stddef.h>

#define SQK_MAGIC		 0x73717368u
#define SQK_FORMAT_VERSION_MAJOR 4
#define SQK_FORMAT_VERSION_MINOR 0
#define SQK_SUPER_SIZE		 96
#define SQK_DEVBLK_SIZE		 4096 /* images are padded to this */
#define SQK_META_SIZE		 8192 /* uncompressed metadata block */
#define SQK_META_UNCOMPRESSED	 0x8000u
#define SQK_META_SIZE_MASK	 0x7fffu
#define SQK_BLOCK_MIN		 4096u
#define SQK_BLOCK_MAX		 (1024u * 1024u)
#define SQK_BLOCK_UNCOMPRESSED	 0x1000000u
#define SQK_BLOCK_SIZE_MASK	 0x0ffffffu
#define SQK_INVALID_FRAG	 0xffffffffu
#define SQK_INVALID_XATTR	 0xffffffffu
#define SQK_INVALID_TABLE	 0xffffffffffffffffull
#define SQK_FMT_MAX_IDS		 65535u /* id_count is 16 bits; the kernel reads no more */
#define SQK_NAME_MAX		 256	/* name_size is stored minus one */
#define SQK_NAME_MAX_BUF	 (SQK_NAME_MAX + 1)
#define SQK_DIR_HDR_MAX		 256 /* entries per directory header */

/* Entries per metadata block of each lookup table. */
#define SQK_FRAG_ENTRY_SIZE    16
#define SQK_FRAGS_PER_META     (SQK_META_SIZE / SQK_FRAG_ENTRY_SIZE)
#define SQK_IDS_PER_META       (SQK_META_SIZE / 4)
#define SQK_EXPORTS_PER_META   (SQK_META_SIZE / 8)
#define SQK_XATTR_ID_SIZE      16
#define SQK_XATTR_IDS_PER_META (SQK_META_SIZE / SQK_XATTR_ID_SIZE)

/* An inode or directory reference: metadata block start << 16 | offset. */
#define SQK_REF_BLOCK(ref)  ((uint64_t)(ref) >> 16)
#define SQK_REF_OFFSET(ref) ((unsigned)((ref)&0xffff))
#define SQK_MKREF(blk, off) (((uint64_t)(blk) << 16) | (uint64_t)(off))

enum sqk_compressor_id {
	SQK_COMP_GZIP = 1,
	SQK_COMP_LZMA = 2,
	SQK_COMP_LZO = 3,
	SQK_COMP_XZ = 4,
	SQK_COMP_LZ4 = 5,
	SQK_COMP_ZSTD = 6,
};

enum sqk_super_flags {
	SQK_FLAG_UNCOMPRESSED_INODES = 0x0001,
	SQK_FLAG_UNCOMPRESSED_DATA = 0x0002,
	SQK_FLAG_CHECK = 0x0004,
	SQK_FLAG_UNCOMPRESSED_FRAGMENTS = 0x0008,
	SQK_FLAG_NO_FRAGMENTS = 0x0010,
	SQK_FLAG_ALWAYS_FRAGMENTS = 0x0020,
	SQK_FLAG_DUPLICATES = 0x0040,
	SQK_FLAG_EXPORTABLE = 0x0080,
	SQK_FLAG_UNCOMPRESSED_XATTRS = 0x0100,
	SQK_FLAG_NO_XATTRS = 0x0200,
	SQK_FLAG_COMPRESSOR_OPTIONS = 0x0400,
	SQK_FLAG_UNCOMPRESSED_IDS = 0x0800,
	SQK_FLAG_ALL = 0x0fff,
};

enum sqk_fmt_inode_type {
	SQK_DIR = 1,
	SQK_FILE = 2,
	SQK_SYMLINK = 3,
	SQK_BLKDEV = 4,
	SQK_CHRDEV = 5,
	SQK_FIFO = 6,
	SQK_SOCKET = 7,
	SQK_LDIR = 8,
	SQK_LFILE = 9,
	SQK_LSYMLINK = 10,
	SQK_LBLKDEV = 11,
	SQK_LCHRDEV = 12,
	SQK_LFIFO = 13,
	SQK_LSOCKET = 14,
};

/* The basic type of a basic or extended inode type (1..7). */
static inline unsigned sqk_basic_type(unsigned type)
{
	return type > SQK_SOCKET ? type - SQK_SOCKET : type;
}

enum sqk_xattr_type {
	SQK_XATTR_USER = 0,
	SQK_XATTR_TRUSTED = 1,
	SQK_XATTR_SECURITY = 2,
	SQK_XATTR_PREFIX_MASK = 0xff,
	SQK_XATTR_OOL = 0x100, /* value stored out of line */
};

/* Decoded superblock; field names follow the format. */
struct sqk_super {
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
 * Device numbers use the 20-bit-minor encoding: a 12-bit major and a
 * 20-bit minor, as the kernel's old_decode_dev() reads them.
 */
#define SQK_FMT_DEV_MAJOR_MAX 0xfffu
#define SQK_FMT_DEV_MINOR_MAX 0xfffffu

static inline uint32_t sqk_encode_dev(uint32_t major, uint32_t minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

static inline uint32_t sqk_dev_major(uint32_t dev)
{
	return (dev >> 8) & 0xfff;
}

static inline uint32_t sqk_dev_minor(uint32_t dev)
{
	return (dev & 0xff) | ((dev >> 12) & 0xfff00);
}

#endif
