/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_INODE_H
#define SQUASHKIT_INODE_H

/**
 * @file squashkit/inode.h
 * What is in an image: paths, inodes, directories, file contents, symlink
 * targets, extended attributes, and walking a tree.
 *
 * An inode is opened from a path (sqk_inode_open()) or from a directory
 * entry (sqk_inode_open_ref()) and freed with sqk_inode_destroy(). After a
 * failed open, *out is NULL. An inode keeps no hold on its image: it may
 * be destroyed after sqk_image_destroy(), and sqk_inode_stat(),
 * sqk_inode_readlink() and sqk_inode_blocks() work on it then; the calls
 * that take the image need that image open. A listing (struct sqk_dir)
 * reads its image: destroy it before the image. An open
 * inode is read-only: any number of threads may read the same file through
 * it at once (sqk_inode_pread()), each block coming through the image's
 * shared caches. A directory is listed one entry at a time, without
 * loading the whole listing.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqk_image;
struct sqk_inode;
struct sqk_dir;

/** Every field the kernel shows for an inode, and where its data lies. */
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
	/* Fields added since the first version (a program built before lacks them). */
	uint32_t parent; /**< a directory: its parent's inode number, as stored; else 0 */
};

/**
 * The name of the file type of @p mode (its S_IFMT bits), in words:
 * "directory", "file", "symlink", "block device", "char device", "fifo",
 * "socket"; "unknown" for another. Static.
 */
SQK_API const char *sqk_type_name(mode_t mode);
/** The same as a key (JSON): "block_device", "char_device", the others as above. */
SQK_API const char *sqk_type_key(mode_t mode);

/**
 * Open the inode at @p path ("/a/b" or "a/b"; "" and "/" are the root) as
 * sqk_inode_open_lstat() does: a symlink on the way is followed, the last
 * component is not.
 */
SQK_API int sqk_inode_open(struct sqk_image *img, const char *path, struct sqk_inode **out);
/**
 * Open the inode at @p path as a mounted image resolves it: symlinks on the
 * way and at the end are followed inside the image (an absolute target
 * starts again at the image's root, ".." stops at it), at most 40 on one
 * path (then SQK_ERR_LOOP, its errno ELOOP); SQK_ERR_NOTDIR when a
 * component on the way is not a directory.
 */
SQK_API int sqk_inode_open_follow(struct sqk_image *img, const char *path, struct sqk_inode **out);
/**
 * Open the inode at @p path as lstat(2) resolves it: symlinks on the way
 * are followed as sqk_inode_open_follow() follows them, the last component
 * is not (unless @p path ends with "/").
 */
SQK_API int sqk_inode_open_lstat(struct sqk_image *img, const char *path, struct sqk_inode **out);
/** What sqk_inode_open_trace() tells its callback of. */
enum sqk_trace_kind {
	SQK_TRACE_PARENT = 0, /**< a directory the resolution left through ".." */
	SQK_TRACE_LINK = 1,   /**< a symlink it followed */
	SQK_TRACE_RESULT = 2, /**< where it ended: the path of the inode opened, once */
};
/**
 * Called with the image path ("/a/b", no symlink in it; "/" for the root)
 * of each thing a resolution went through, in order; a nonzero return
 * ends the resolution with it.
 */
typedef int (*sqk_trace_fn)(void *ctx, const char *path, enum sqk_trace_kind kind);
/** sqk_inode_open_trace(): symlinks with absolute targets and ".." in the root are refused. */
#define SQK_TRACE_RELATIVE_ONLY 0x1u
/** sqk_inode_open_trace(): the last component is not followed (as sqk_inode_open_lstat()). */
#define SQK_TRACE_NOFOLLOW 0x2u
/**
 * Open the inode at @p path as sqk_inode_open_follow() does (or, with
 * SQK_TRACE_NOFOLLOW, sqk_inode_open_lstat()), telling @p trace of every
 * symlink followed and directory left through "..": what a copy of the
 * tree must hold for @p path to resolve the same way in it (unsquashfs
 * -follow-symlinks). With SQK_TRACE_RELATIVE_ONLY, a symlink with an
 * absolute target or ".." in the root is SQK_ERR_UNSUPPORTED, as both
 * would leave such a copy. @p trace may be NULL.
 */
SQK_API int sqk_inode_open_trace(struct sqk_image *img, const char *path, unsigned flags,
				 sqk_trace_fn trace, void *ctx, struct sqk_inode **out);
/** Open the inode with reference @p ref (from sqk_stat.ref or a directory entry). */
SQK_API int sqk_inode_open_ref(struct sqk_image *img, uint64_t ref, struct sqk_inode **out);
/** NULL is ignored. */
SQK_API void sqk_inode_destroy(struct sqk_inode *ino);
/** Fill @p st. Thread-safe. */
SQK_API int sqk_inode_stat(const struct sqk_inode *ino, struct sqk_stat *st, size_t struct_size);
#define sqk_inode_stat(...) sqk_inode_stat(__VA_ARGS__, sizeof(struct sqk_stat))

/**
 * Read up to @p len bytes of a file at @p off into @p buf; *got is what was
 * read (less only at the end of the file). Holes read as zeros. Any number
 * of threads may read one open inode at once.
 */
SQK_API int sqk_inode_pread(struct sqk_image *img, const struct sqk_inode *ino, uint64_t off,
			    void *buf, size_t len, size_t *got);
/**
 * Where the data of a file is: from @p off, *data is the first byte at or
 * after off that is not in a hole (the file's size when none is), as
 * lseek(SEEK_DATA) says; *hole the first byte of a hole at or after *data
 * (the file's size when none is), as SEEK_HOLE.
 */
SQK_API int sqk_inode_extent(struct sqk_image *img, const struct sqk_inode *ino, uint64_t off,
			     uint64_t *data, uint64_t *hole);
/**
 * A symlink's target, NUL-terminated, in @p buf of @p cap bytes. Returns its
 * length, or SQK_ERR_OVERFLOW when cap is not more than it (sqk_stat.size
 * bytes and a NUL always fit); SQK_ERR_ARG for another type.
 */
SQK_API int sqk_inode_readlink(const struct sqk_inode *ino, char *buf, size_t cap);

/** One extended attribute: its full name ("user.comment") and value. */
struct sqk_xattr_pair {
	const char *name;
	const void *value;
	size_t size;
};
/**
 * The extended attributes of an inode, in the order they are stored. *list
 * (of *count pairs) is freed with sqk_inode_xattrs_destroy().
 */
SQK_API int sqk_inode_xattrs(struct sqk_image *img, const struct sqk_inode *ino,
			     struct sqk_xattr_pair **list, size_t *count, size_t struct_size);
#define sqk_inode_xattrs(...) sqk_inode_xattrs(__VA_ARGS__, sizeof(struct sqk_xattr_pair))
/** Free what sqk_inode_xattrs() gave; NULL is ignored. */
SQK_API void sqk_inode_xattrs_destroy(struct sqk_xattr_pair *list, size_t count);
/**
 * The value of the extended attribute @p name ("user.comment") of an
 * inode, as getxattr(2) gives one: *size (may be NULL) gets its length;
 * with @p buf, the value is copied there when @p cap bytes hold it, else
 * SQK_ERR_OVERFLOW (errno ERANGE). SQK_ERR_NOENT (errno ENODATA) when the
 * inode has none by that name. @p buf NULL asks for the length alone.
 */
SQK_API int sqk_inode_getxattr(struct sqk_image *img, const struct sqk_inode *ino, const char *name,
			       void *buf, size_t cap, size_t *size);

/** Where an inode and its data are stored, as `squashkit stat` shows it. */
struct sqk_inode_layout {
	uint64_t inode_block;  /**< its metadata block: the block's start in the inode table */
	uint32_t inode_offset; /**< its byte offset in that block (uncompressed) */
	uint32_t xattr_index;  /**< its entry in the xattr table; UINT32_MAX for none */
	uint64_t blocks_start; /**< a file: where its first data block starts in the image */
	uint32_t fragment;     /**< a file: the fragment block of its tail; UINT32_MAX for none */
	uint32_t fragment_offset; /**< a file: where its tail starts in that fragment block */
	uint32_t tail;		  /**< a file: bytes of its tail (0 without one) */
	int has_sparse_field;	  /**< an extended file inode: it stores a sparse count */
	uint64_t sparse_field;	  /**< that count, as stored (mksquashfs may store one less) */
	uint64_t sparse_bytes;	/**< a file: bytes in blocks stored as holes, from the block list */
	uint32_t listing_block; /**< a directory: its listing's block in the directory table */
	uint32_t listing_offset; /**< a directory: the listing's byte offset in that block */
	uint32_t parent;	 /**< a directory: the inode number of its parent */
	uint32_t index_count;	 /**< a directory: entries of its index */
	uint64_t size_mounted;	 /**< the size a mounted image reports (a listing counts 3 more) */
};
/** Fill @p l for @p ino (of the open image @p img). Thread-safe. */
SQK_API int sqk_inode_layout(struct sqk_image *img, const struct sqk_inode *ino,
			     struct sqk_inode_layout *l, size_t struct_size);
#define sqk_inode_layout(...) sqk_inode_layout(__VA_ARGS__, sizeof(struct sqk_inode_layout))

/** One data block of a file, as stored. */
struct sqk_block {
	uint64_t start; /**< where it starts in the image */
	uint32_t size;	/**< bytes stored; 0 for a hole */
	int compressed; /**< stored compressed (0 for a hole or a block stored as is) */
};
/**
 * The data blocks of a file (sqk_stat.blocks of them, its tail not
 * counted): up to @p max of them into @p blocks; returns how many the file
 * has (more than max when blocks was too short). SQK_ERR_ARG for another type.
 */
SQK_API int sqk_inode_blocks(const struct sqk_inode *ino, struct sqk_block *blocks, size_t max,
			     size_t struct_size);
#define sqk_inode_blocks(...) sqk_inode_blocks(__VA_ARGS__, sizeof(struct sqk_block))

/** A directory entry. */
struct sqk_dirent {
	const char *name; /**< NUL-terminated; valid until the next sqk_dir_next() */
	size_t name_len;
	uint64_t ref; /**< the inode's reference */
	uint32_t ino; /**< inode number */
	mode_t type;  /**< S_IFDIR, S_IFREG, S_IFLNK, S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK */
};

/**
 * List the directory @p dir (an open inode); one thread at a time per
 * listing. It is read a few entries at a time and holds no block of the
 * image between calls, so a program may read other inodes and listings
 * meanwhile, and go down a tree with a listing open at each level.
 */
SQK_API int sqk_dir_open(struct sqk_image *img, const struct sqk_inode *dir, struct sqk_dir **out);
/**
 * The next entry (in the image's order: names by their bytes): 1 and *ent,
 * 0 at the end, or an error (a name that is unsafe, "." or ".." or with a
 * '/', entries out of order: the image is corrupt).
 */
SQK_API int sqk_dir_next(struct sqk_dir *d, struct sqk_dirent *ent, size_t struct_size);
#define sqk_dir_next(...) sqk_dir_next(__VA_ARGS__, sizeof(struct sqk_dirent))
/** NULL is ignored. */
SQK_API void sqk_dir_destroy(struct sqk_dir *d);
/**
 * A guard for a program that goes down a tree itself (sqk_dir_next, then
 * sqk_dirent_open): a damaged image can list a directory inside itself,
 * and a walk that follows it never ends. sqk_walk_tree() has its own.
 */
struct sqk_dir_guard;
/** A guard that has seen no directory yet. */
SQK_API int sqk_dir_guard_create(struct sqk_dir_guard **out);
/** NULL is ignored. */
SQK_API void sqk_dir_guard_destroy(struct sqk_dir_guard *g);
/**
 * Entering the directory whose inode number (struct sqk_stat's ino) is
 * @p ino at @p depth (the first at 0): 0; SQK_ERR_LOOP when the guard saw
 * it entered before; SQK_ERR_DEPTH at a depth the library's own walks
 * refuse (4096); SQK_ERR_NOMEM. Not for two threads at once.
 */
SQK_API int sqk_dir_guard_enter(struct sqk_dir_guard *g, uint64_t ino, unsigned depth);

/**
 * Open the inode a directory entry names, checked against the entry: an
 * inode of another type or number than the entry says is SQK_ERR_CORRUPT.
 * Its name is not used: the entry (ref, ino, type) may come from a listing
 * closed since.
 */
SQK_API int sqk_dirent_open(struct sqk_image *img, const struct sqk_dirent *ent,
			    struct sqk_inode **out, size_t struct_size);
#define sqk_dirent_open(...) sqk_dirent_open(__VA_ARGS__, sizeof(struct sqk_dirent))

/**
 * Walking a tree, depth first, each directory's entries in the image's
 * order, from @p path ("" or "/": the whole image; resolved as
 * sqk_inode_open_lstat() resolves it, a walk from a symlink's target when
 * @p path ends with "/"). For each entry (the starting one first) @p visit
 * gets its path in the image ("/a/b"), its stat and the
 * path of an entry seen before with the same inode (a hard link), or NULL.
 * visit returns 0 to go on, 1 not to descend into this directory, or a
 * negative code to stop the walk with it. Loops and unsafe names are
 * SQK_ERR_LOOP and SQK_ERR_BADNAME; the walk's memory follows the depth
 * and the widest directory.
 */
typedef int (*sqk_visit_fn)(void *ctx, const char *path, const struct sqk_stat *st,
			    const char *link_to);
SQK_API int sqk_walk_tree(struct sqk_image *img, const char *path, sqk_visit_fn visit, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
