// SPDX-License-Identifier: GPL-2.0-or-later
#include "format.h"
#include "error.h"
#include "le.h"

void sqfs_super_decode(struct sqfs_super *sb, const uint8_t raw[SQFS_SUPER_SIZE])
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

void sqfs_super_encode(const struct sqfs_super *sb, uint8_t raw[SQFS_SUPER_SIZE])
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

static int table_in_range(uint64_t start, uint64_t bytes_used, int optional)
{
	if (optional && start == SQFS_INVALID_TABLE)
		return 1;
	return start >= SQFS_SUPER_SIZE && start < bytes_used;
}

int sqfs_super_check(const struct sqfs_super *sb, uint64_t file_size)
{
	if (sb->magic != SQFS_MAGIC)
		return SQK_ERR_MAGIC;
	if (sb->version_major != SQFS_VERSION_MAJOR || sb->version_minor != SQFS_VERSION_MINOR)
		return SQK_ERR_VERSION;
	if (sb->block_size < SQFS_BLOCK_MIN || sb->block_size > SQFS_BLOCK_MAX ||
	    (sb->block_size & (sb->block_size - 1)))
		return SQK_ERR_CORRUPT;
	if (sb->block_log > 20 || (1u << sb->block_log) != sb->block_size)
		return SQK_ERR_CORRUPT;
	if (sb->flags & ~SQFS_FLAG_ALL)
		return SQK_ERR_CORRUPT;
	if (sb->bytes_used < SQFS_SUPER_SIZE)
		return SQK_ERR_CORRUPT;
	if (sb->bytes_used > file_size)
		return SQK_ERR_TRUNCATED;
	if (sb->inode_count == 0 || sb->id_count == 0)
		return SQK_ERR_CORRUPT;
	/* The tables follow each other in this order in every writer's output. */
	if (!table_in_range(sb->inode_table, sb->bytes_used, 0) ||
	    !table_in_range(sb->dir_table, sb->bytes_used, 0) ||
	    !table_in_range(sb->id_table, sb->bytes_used, 0) ||
	    !table_in_range(sb->fragment_table, sb->bytes_used, 1) ||
	    !table_in_range(sb->export_table, sb->bytes_used, 1) ||
	    !table_in_range(sb->xattr_table, sb->bytes_used, 1))
		return SQK_ERR_CORRUPT;
	if (sb->dir_table < sb->inode_table)
		return SQK_ERR_CORRUPT;
	if (SQFS_REF_BLOCK(sb->root_inode) >= sb->dir_table - sb->inode_table)
		return SQK_ERR_CORRUPT;
	if (SQFS_REF_OFFSET(sb->root_inode) >= SQFS_META_SIZE)
		return SQK_ERR_CORRUPT;
	if (sb->fragment_count && sb->fragment_table == SQFS_INVALID_TABLE)
		return SQK_ERR_CORRUPT;
	return 0;
}
