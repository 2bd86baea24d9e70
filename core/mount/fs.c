// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "format/fmt_inode.h"
#include "format/fmt_table.h"
#include "fs_int.h"
#include "read/dir.h"
#include "read/image.h"
#include "read/meta.h"
#include "read/xattr.h"
#include "util/error.h"

int sqk_fs_errno(int err)
{
	switch (err) {
	case 0:
		return 0;
	case SQK_ERR_NOMEM:
		return ENOMEM;
	case SQK_ERR_NOENT:
		return ENOENT;
	case SQK_ERR_NOTDIR:
		return ENOTDIR;
	case SQK_ERR_ARG:
		return EINVAL;
	default:
		/* Whatever is wrong with the image, the caller sees an I/O error. */
		return EIO;
	}
}

int sqk_fs_create(struct sqk_image *img, struct sqk_fs **out)
{
	struct sqk_inode root;
	struct sqk_fs *fs;
	uint32_t xsize;
	int err;

	*out = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return SQK_ERR_NOMEM;
	fs->img = img;
	fs->sb = sqk_image_super(img);
	fs->exportable = (fs->sb->flags & SQK_FLAG_EXPORTABLE) &&
			 sqk_image_table(img, SQK_TABLE_EXPORT)->nblocks > 0;
	fs->zeros = calloc(1, fs->sb->block_size);
	err = fs->zeros ? sqk_fs_nodes_init(fs) : SQK_ERR_NOMEM;
	if (!err)
		err = sqk_inode_read(img, fs->sb->root_inode, &root);
	if (err) {
		sqk_fs_destroy(fs);
		return err;
	}
	if (sqk_basic_type(root.type) != SQK_DIR) {
		sqk_inode_free(&root);
		sqk_fs_destroy(fs);
		return SQK_ERR_CORRUPT;
	}
	fs->root_number = root.number;
	err = sqk_fs_xattr_size(fs, &root, &xsize);
	if (!err)
		err = sqk_fs_node_add(fs, &root, xsize, 1);
	sqk_inode_free(&root);
	if (err) {
		sqk_fs_destroy(fs);
		return err;
	}
	*out = fs;
	return 0;
}

void sqk_fs_destroy(struct sqk_fs *fs)
{
	if (!fs)
		return;
	sqk_fs_nodes_destroy(fs);
	free(fs->zeros);
	free(fs);
}

struct sqk_image *sqk_fs_image(const struct sqk_fs *fs)
{
	return fs->img;
}

int sqk_fs_xattr_size(struct sqk_fs *fs, const struct sqk_inode *ino, uint32_t *size)
{
	uint64_t count = sqk_image_table(fs->img, SQK_TABLE_XATTR)->entries;
	uint8_t raw[SQK_FMT_XATTR_ID_SIZE];
	struct sqk_fmt_xattr_id id;
	int err;

	*size = 0;
	/* Without an xattr table an index means nothing, as for the kernel. */
	if (ino->xattr == SQK_INVALID_XATTR || count == 0)
		return 0;
	if (ino->xattr >= count)
		return SQK_ERR_CORRUPT;
	err = sqk_meta_table_entry(fs->img, SQK_TABLE_XATTR, ino->xattr, raw);
	if (err)
		return err;
	sqk_fmt_xattr_id_decode(&id, raw);
	*size = id.size;
	return 0;
}

/*
 * What the kernel's squashfs reports, field by field: st_blocks counts
 * the bytes stored (holes left out) and the xattrs, in 512-byte units.
 */
void sqk_fs_fill_stat(const struct sqk_inode *ino, uint32_t xsize, struct stat *st)
{
	unsigned basic = sqk_basic_type(ino->type);

	memset(st, 0, sizeof(*st));
	st->st_ino = ino->number;
	st->st_mode = ino->mode;
	st->st_nlink = ino->nlink;
	st->st_uid = ino->uid;
	st->st_gid = ino->gid;
	st->st_atime = st->st_mtime = st->st_ctime = ino->mtime;
	st->st_blksize = 1024;
	switch (basic) {
	case SQK_DIR:
		st->st_size = (off_t)sqk_fmt_dir_size(ino->size);
		break;
	case SQK_FILE:
		st->st_size = (off_t)ino->size;
		if (ino->type == SQK_FILE)
			st->st_blocks = ino->size ? (blkcnt_t)((ino->size - 1) / 512 + 1) : 0;
		else if (ino->sparse < ino->size)
			st->st_blocks = (blkcnt_t)((ino->size - ino->sparse + 511) / 512);
		break;
	case SQK_SYMLINK:
		st->st_size = (off_t)ino->size;
		break;
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		st->st_rdev = makedev(sqk_dev_major(ino->rdev), sqk_dev_minor(ino->rdev));
		break;
	}
	if (xsize)
		st->st_blocks += (xsize - 1) / 512 + 1;
}

/* A directory entry names its inode's number and basic type, or the image is corrupt. */
static int entry_names(const struct sqk_inode *ino, uint32_t number, unsigned basic)
{
	return ino->number == number && sqk_basic_type(ino->type) == basic;
}

int sqk_fs_read_inode(struct sqk_fs *fs, uint64_t ref, uint32_t number, unsigned basic,
		      struct sqk_inode *ino)
{
	int err = sqk_inode_read(fs->img, ref, ino);

	if (err)
		return err;
	if (!entry_names(ino, number, basic)) {
		sqk_inode_free(ino);
		return SQK_ERR_CORRUPT;
	}
	return 0;
}

int sqk_fs_entry_lookup(struct sqk_fs *fs, const struct sqk_fs_dirent *ent, uint64_t *node,
			struct stat *st)
{
	uint64_t id = fs_swap(fs, ent->number);
	struct sqk_inode ino;
	uint32_t xsize;
	int err;

	/* Known already (a hard link, or a name looked up before): no inode read. */
	err = sqk_fs_node_peek(fs, id, ent->ref, &ino, &xsize);
	if (err < 0)
		return err;
	/* Known through another entry, which may have listed another type. */
	if (err == 1 && !entry_names(&ino, ent->number, sqk_fmt_type_of_mode(ent->type)))
		return SQK_ERR_CORRUPT;
	if (err == 0) {
		err = sqk_fs_read_inode(fs, ent->ref, ent->number, sqk_fmt_type_of_mode(ent->type),
					&ino);
		if (!err)
			err = sqk_fs_xattr_size(fs, &ino, &xsize);
		if (err) {
			sqk_inode_free(&ino);
			return err;
		}
	}
	err = sqk_fs_node_add(fs, &ino, xsize, 1);
	if (!err) {
		sqk_fs_fill_stat(&ino, xsize, st);
		*node = id;
	}
	sqk_inode_free(&ino);
	return err;
}

int sqk_fs_lookup(struct sqk_fs *fs, uint64_t parent, const char *name, uint64_t *node,
		  struct stat *st)
{
	struct sqk_fs_dirent ent;
	struct sqk_inode dir;
	struct sqk_dir_entry de;
	int err;

	err = sqk_fs_node_get(fs, parent, &dir, NULL);
	if (err)
		return err;
	err = sqk_dir_lookup(fs->img, &dir, name, strlen(name), &de);
	if (err)
		return err;
	ent.name = de.name;
	ent.name_len = de.name_len;
	ent.number = de.number;
	ent.type = sqk_fmt_type_mode(de.type);
	ent.ref = de.ref;
	return sqk_fs_entry_lookup(fs, &ent, node, st);
}

void sqk_fs_forget(struct sqk_fs *fs, uint64_t node, uint64_t count)
{
	sqk_fs_node_forget(fs, node, count);
}

int sqk_fs_getattr(struct sqk_fs *fs, uint64_t node, struct stat *st)
{
	struct sqk_inode ino;
	uint32_t xsize;
	int err = sqk_fs_node_get(fs, node, &ino, &xsize);

	if (!err)
		sqk_fs_fill_stat(&ino, xsize, st);
	return err;
}

int sqk_fs_readlink(struct sqk_fs *fs, uint64_t node, char **target)
{
	struct sqk_inode ino;
	int err;

	*target = NULL;
	err = sqk_fs_node_get(fs, node, &ino, NULL);
	if (err)
		return err;
	if (sqk_basic_type(ino.type) != SQK_SYMLINK)
		return SQK_ERR_ARG;
	err = sqk_fs_read_inode(fs, ino.ref, ino.number, SQK_SYMLINK, &ino);
	if (err)
		return err;
	*target = ino.target;
	ino.target = NULL;
	sqk_inode_free(&ino);
	return 0;
}

void sqk_fs_statfs(struct sqk_fs *fs, struct statvfs *st)
{
	const struct sqk_super *sb = fs->sb;

	memset(st, 0, sizeof(*st));
	st->f_bsize = sb->block_size;
	st->f_frsize = sb->block_size;
	st->f_blocks = (sb->bytes_used + sb->block_size - 1) / sb->block_size;
	st->f_files = sb->inode_count;
	st->f_namemax = SQK_NAME_MAX;
	st->f_flag = ST_RDONLY;
}

static int xattrs_of(struct sqk_fs *fs, uint64_t node, struct sqk_xattr **list, uint32_t *count)
{
	struct sqk_inode ino;
	int err = sqk_fs_node_get(fs, node, &ino, NULL);

	if (err)
		return err;
	return sqk_xattr_read(fs->img, ino.xattr, list, count);
}

int sqk_fs_listxattr(struct sqk_fs *fs, uint64_t node, int trusted, char **names, size_t *len)
{
	struct sqk_xattr *list;
	uint32_t count, i;
	size_t total = 0;
	char *p;
	int err;

	*names = NULL;
	*len = 0;
	err = xattrs_of(fs, node, &list, &count);
	if (err)
		return err;
	for (i = 0; i < count; i++)
		if (trusted || strncmp(list[i].name, "trusted.", 8) != 0)
			total += strlen(list[i].name) + 1;
	p = malloc(total ? total : 1);
	if (!p) {
		sqk_xattr_free(list, count);
		return SQK_ERR_NOMEM;
	}
	*names = p;
	*len = total;
	for (i = 0; i < count; i++) {
		size_t n = strlen(list[i].name) + 1;

		if (!trusted && strncmp(list[i].name, "trusted.", 8) == 0)
			continue;
		memcpy(p, list[i].name, n);
		p += n;
	}
	sqk_xattr_free(list, count);
	return 0;
}

int sqk_fs_getxattr(struct sqk_fs *fs, uint64_t node, const char *name, uint8_t **value,
		    size_t *len)
{
	struct sqk_xattr *list;
	uint32_t count, i;
	int err;

	*value = NULL;
	*len = 0;
	err = xattrs_of(fs, node, &list, &count);
	if (err)
		return err;
	err = SQK_ERR_NOENT;
	for (i = 0; i < count; i++) {
		if (strcmp(list[i].name, name) != 0)
			continue;
		*value = list[i].value;
		*len = list[i].value_len;
		list[i].value = NULL;
		err = 0;
		break;
	}
	sqk_xattr_free(list, count);
	return err;
}
