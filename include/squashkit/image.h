/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_IMAGE_H
#define SQUASHKIT_IMAGE_H

/**
 * @file squashkit/image.h
 * Opening an image, its superblock and layout, and the counters of its
 * caches.
 *
 * An open image (struct sqk_image) reads every block through shared
 * caches: metadata, fragment and data blocks (and, optionally, compressed
 * blocks), each a fixed number of entries with a wait policy for when all
 * are in use. Once open, an image may be used from any number of threads at
 * once by every function that takes it, until sqk_image_destroy().
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqk_image;

/** How a waiting thread is woken when every entry of a cache is in use. */
enum sqk_policy {
	SQK_POLICY_HERD = 0,	  /**< every release wakes every waiter (the kernel's) */
	SQK_POLICY_EXCLUSIVE = 1, /**< wake one; a freed entry can sit unclaimed */
	SQK_POLICY_KEYED = 2,	  /**< wake one per free entry, all who want a published block */
};

/** The caches of an open image. */
enum sqk_cache_kind {
	SQK_CACHE_METADATA = 0,	  /**< metadata blocks: inodes, directories, tables */
	SQK_CACHE_FRAGMENT = 1,	  /**< fragment blocks (tails of files) */
	SQK_CACHE_DATA = 2,	  /**< data blocks */
	SQK_CACHE_COMPRESSED = 3, /**< compressed blocks as stored (none unless asked for) */
};

/**
 * Options for opening an image: an opaque set, made with
 * sqk_open_opts_create() (every setting at its default), changed with the
 * setters, given to an open function, and freed by the caller. Not to be
 * changed from two threads at once.
 */
struct sqk_open_opts;

SQK_API struct sqk_open_opts *sqk_open_opts_create(void);
SQK_API void sqk_open_opts_destroy(struct sqk_open_opts *o);

/** The image starts @p offset bytes into the file (an image inside a firmware blob). */
SQK_API int sqk_open_opts_set_offset(struct sqk_open_opts *o, uint64_t offset);
/** Find the one superblock in the file (an AppImage); several or none is SQK_ERR_MAGIC. */
SQK_API int sqk_open_opts_set_offset_auto(struct sqk_open_opts *o);
/**
 * The entries of one cache (default: metadata 8 and fragment 3, as the
 * kernel has them, data one per online CPU, compressed 0). 0 is allowed
 * for the compressed-block cache only.
 */
SQK_API int sqk_open_opts_set_cache(struct sqk_open_opts *o, enum sqk_cache_kind kind,
				    unsigned entries);
/** The wait policy of every cache (default SQK_POLICY_KEYED). */
SQK_API int sqk_open_opts_set_policy(struct sqk_open_opts *o, enum sqk_policy policy);
/**
 * More fragment cache entries when the image's blocks are small: enough to
 * hold @p bytes of fragment blocks (default 0: the entries alone). Readers
 * of many small files packed a little out of order keep their tails.
 */
SQK_API int sqk_open_opts_set_fragment_bytes(struct sqk_open_opts *o, size_t bytes);
/** Decompressors shared by all threads (default: one per online CPU); 1: one behind a lock. */
SQK_API int sqk_open_opts_set_decompressors(struct sqk_open_opts *o, unsigned n);
/**
 * Decode blocks as the Linux kernel does (default: off). Readers decode
 * gzip with a faster decoder that also reads a few damaged blocks whose
 * checksum still matches; a checker that must agree with the kernel sets
 * this. sqk_check_path() and sqk_check_io() always do.
 */
SQK_API int sqk_open_opts_set_kernel_decode(struct sqk_open_opts *o, int on);
/**
 * Set an option by the name the command line gives it, from its text:
 * "cache" ("meta=N,frag=N,data=N,comp=N", any of them: the entries of
 * each cache, up to 65536; only comp may be 0), "cache-policy" ("herd",
 * "exclusive", "keyed"), "decompressors" (N, at least 1). SQK_ERR_ARG for
 * an unknown name or a bad value, o unchanged; sqk_error_message() then
 * says it as a usage line would ("invalid cache sizes 'x'").
 */
SQK_API int sqk_open_opts_set(struct sqk_open_opts *o, const char *name, const char *value);
/**
 * Memory for what a reader keeps about the whole image (a walk's hard
 * links and the directories it entered, the check's record of every
 * inode): at most @p bytes (0, the default: a quarter of the memory, at
 * most 256 MiB); the rest goes to temporary files, which have no name, so
 * that no exit leaves one behind.
 */
SQK_API int sqk_open_opts_set_memory(struct sqk_open_opts *o, uint64_t bytes);
/** Where those temporary files go (default NULL: $TMPDIR, else /tmp). */
SQK_API int sqk_open_opts_set_tmpdir(struct sqk_open_opts *o, const char *dir);

/**
 * Reading an image through callbacks: a file in memory, a network stream
 * with random access, a file inside another container.
 */
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

/** Open the image in the file at @p path (opts may be NULL). */
SQK_API int sqk_image_open_path(const char *path, const struct sqk_open_opts *opts,
				struct sqk_image **out);
/** Open the image read from @p fd; the image uses its own duplicate, the caller keeps fd. */
SQK_API int sqk_image_open_fd(int fd, const struct sqk_open_opts *opts, struct sqk_image **out);
/** Open the image read through @p io (copied); io->close is called when the image closes. */
SQK_API int sqk_image_open_io(const struct sqk_io *io, const struct sqk_open_opts *opts,
			      struct sqk_image **out, size_t struct_size);
#define sqk_image_open_io(...) sqk_image_open_io(__VA_ARGS__, sizeof(struct sqk_io))
/**
 * Close the image and free what it holds. NULL is ignored. Every listing
 * and comparison of it is destroyed before; its inodes may outlive it
 * (inode.h). After a failed open, *out is NULL.
 */
SQK_API void sqk_image_destroy(struct sqk_image *img);

/**
 * Where SquashFS images start inside a file (an AppImage's runtime before
 * one, a firmware blob): each byte position at which a superblock passes
 * every check against the bytes after it, in increasing order; the offset
 * to open it at. Only superblocks that start before byte @p limit count
 * (UINT64_MAX: the whole file); the first @p max positions go to @p found.
 * Returns how many there are (more than max when found was too short), or
 * a negative code when the file could not be opened or read.
 */
SQK_API int sqk_image_find_path(const char *path, uint64_t limit, uint64_t *found, size_t max);
/** The same in the file read from @p fd (the caller keeps fd; its offset is not used). */
SQK_API int sqk_image_find_fd(int fd, uint64_t limit, uint64_t *found, size_t max);
/** The same in what @p io reads (copied; io->close is called before this returns). */
SQK_API int sqk_image_find_io(const struct sqk_io *io, uint64_t limit, uint64_t *found, size_t max,
			      size_t struct_size);
#define sqk_image_find_io(...) sqk_image_find_io(__VA_ARGS__, sizeof(struct sqk_io))

/** Facts from the superblock and the table layout. */
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
	/* Fields added since the first version (a program built before lacks them). */
	uint16_t version_major; /**< the format's version: 4 ... */
	uint16_t version_minor; /**< ... .0 */
};

/** Fill @p info; the strings live as long as the image. */
SQK_API int sqk_image_info(const struct sqk_image *img, struct sqk_image_info *info,
			   size_t struct_size);
#define sqk_image_info(...) sqk_image_info(__VA_ARGS__, sizeof(struct sqk_image_info))

/** One setting of the compressor, as `squashkit inspect` shows it. */
struct sqk_comp_option {
	const char *key; /**< "level", "dict-size", ...; lives as long as the library */
	char value[64];	 /**< its value as text ("9", "1048576", "x86,arm") */
};

/**
 * The compressor's settings: up to @p max of them in @p opts; returns how
 * many there are (more than max when opts was too short).
 */
SQK_API int sqk_image_compressor_options(const struct sqk_image *img, struct sqk_comp_option *opts,
					 int max, size_t struct_size);
#define sqk_image_compressor_options(...)                                                          \
	sqk_image_compressor_options(__VA_ARGS__, sizeof(struct sqk_comp_option))

/** The tables of an image, in the order they follow the data area. */
enum sqk_table_kind {
	SQK_TABLE_INODE = 0,  /**< the inodes */
	SQK_TABLE_DIR = 1,    /**< the directory listings */
	SQK_TABLE_FRAG = 2,   /**< the fragment table (where each fragment block lies) */
	SQK_TABLE_EXPORT = 3, /**< the export table (NFS: inode number to inode) */
	SQK_TABLE_ID = 4,     /**< the ids (uids and gids) */
	SQK_TABLE_XATTR = 5,  /**< the xattr keys and values, and their id table */
};

/**
 * The superblock, every field as the image stores it (SquashFS 4.0). A
 * table pointer is UINT64_MAX when the table is absent.
 */
struct sqk_superblock {
	uint32_t magic;		 /**< 0x73717368 ("hsqs") */
	uint32_t inode_count;	 /**< inodes in the image */
	uint32_t mkfs_time;	 /**< seconds since 1970 */
	uint32_t block_size;	 /**< data block size in bytes */
	uint32_t fragment_count; /**< fragment blocks */
	uint16_t compressor;	 /**< its id: 1 gzip, 2 lzma, 3 lzo, 4 xz, 5 lz4, 6 zstd */
	uint16_t block_log;	 /**< log2 of block_size */
	uint16_t flags;		 /**< the flag word (sqk_superblock_flag()) */
	uint16_t id_count;	 /**< entries of the id table */
	uint16_t version_major;	 /**< 4 */
	uint16_t version_minor;	 /**< 0 */
	uint64_t root_inode;	 /**< the root's inode reference, as stored */
	uint64_t bytes_used;	 /**< the image's length */
	uint64_t id_table;	 /**< where the id table's list of blocks lies */
	uint64_t xattr_table;	 /**< where the xattr id table's header lies */
	uint64_t inode_table;	 /**< where the inode table starts */
	uint64_t dir_table;	 /**< where the directory table starts */
	uint64_t fragment_table; /**< where the fragment table's list of blocks lies */
	uint64_t export_table;	 /**< where the export table's list of blocks lies */
	uint64_t root_block;	 /**< root_inode's metadata block, from the inode table's start */
	uint32_t root_offset;	 /**< root_inode's offset into that block, decompressed */
};

/** Fill @p sb with the superblock of @p img. Thread-safe. */
SQK_API int sqk_image_superblock(const struct sqk_image *img, struct sqk_superblock *sb,
				 size_t struct_size);
#define sqk_image_superblock(...) sqk_image_superblock(__VA_ARGS__, sizeof(struct sqk_superblock))
/**
 * The entries of a lookup table of @p img: SQK_TABLE_FRAG (fragment
 * blocks), SQK_TABLE_EXPORT (inodes), SQK_TABLE_ID (uids and gids),
 * SQK_TABLE_XATTR (xattr ids, from its header). SQK_ERR_NOENT when the
 * image has no such table, SQK_ERR_ARG for the inode and directory tables.
 */
SQK_API int sqk_image_table_entries(const struct sqk_image *img, enum sqk_table_kind kind,
				    uint64_t *entries);

/**
 * The flag @p i (from 0) of the superblock's flag word, in the order
 * `squashkit inspect` lists them: its name in @p name ("exportable",
 * "duplicates", "no_fragments", ..., "no_xattrs", "uncompressed_ids",
 * "check"), and 1 when @p sb has it set, 0 when not. SQK_ERR_ARG past the
 * last flag.
 */
SQK_API int sqk_superblock_flag(const struct sqk_superblock *sb, unsigned i, const char **name,
				size_t struct_size);
#define sqk_superblock_flag(...) sqk_superblock_flag(__VA_ARGS__, sizeof(struct sqk_superblock))

/**
 * The counters of one cache by name, as `--stats --json` names them
 * ("lookups", "hits", "fills", "wakeups", "spurious_wakeups", ...; see
 * sqk_counter_names()), and for the image as a whole (kind ignored)
 * "decompressions", "temporary_files" (made by what its readers keep
 * about all of it, past sqk_open_opts_set_memory()) and "spilled" (bytes
 * written to them). SQK_ERR_ARG for an unknown name, SQK_ERR_NOENT for a
 * cache the image does not have. Thread-safe; the values are a snapshot.
 */
SQK_API int sqk_image_counter(struct sqk_image *img, enum sqk_cache_kind kind, const char *name,
			      uint64_t *value);
/**
 * The bytes read from the image's file so far, by every reader of the
 * image: data and metadata blocks as stored, a block read twice counted
 * twice. Against sqk_image_info()'s bytes_used it measures the progress
 * of a whole-image extraction, read by another thread while it runs (a
 * progress display polls it). Thread-safe, a snapshot, costs nothing to
 * the readers.
 */
SQK_API uint64_t sqk_image_bytes_read(const struct sqk_image *img);

/** Every counter name sqk_image_counter() takes, in the order `--stats` prints, NULL-ended. */
SQK_API const char *const *sqk_counter_names(void);

/**
 * A rate made of the counters of one cache, by the name `--stats --json`
 * gives it: "unclaimed_free_ms" (how long freed entries sat unclaimed while
 * threads waited, in milliseconds), "decompressions_per_block" (fills per
 * distinct block), "wakeups_per_release" (wakeups per release that woke
 * anyone), or "hit_ratio" (lookups served without a fill of their own).
 * SQK_ERR_ARG for an unknown name, SQK_ERR_NOENT for a cache the image
 * does not have. Thread-safe; the counters are a snapshot.
 */
SQK_API int sqk_image_rate(struct sqk_image *img, enum sqk_cache_kind kind, const char *name,
			   double *value);
/** The rates `--stats` prints, in its order, NULL-terminated (sqk_image_rate() takes them). */
SQK_API const char *const *sqk_rate_names(void);

#ifdef __cplusplus
}
#endif

#endif
