/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_API_GROW_OLD_H
#define SQK_API_GROW_OLD_H

/*
 * An older <squashkit/squashkit.h>, as far as api-grow.c uses it: the
 * structs as libsquashkit's first headers defined them, before fields were
 * added at their ends (struct sqk_image_info's version_major and
 * version_minor, struct sqk_stat's parent), and the calls that take them,
 * declared as those headers declare them. A program built with this runs
 * against the library of today: the structs grew without a new soname.
 * Kept as it was: it must not follow the public headers.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sqk_image;
struct sqk_inode;
struct sqk_open_opts;
struct sqk_build;
struct sqk_build_opts;

struct sqk_stat {
	uint64_t ref;	   /**< the inode's reference (open it again with sqk_inode_open_ref()) */
	uint32_t ino;	   /**< inode number, 1..inodes */
	mode_t mode;	   /**< S_IFxxx and the permission bits */
	uint32_t uid, gid; /**< owner */
	uint32_t mtime;	   /**< seconds since 1970 (unsigned 32-bit, as stored) */
	uint32_t nlink;	   /**< links */
	uint64_t size;	   /**< bytes of a file, of a symlink's target; a directory's listing */
	dev_t rdev;	   /**< a device's number (makedev(major, minor)) */
	uint64_t sparse;   /**< bytes of a file that are holes (stored as no block) */
	uint32_t blocks;   /**< data blocks of a file (its tail not counted) */
	int has_tail;	   /**< the file's last bytes are in a fragment block */
	int extended;	   /**< stored as an extended inode */
	int has_xattrs;	   /**< has extended attributes (sqk_inode_xattrs() lists them) */
};

struct sqk_io {
	/** Read exactly @p len bytes at @p pos; 0, or a negative code (SQK_ERR_IO...). */
	int (*read_at)(void *ctx, uint64_t pos, void *buf, size_t len);
	/** The size in bytes of what is read. */
	uint64_t (*size)(void *ctx);
	/** Called once by sqk_image_destroy() (or a failed open); may be NULL. */
	void (*close)(void *ctx);
	/** Passed to each callback. read_at may be called from several threads at once. */
	void *ctx;
};

struct sqk_image_info {
	uint64_t offset;	/**< where the image starts in its file */
	uint64_t bytes_used;	/**< the image's length */
	uint32_t block_size;	/**< bytes */
	uint32_t inodes;	/**< inode count */
	uint32_t fragments;	/**< fragment blocks */
	uint32_t ids;		/**< distinct owners (uids and gids) */
	uint32_t mkfs_time;	/**< the superblock's time, seconds since 1970 */
	uint16_t flags;		/**< the superblock's flag word (SQK_FLAG_... of the format) */
	const char *compressor; /**< "gzip", "lzma", "lzo", "xz", "lz4", "zstd" */
	int exportable;		/**< has an export (NFS) table */
	int has_xattrs;		/**< has an xattr table */
	/** Where each table starts and how many bytes it takes; start 0 when absent. */
	struct {
		uint64_t start, size;
	} inode_table, directory_table, fragment_table, export_table, id_table, xattr_table;
};

struct sqk_attr {
	mode_t mode;	   /**< permission bits (07777); the type comes from the call */
	uint32_t uid, gid; /**< owner */
	uint32_t mtime;	   /**< seconds since 1970 */
};

enum { SQK_ERR_UNSUPPORTED = -4, SQK_ERR_ARG = -5 };

const char *sqk_error_message(void);
int sqk_image_open_path(const char *path, const struct sqk_open_opts *opts,
			struct sqk_image **out);
void sqk_image_destroy(struct sqk_image *img);
int sqk_inode_open(struct sqk_image *img, const char *path, struct sqk_inode **out);
void sqk_inode_destroy(struct sqk_inode *ino);

int sqk_image_open_io(const struct sqk_io *io, const struct sqk_open_opts *opts,
		      struct sqk_image **out, size_t struct_size);
#define sqk_image_open_io(...) sqk_image_open_io(__VA_ARGS__, sizeof(struct sqk_io))
int sqk_image_info(const struct sqk_image *img, struct sqk_image_info *info, size_t struct_size);
#define sqk_image_info(...) sqk_image_info(__VA_ARGS__, sizeof(struct sqk_image_info))
int sqk_inode_stat(const struct sqk_inode *ino, struct sqk_stat *st, size_t struct_size);
#define sqk_inode_stat(...) sqk_inode_stat(__VA_ARGS__, sizeof(struct sqk_stat))

struct sqk_build_opts *sqk_build_opts_create(void);
void sqk_build_opts_destroy(struct sqk_build_opts *o);
int sqk_build_opts_set(struct sqk_build_opts *o, const char *name, const char *value);
int sqk_build_create(const char *path, const struct sqk_build_opts *o, struct sqk_build **out);
int sqk_build_mkdir(struct sqk_build *b, const char *path, const struct sqk_attr *a,
		    size_t struct_size);
#define sqk_build_mkdir(...) sqk_build_mkdir(__VA_ARGS__, sizeof(struct sqk_attr))
int sqk_build_finish(struct sqk_build *b);
void sqk_build_destroy(struct sqk_build *b);

#endif
