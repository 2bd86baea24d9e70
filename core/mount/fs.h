/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FS_H
#define SQK_FS_H

/*
 * A read-only file system over an open image, shaped for FUSE's low-level
 * protocol but free of it: nodes are named by 64-bit ids, every call is
 * safe from many threads at once, and every block goes through the
 * image's shared caches.
 *
 * Node ids are the image's inode numbers, so that st_ino is what the
 * kernel's squashfs shows, with one swap: FUSE names the root 1, so the
 * root's number and 1 trade places (the swap is its own inverse).
 *
 * A node id maps to its inode reference through a table that lookups
 * fill and forgets empty: the kernel names only nodes it was given, so
 * the table always holds what it needs, and no tree is loaded at mount.
 * The export table, when the image has one, answers a miss.
 *
 * A thread holds at most one block of each cache at a time: threads that
 * each hold one and wait for a second could fill a small cache and wait
 * on each other for ever.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

struct sqk_image;
struct sqk_cache_entry;

#define SQK_FS_ROOT 1

struct sqk_fs;

/* Read the root inode; the image stays the caller's. */
int sqk_fs_create(struct sqk_image *img, struct sqk_fs **out);
void sqk_fs_destroy(struct sqk_fs *fs);
struct sqk_image *sqk_fs_image(const struct sqk_fs *fs);

/* errno for a core error code, as a file system reports it. */
int sqk_fs_errno(int err);

/*
 * Find name in directory parent: the child's node id and attributes. A
 * successful lookup counts once against the node until forgotten.
 */
int sqk_fs_lookup(struct sqk_fs *fs, uint64_t parent, const char *name, uint64_t *node,
		  struct stat *st);
void sqk_fs_forget(struct sqk_fs *fs, uint64_t node, uint64_t count);
int sqk_fs_getattr(struct sqk_fs *fs, uint64_t node, struct stat *st);
/* The target of a symlink, malloc'd. */
int sqk_fs_readlink(struct sqk_fs *fs, uint64_t node, char **target);
void sqk_fs_statfs(struct sqk_fs *fs, struct statvfs *st);

/*
 * Extended attributes. listxattr gives the names as "a\0b\0" (malloc'd;
 * trusted.* only when trusted is set, as the kernel lists them only to
 * privileged callers); getxattr gives SQK_ERR_NOENT for a missing name.
 */
int sqk_fs_listxattr(struct sqk_fs *fs, uint64_t node, int trusted, char **names, size_t *len);
int sqk_fs_getxattr(struct sqk_fs *fs, uint64_t node, const char *name, uint8_t **value,
		    size_t *len);

/*
 * Directories. Offsets are positions in the listing: 0 is ".", 1 is "..",
 * 2 + i the listing's entry i. The image never changes, so an offset
 * means the same entry in every handle, at any time.
 */
struct sqk_fs_dir;

struct sqk_fs_dirent {
	const char *name; /* ".", "..", or buf */
	size_t name_len;
	uint32_t number; /* st_ino */
	mode_t type;	 /* S_IFxxx */
	uint64_t ref;
	char buf[256 + 1];
};

int sqk_fs_opendir(struct sqk_fs *fs, uint64_t node, struct sqk_fs_dir **out);
/* 1 and *ent for the entry at off, 0 past the end, or a negative error. */
int sqk_fs_readdir(struct sqk_fs *fs, struct sqk_fs_dir *d, uint64_t off,
		   struct sqk_fs_dirent *ent);
/*
 * Look ent up as sqk_fs_lookup() would (readdirplus). The caller that
 * cannot pass the entry on after all forgets it again.
 */
int sqk_fs_entry_lookup(struct sqk_fs *fs, const struct sqk_fs_dirent *ent, uint64_t *node,
			struct stat *st);
void sqk_fs_closedir(struct sqk_fs_dir *d);
/* The node's own directory handle, as sqk_fs_file_of() for files. */
int sqk_fs_dir_of(struct sqk_fs *fs, uint64_t node, struct sqk_fs_dir **out);

/* Regular files: the inode and its block positions, decoded once at open. */
struct sqk_fs_file;

int sqk_fs_open(struct sqk_fs *fs, uint64_t node, struct sqk_fs_file **out);
void sqk_fs_close(struct sqk_fs_file *f);
/*
 * The node's own open file, made on first use and kept until the node is
 * forgotten: for reads that come without an open (FUSE's no-open mode).
 * Not to be closed by the caller.
 */
int sqk_fs_file_of(struct sqk_fs *fs, uint64_t node, struct sqk_fs_file **out);
uint64_t sqk_fs_file_size(const struct sqk_fs_file *f);

/*
 * The part of a file at off that one block holds, at most len bytes:
 * data points into a cache entry held until sqk_fs_piece_put(), or at
 * zeros for a hole. len 0 at or past the end of the file. The whole of
 * the block's part of the file is there too: block_len bytes at block,
 * which are the file's bytes from block_off on.
 */
struct sqk_fs_piece {
	const uint8_t *data;
	size_t len;
	const uint8_t *block;
	uint64_t block_off;
	size_t block_len;
	struct sqk_cache_entry *e;
};

int sqk_fs_read_piece(struct sqk_fs *fs, struct sqk_fs_file *f, uint64_t off, size_t len,
		      struct sqk_fs_piece *p);
void sqk_fs_piece_put(struct sqk_fs_piece *p);
/* Copy up to len bytes at off into buf, piece by piece; *got is what was read. */
int sqk_fs_read(struct sqk_fs *fs, struct sqk_fs_file *f, uint64_t off, void *buf, size_t len,
		size_t *got);

/* Nodes in the table now (the root included), for tests. */
uint64_t sqk_fs_nodes(struct sqk_fs *fs);

#endif
