// SPDX-License-Identifier: BSD-2-Clause
/*
 * Inode type numbers: the one table of what each basic type is.
 */
#include <sys/stat.h>

#include "fmt_type.h"
#include "format.h"

static const struct type_row {
	unsigned mode;
	const char *name, *key, *plural;
} rows[SQK_FMT_BASIC_TYPES] = {
	[0] = {0, "unknown", "unknown", "unknown"},
	[SQK_DIR] = {S_IFDIR, "directory", "directory", "directories"},
	[SQK_FILE] = {S_IFREG, "file", "file", "files"},
	[SQK_SYMLINK] = {S_IFLNK, "symlink", "symlink", "symlinks"},
	[SQK_BLKDEV] = {S_IFBLK, "block device", "block_device", "block_devices"},
	[SQK_CHRDEV] = {S_IFCHR, "char device", "char_device", "char_devices"},
	[SQK_FIFO] = {S_IFIFO, "fifo", "fifo", "fifos"},
	[SQK_SOCKET] = {S_IFSOCK, "socket", "socket", "sockets"},
};

static const struct type_row *row(unsigned type)
{
	return &rows[sqk_fmt_type_valid(type) ? sqk_basic_type(type) : 0];
}

unsigned sqk_fmt_type_of_mode(mode_t mode)
{
	unsigned t;

	for (t = SQK_DIR; t <= SQK_SOCKET; t++)
		if ((mode & S_IFMT) == rows[t].mode)
			return t;
	return 0;
}

unsigned sqk_fmt_type_mode(unsigned type)
{
	return row(type)->mode;
}

const char *sqk_fmt_type_name(unsigned type)
{
	return row(type)->name;
}

const char *sqk_fmt_type_key(unsigned type)
{
	return row(type)->key;
}

const char *sqk_fmt_type_plural(unsigned type)
{
	return row(type)->plural;
}
