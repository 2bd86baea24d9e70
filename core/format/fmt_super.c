// SPDX-License-Identifier: BSD-2-Clause
#include "fmt_super.h"
#include "util/error.h"
#include "util/le.h"

const struct sqk_fmt_flag sqk_fmt_super_flags[] = {
	{"exportable", SQK_FLAG_EXPORTABLE},
	{"duplicates", SQK_FLAG_DUPLICATES},
	{"no_fragments", SQK_FLAG_NO_FRAGMENTS},
	{"always_fragments", SQK_FLAG_ALWAYS_FRAGMENTS},
	{"uncompressed_inodes", SQK_FLAG_UNCOMPRESSED_INODES},
	{"uncompressed_data", SQK_FLAG_UNCOMPRESSED_DATA},
	{"uncompressed_fragments", SQK_FLAG_UNCOMPRESSED_FRAGMENTS},
	{"uncompressed_xattrs", SQK_FLAG_UNCOMPRESSED_XATTRS},
	{"compressor_options", SQK_FLAG_COMPRESSOR_OPTIONS},
	{"no_xattrs", SQK_FLAG_NO_XATTRS},
	{"uncompressed_ids", SQK_FLAG_UNCOMPRESSED_IDS},
	{"check", SQK_FLAG_CHECK},
	{NULL, 0},
};

void sqk_fmt_super_decode(struct sqk_super *sb, const uint8_t raw[SQK_SUPER_SIZE])
{
	sb->magic = get_le32(raw + 0);
	sb->inode_count = get_le32(raw + 4);
	sb->mkfs_time = get_le32(raw + 8);
	sb->block_size = get_le32(raw + 12);
	sb->fragment_count = get_le32(raw + 16);
	sb->compressor = get_le16(raw + 20);
	sb->block_log = get_le16(raw + 22);
	sb->flags = get_le16(raw + 24);
	sb->id_count = get_le16(raw + 26);
	sb->version_major = get_le16(raw + 28);
	sb->version_minor = get_le16(raw + 30);
	sb->root_inode = get_le64(raw + 32);
	sb->bytes_used = get_le64(raw + 40);
	sb->id_table = get_le64(raw + 48);
	sb->xattr_table = get_le64(raw + 56);
	sb->inode_table = get_le64(raw + 64);
	sb->dir_table = get_le64(raw + 72);
	sb->fragment_table = get_le64(raw + 80);
	sb->export_table = get_le64(raw + 88);
}

void sqk_fmt_super_encode(const struct sqk_super *sb, uint8_t raw[SQK_SUPER_SIZE])
{
	put_le32(raw + 0, sb->magic);
	put_le32(raw + 4, sb->inode_count);
	put_le32(raw + 8, sb->mkfs_time);
	put_le32(raw + 12, sb->block_size);
	put_le32(raw + 16, sb->fragment_count);
	put_le16(raw + 20, sb->compressor);
	put_le16(raw + 22, sb->block_log);
	put_le16(raw + 24, sb->flags);
	put_le16(raw + 26, sb->id_count);
	put_le16(raw + 28, sb->version_major);
	put_le16(raw + 30, sb->version_minor);
	put_le64(raw + 32, sb->root_inode);
	put_le64(raw + 40, sb->bytes_used);
	put_le64(raw + 48, sb->id_table);
	put_le64(raw + 56, sb->xattr_table);
	put_le64(raw + 64, sb->inode_table);
	put_le64(raw + 72, sb->dir_table);
	put_le64(raw + 80, sb->fragment_table);
	put_le64(raw + 88, sb->export_table);
}

/*
 * Record a broken rule; the first one decides the error returned. Returns
 * nonzero when the check must stop here.
 */
static int fail(struct sqk_fmt_report *r, int *ret, int err, const char *field, uint64_t value,
		const char *why)
{
	if (!*ret)
		*ret = err;
	return sqk_fmt_fail(r, field, value, why);
}

int sqk_fmt_super_check(const struct sqk_super *sb, uint64_t file_size, struct sqk_fmt_report *r)
{
	int ret = 0;

	/* Without the magic, the version or a block size nothing else means anything. */
	if (sb->magic != SQK_MAGIC) {
		fail(r, &ret, SQK_ERR_MAGIC, "magic", sb->magic, "is not the squashfs magic");
		return ret;
	}
	if (sb->version_major != SQK_FORMAT_VERSION_MAJOR) {
		fail(r, &ret, SQK_ERR_VERSION, "version_major", sb->version_major, "is not 4");
		return ret;
	}
	if (sb->version_minor != SQK_FORMAT_VERSION_MINOR) {
		fail(r, &ret, SQK_ERR_VERSION, "version_minor", sb->version_minor, "is not 0");
		return ret;
	}
	if (sb->block_size < SQK_BLOCK_MIN || sb->block_size > SQK_BLOCK_MAX ||
	    (sb->block_size & (sb->block_size - 1))) {
		fail(r, &ret, SQK_ERR_CORRUPT, "block_size", sb->block_size,
		     "is not a power of two from 4K to 1M");
		return ret;
	}
	if ((sb->block_log > 20 || (1u << sb->block_log) != sb->block_size) &&
	    fail(r, &ret, SQK_ERR_CORRUPT, "block_log", sb->block_log,
		 "does not match the block size"))
		return ret;
	if ((sb->flags & ~SQK_FLAG_ALL) && fail(r, &ret, SQK_ERR_CORRUPT, "flags",
						sb->flags & ~SQK_FLAG_ALL, "has unknown bits set"))
		return ret;
	if (sb->bytes_used < SQK_SUPER_SIZE) {
		fail(r, &ret, SQK_ERR_CORRUPT, "bytes_used", sb->bytes_used,
		     "is smaller than the superblock");
		return ret;
	}
	if (sb->bytes_used > file_size) {
		fail(r, &ret, SQK_ERR_TRUNCATED, "bytes_used", sb->bytes_used,
		     "is past the end of the file: the image is truncated");
		return ret;
	}
	if (sb->inode_count == 0 &&
	    fail(r, &ret, SQK_ERR_CORRUPT, "inode_count", 0, "is 0: there is no root"))
		return ret;
	if (sb->id_count == 0 &&
	    fail(r, &ret, SQK_ERR_CORRUPT, "id_count", 0, "is 0: no inode has an owner"))
		return ret;
	if (sb->fragment_count && sb->fragment_table == SQK_INVALID_TABLE &&
	    fail(r, &ret, SQK_ERR_CORRUPT, "fragment_count", sb->fragment_count,
		 "is not 0, but there is no fragment table"))
		return ret;
	if ((sb->flags & SQK_FLAG_EXPORTABLE) && sb->export_table == SQK_INVALID_TABLE &&
	    fail(r, &ret, SQK_ERR_CORRUPT, "flags", sb->flags,
		 "has the exportable bit set, but there is no export table"))
		return ret;
	/* Last, so that a broken image is called broken before unsupported. */
	if ((sb->compressor < SQK_COMP_GZIP || sb->compressor > SQK_COMP_ZSTD) &&
	    fail(r, &ret, SQK_ERR_UNSUPPORTED, "compressor", sb->compressor,
		 "is not a known compressor id"))
		return ret;
	return ret;
}

int sqk_fmt_main_tables_check(const struct sqk_super *sb, uint64_t data_start,
			      struct sqk_fmt_report *r)
{
	int ret = 0;

	/* Each of these places the next: the first broken one ends the check. */
	if (sb->inode_table < data_start || sb->inode_table >= sb->bytes_used) {
		fail(r, &ret, SQK_ERR_CORRUPT, "inode_table", sb->inode_table,
		     "is not between the data area's start and bytes_used");
		return ret;
	}
	if (sb->dir_table <= sb->inode_table || sb->dir_table >= sb->bytes_used) {
		fail(r, &ret, SQK_ERR_CORRUPT, "dir_table", sb->dir_table,
		     "is not between the inode table and bytes_used");
		return ret;
	}
	if (SQK_REF_BLOCK(sb->root_inode) >= sb->dir_table - sb->inode_table ||
	    SQK_REF_OFFSET(sb->root_inode) >= SQK_META_SIZE)
		fail(r, &ret, SQK_ERR_CORRUPT, "root_inode", sb->root_inode,
		     "does not point into the inode table");
	return ret;
}
