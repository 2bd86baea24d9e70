/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_BUILD_H
#define SQUASHKIT_BUILD_H

/**
 * @file squashkit/build.h
 * Building an image, as `squashkit mkimage` does: from host directories,
 * archives, listings and pseudo definitions, and from entries the caller
 * adds one by one, all merged into one tree.
 *
 * The image appears only when complete: it is written to a temporary file
 * beside @p path, synced and renamed into place by sqk_build_finish(); a
 * build destroyed before, or one that failed, leaves nothing behind. While
 * a build is open, SIGINT, SIGTERM, SIGHUP and SIGQUIT remove its temporary
 * file before taking their default course. What it writes, every
 * reader of this library, the Linux kernel and squashfs-tools read: a
 * definition the format cannot hold (a symlink target over 4096 bytes, a
 * name over 256, more owners than the id table holds) is refused when it is
 * added or at finish, never written. The output is the same bytes whatever
 * the thread count. A build is used from one thread at a time.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqk_build;
struct sqk_build_opts;

SQK_API struct sqk_build_opts *sqk_build_opts_create(void);
SQK_API void sqk_build_opts_destroy(struct sqk_build_opts *o);
/**
 * Set an option by the long name `squashkit mkimage` gives it, without the
 * dashes, and its value as the command line writes it (NULL for a switch):
 * "compressor" gzip|lzma|lzo|xz|lz4|zstd (default zstd), "level" N,
 * "comp-opt" KEY=VALUE (repeatable), "block-size" (4K..1M, a power of two),
 * "no-fragments", "tail-ends", "no-dedup", "no-sparse", "no-xattrs",
 * "no-hardlinks", "no-export", "no-pad", "all-root", "uid" N, "gid" N,
 * "mtime" TIME, "fstime" TIME (seconds, or a date as mkimage(1) takes it),
 * "exclude" PATTERN (repeatable), "exclude-from" FILE (its patterns, one a
 * line, read when set), "regex", "wildcards", "one-file-system",
 * "named-sources" (sqk_build_add_dir puts the path, a directory or any
 * other file, in the root under its own name), "full-paths" (at its own
 * path, as tar does),
 * "pseudo-warn", "threads" N, "force" (replace an existing image);
 * "memory" SIZE (what the build may hold, K/M/G suffixes, at least 8M;
 * default a quarter of the memory, at most 2G; the rest waits in
 * temporary files, and the image is the same whatever it is) and "tmpdir"
 * DIR (where they go, a directory that exists; default beside the image,
 * or TMPDIR or /tmp for a descriptor);
 * "file-mode" MODE, "dir-mode" MODE, "root-mode" MODE (octal, or symbolic
 * as chmod takes it), "root-uid" N, "root-gid" N; "xattrs-include" REGEX,
 * "xattrs-exclude" REGEX, "xattrs-add" NAME=VALUE (repeatable); "sort"
 * FILE (mksquashfs's sort file, read when set and again by the build);
 * "uncompressed" LIST (of inodes, data, fragments, xattrs, ids: mksquashfs's
 * -noI, -noD, -noF, -noX, -noId); "source-date-epoch" SECONDS (what
 * mkimage takes from SOURCE_DATE_EPOCH, which the library never reads: the
 * default superblock time, and a clamp on newer inode times); "reuse" OLD
 * (repeatable: copy the stored blocks of the earlier image at path OLD
 * that hold the same bytes; an image that cannot serve the build, another
 * compressor or block size, fails sqk_build_create with why, unless
 * "reuse-skip-unfit" is set: then it is left out, as mkimage leaves it
 * with a note, and sqk_build_reuse_why() says why) and
 * "reuse-offset" N|auto (where each OLD starts in its file); "offset" N
 * (the image goes after the first N bytes of the existing file at @p path,
 * which are kept with its mode, or of the block device, in place; bytes
 * after them are replaced only with
 * "force"; with "append", where the image appended to starts);
 * "append" (sqk_build_create adds to the existing image at @p path, as
 * mkimage --append does: see sqk_build_create); "verity" (NULL or
 * "appended": a dm-verity hash tree after the image; a path: into that
 * file), "verity-salt" HEX|random|-, "verity-hash" sha256|sha512,
 * "verity-no-superblock", "verity-root-hash-file" F, "verity-sign" KEY,
 * "verity-cert" CERT, "verity-sig" P7S, "verity-sig-json" F (see
 * squashkit/verity.h and mkimage(1)); "oci" LAYOUT[:REF] (or
 * oci-archive:FILE[:REF]: the OCI image's layers applied in order, before
 * any other source, at the first add or at sqk_build_finish(); digests
 * checked as the blobs stream), "platform" OS/ARCH[/VARIANT] (the image of
 * an index of several; default: this machine's), "oci-layer" N (that layer
 * alone, as an overlayfs lower directory holds it: whiteouts character
 * devices 0/0, opaque directories trusted.overlay.opaque=y); "whiteouts"
 * (the archives sqk_build_add_archive() adds are container layers, applied
 * in order, with their whiteouts, before the next source of another kind
 * or at sqk_build_finish(); no data a later layer removes is written);
 * "file-contexts" FILE (each inode's security.selinux from an SELinux
 * file_contexts, read and checked when set, applied at sqk_build_finish()
 * after the pseudo definitions), "selinux-root" PATH (the paths matched
 * below it), "keep-source-labels" (a source's own label stays). "oci" and
 * "whiteouts" exclude "append"; "oci-layer" and "file-contexts" exclude
 * "no-xattrs".
 * SQK_ERR_ARG (and a message) for an unknown name or a bad value; the
 * codec's settings are checked when the build is created. A build keeps
 * what it needs: the options may be destroyed once it is created.
 */
SQK_API int sqk_build_opts_set(struct sqk_build_opts *o, const char *name, const char *value);

/**
 * Check the compressor's settings of @p o ("level", "comp-opt", with the
 * "compressor" and "block-size" they go with) as sqk_build_create() will,
 * without opening anything: for a front end that says what is wrong with
 * its command line before it touches a file. 0, or SQK_ERR_ARG and a
 * message without a path ("level 30 is out of range for gzip (1..9)",
 * "invalid option 'x=1' for xz", "the xz options given do not go
 * together").
 */
SQK_API int sqk_build_opts_check(const struct sqk_build_opts *o);

/**
 * A pseudo definition (mksquashfs's syntax; see mkimage(1)), or a file of
 * them ("-" is standard input), read and checked now, where it stands
 * among the options, as mkimage reads its --pseudo and --pseudo-file: a
 * link (L) names an entry of an earlier definition. Every build created
 * from @p o applies them at sqk_build_finish(), on top of its sources and
 * before the definitions added to the build itself. SQK_ERR_ARG for a bad
 * definition, the message "WHERE: WHY" (WHERE is "FILE:LINE" or
 * "--pseudo 'DEF'"), and for definitions added once a build was created
 * from @p o; SQK_ERR_IO and the errno for a file that cannot be read.
 */
SQK_API int sqk_build_opts_add_pseudo(struct sqk_build_opts *o, const char *definition);
SQK_API int sqk_build_opts_add_pseudo_file(struct sqk_build_opts *o, const char *path);

/**
 * Called as the build goes: after each file's data is placed, @p done of
 * the @p total bytes of file data it places (the last call has done ==
 * total). From the thread that calls the build.
 */
typedef void (*sqk_build_progress_fn)(void *ctx, uint64_t done, uint64_t total);
SQK_API void sqk_build_opts_progress(struct sqk_build_opts *o, sqk_build_progress_fn fn, void *ctx);
/**
 * Called for what does not stop the build: a line of the "sort" file that
 * names nothing, a pseudo definition left out under "pseudo-warn", times of
 * the sources outside what the format holds (before 1970, after 2106:
 * clamped; said once per build, at the first such entry, with how many);
 * @p where is a path or a definition, @p what says why. Without it they go
 * unsaid.
 */
typedef void (*sqk_build_warn_fn)(void *ctx, const char *where, const char *what);
SQK_API void sqk_build_opts_warn(struct sqk_build_opts *o, sqk_build_warn_fn fn, void *ctx);

/**
 * Start a build of a new image at @p path; with "append", of one added to
 * the existing image there. What the path holds decides how a new image
 * is written: nothing or a regular file, written to a temporary file
 * beside it (".NAME.squashkit-XXXXXX", locked while the build lives) and
 * renamed over it at sqk_build_finish(), removed on a failure, a destroy
 * or SIGINT, SIGTERM, SIGHUP and SIGQUIT; a temporary file of the same
 * path whose writer is gone is removed, and the warning callback told
 * (where: its path); a symlink, followed, where it leads written so (a
 * dangling one gets its target made); a block device, written in place
 * and synced (the four signals are held until sqk_build_destroy(): one
 * fails the build with SQK_ERR_INTR, and destroy dies of it; a failure's
 * message says the device holds a partial image); a fifo or character
 * device, written as a stream (spooled in $TMPDIR, copied out at finish);
 * a directory, never (SQK_ERR_ARG). Anything there but a dangling symlink
 * is SQK_ERR_EXIST without "force". An append keeps the image's compressor, its
 * options and block size ("compressor" and "block-size", when set, must be
 * the image's, else SQK_ERR_ARG; "level", "comp-opt", "force" and "reuse"
 * are refused) and every entry it holds, with its attributes: a source
 * naming a path the image has fails with SQK_ERR_EXIST. It writes in place
 * after the image's last byte, the superblock last; the file is locked
 * against a second append (SQK_ERR_IO, errno EWOULDBLOCK). Until
 * sqk_build_finish() has written the new superblock, a failure, a
 * destroy, or SIGINT, SIGTERM, SIGHUP and SIGQUIT cut the file back to its
 * old bytes. SQK_ERR_IO (and the errno) when the file cannot be opened;
 * SQK_ERR_ARG when it is no regular file or block device, or "offset" is
 * past its end;
 * SQK_ERR_MAGIC and the reader's codes when it holds no image this library
 * reads. After any failure *out is NULL and nothing is left behind.
 */
SQK_API int sqk_build_create(const char *path, const struct sqk_build_opts *o,
			     struct sqk_build **out);
/**
 * Start a build of an image written through the open descriptor @p fd.
 * A regular file open at its start, not for appending (and read and
 * written), gets the image from its start and in place, the superblock
 * last; sqk_build_finish() syncs it. Anything else (a pipe, a fifo, a
 * character device, a socket, a file open for appending or at a later
 * position) gets it as a stream at its position: spooled in $TMPDIR and
 * copied out by sqk_build_finish() (a reader gone is SQK_ERR_IO, EPIPE;
 * never SIGPIPE). The descriptor stays the caller's, and so do its bytes
 * on a failure: nothing is removed. Its file is never read as a source.
 * "append" and "offset" are SQK_ERR_ARG.
 */
SQK_API int sqk_build_create_fd(int fd, const struct sqk_build_opts *o, struct sqk_build **out);
/**
 * The contents of the host directory @p dir become the root's (merged with
 * others); with "named-sources" or "full-paths", as those options say.
 */
SQK_API int sqk_build_add_dir(struct sqk_build *b, const char *dir);
/** An archive libarchive reads (tar, cpio, zip, compressed or not); "-" is standard input. */
SQK_API int sqk_build_add_archive(struct sqk_build *b, const char *path);
/** A listing file (see mkimage(1), --listing). */
SQK_API int sqk_build_add_listing(struct sqk_build *b, const char *path);
/**
 * One pseudo definition, or a file of them (mksquashfs's syntax; see
 * mkimage(1)). They are checked when added and applied by
 * sqk_build_finish(), on top of everything else, as mkimage applies them.
 */
SQK_API int sqk_build_add_pseudo(struct sqk_build *b, const char *definition);
SQK_API int sqk_build_add_pseudo_file(struct sqk_build *b, const char *path);

/** The attributes of an entry added one by one. */
struct sqk_attr {
	mode_t mode;	   /**< permission bits (07777); the type comes from the call */
	uint32_t uid, gid; /**< owner */
	uint32_t mtime;	   /**< seconds since 1970 */
};

/**
 * Entries one by one, at @p path ("a/b" or "/a/b"). Missing parent
 * directories are made (0755, root, the build's time: "mtime" when set,
 * else the newest time of the image's entries, as a root no source
 * describes gets) and may be added later with their own attributes; a
 * path added twice is SQK_ERR_EXIST.
 * A refused entry (a path taken, a bad name, a target too long) leaves the
 * build as it was; any other failure fails the build.
 */
SQK_API int sqk_build_mkdir(struct sqk_build *b, const char *path, const struct sqk_attr *a,
			    size_t struct_size);
#define sqk_build_mkdir(...) sqk_build_mkdir(__VA_ARGS__, sizeof(struct sqk_attr))
/** A file read from the host file @p host_path when the image is written. */
SQK_API int sqk_build_add_file(struct sqk_build *b, const char *path, const struct sqk_attr *a,
			       const char *host_path, size_t struct_size);
#define sqk_build_add_file(...) sqk_build_add_file(__VA_ARGS__, sizeof(struct sqk_attr))
/** A file holding @p size bytes of @p data (copied). */
SQK_API int sqk_build_add_file_data(struct sqk_build *b, const char *path, const struct sqk_attr *a,
				    const void *data, size_t size, size_t struct_size);
#define sqk_build_add_file_data(...) sqk_build_add_file_data(__VA_ARGS__, sizeof(struct sqk_attr))
/**
 * A file of @p size bytes that @p read supplies when the image is written
 * (by sqk_build_finish(), in the order of the image's data, which a "sort"
 * file sets), in order, a block at a time: read(ctx, off, buf, len) fills
 * buf with len bytes at off and returns 0, or a negative code that fails
 * the build (its message names the entry). @p ctx must stay valid until
 * sqk_build_finish() returns.
 */
typedef int (*sqk_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);
SQK_API int sqk_build_add_file_fn(struct sqk_build *b, const char *path, const struct sqk_attr *a,
				  uint64_t size, sqk_read_fn read, void *ctx, size_t struct_size);
#define sqk_build_add_file_fn(...) sqk_build_add_file_fn(__VA_ARGS__, sizeof(struct sqk_attr))
SQK_API int sqk_build_symlink(struct sqk_build *b, const char *path, const struct sqk_attr *a,
			      const char *target, size_t struct_size);
#define sqk_build_symlink(...) sqk_build_symlink(__VA_ARGS__, sizeof(struct sqk_attr))
/** A device (S_IFBLK, S_IFCHR with @p rdev), a fifo (S_IFIFO) or a socket (S_IFSOCK). */
SQK_API int sqk_build_mknod(struct sqk_build *b, const char *path, mode_t type,
			    const struct sqk_attr *a, dev_t rdev, size_t struct_size);
#define sqk_build_mknod(...) sqk_build_mknod(__VA_ARGS__, sizeof(struct sqk_attr))
/** A hard link: @p path names the entry already at @p existing. */
SQK_API int sqk_build_link(struct sqk_build *b, const char *path, const char *existing);
/** An extended attribute ("user.x", "trusted.x", "security.x") of the entry at @p path. */
SQK_API int sqk_build_set_xattr(struct sqk_build *b, const char *path, const char *name,
				const void *value, size_t size);

/** Write the image: data, tables, superblock; sync; rename into place. */
SQK_API int sqk_build_finish(struct sqk_build *b);
/**
 * A figure of the finished build by the name `mkimage --stats --json`
 * gives it: "bytes_used", "image_size", "uncompressed", "data_bytes",
 * "inode_table_bytes", "directory_table_bytes", "mkfs_time", the counts
 * "inodes", "files", "directories", "symlinks", "block_devices",
 * "char_devices", "fifos", "sockets", "hardlinks", "blocks", "raw_blocks",
 * "compressed_blocks", "fragments", "ids", "xattr_ids", and "dedup_files",
 * "dedup_bytes", "dedup_tails", "dedup_tail_bytes", "sparse_blocks",
 * "sparse_bytes", "lseeks", "xattrs_skipped", "reused_blocks",
 * "reused_bytes", and the settings it wrote with, "block_size" and
 * "threads"; with "oci", "oci_layers" (how many layers the image has,
 * whichever "oci-layer" was built); with "verity", "verity_reread_blocks"
 * (blocks of the image read back to hash them: a block rewound over, or
 * an image appended to); "memory" (its budget) and what did not fit in it
 * and went to temporary files: "spill_bytes", "spill_files", "spill_runs"
 * (sorted runs written) and "spill_merges" (runs merged into one).
 * SQK_ERR_ARG before the build is finished, but for the "spill_" figures,
 * which may be read while it runs, from any thread (a progress bar).
 */
SQK_API int sqk_build_stat(const struct sqk_build *b, const char *name, uint64_t *value);
/**
 * The name of the compressor the build writes with ("gzip", ...): the
 * option's, or with "append" the image's. Valid while the build is.
 */
SQK_API const char *sqk_build_compressor(const struct sqk_build *b);
/**
 * What the earlier image @p i (the i-th "reuse" option, from 0) gave the
 * finished build, by the names `mkimage --stats --json` gives them: "blocks"
 * copied (data and fragment), their uncompressed "bytes" and
 * "stored_bytes", candidates "rejected" (other bytes) and "unreadable",
 * entries of its tree "skipped" (unreadable), and "same_compression" (1
 * when the blocks copied are what this build makes of their bytes;
 * SQK_ERR_NOENT when none was copied), and "errno": that of the last
 * failed read of its file (0 when none: what did not decode was damage).
 * SQK_ERR_NOENT for an image left out ("reuse-skip-unfit"); SQK_ERR_ARG
 * before the build is finished, for an @p i past the images or an unknown
 * name.
 */
SQK_API int sqk_build_reuse_stat(const struct sqk_build *b, size_t i, const char *name,
				 uint64_t *value);
/**
 * Why the earlier image @p i cannot serve the build and was left out
 * ("compressed with gzip, not zstd", ...), "" when it serves, NULL for an
 * @p i past the images. Valid from sqk_build_create() on, while the build is.
 */
SQK_API const char *sqk_build_reuse_why(const struct sqk_build *b, size_t i);
/**
 * The last failure of the build's driver (a source, an entry, the writing
 * of the image), in parts, for a caller that words its own messages; the
 * message sqk_error_message() gave is made of them. Returns its code (0
 * when none failed). *path: the source or entry path it was about ("" when
 * it was the image's own); *words: what went wrong ("" when the code's or
 * the errno's words say it); *errnum: the errno behind it, the source's or
 * else the image file's (0 when none); *in_image: 1 when, with "append", a
 * source named an entry the image holds already. Each pointer may be NULL;
 * the strings last until the next call on the build. With @p b NULL: the
 * driver's failure that failed the last sqk_build_create() or
 * sqk_build_create_fd() in this thread (step "driver": an image appended
 * to that cannot be read back, an exclude pattern that does not compile),
 * 0 when it was not the driver's; the strings last until the next create
 * in this thread.
 */
SQK_API int sqk_build_failure(const struct sqk_build *b, const char **path, const char **words,
			      int *errnum, int *in_image);
/**
 * Which step failed, for a caller that words its own messages with the
 * code, sqk_error_errno() and its own path. With @p b NULL: the step of
 * the last sqk_build_create() or sqk_build_create_fd() that failed in this
 * thread, "" after one that succeeded: "options" (the compressor's
 * settings, options that exclude each other), "sort" (the sort file),
 * "reuse" (an earlier image: opened at "reuse-offset", or unfit),
 * "offset" (the existing file's bytes kept in front: SQK_ERR_IO, it cannot
 * be opened; SQK_ERR_ARG, no regular file or block device;
 * SQK_ERR_TRUNCATED, fewer bytes;
 * else bytes after them without "force"), "output" (the temporary file
 * beside the path: SQK_ERR_EXIST, the path exists without "force";
 * SQK_ERR_ARG, it is a directory; SQK_ERR_OVERFLOW, the path is too long;
 * SQK_ERR_IO, the temporary file cannot be made), "output-open" (the path
 * itself: its symlinks cannot be followed, or the block device, fifo or
 * character device cannot be opened: SQK_ERR_IO and the errno),
 * "output-spool" (a stream's spool file in $TMPDIR cannot be made:
 * SQK_ERR_IO and the errno; also of sqk_build_create_fd),
 * "offset-copy" (copying
 * the bytes kept), "append" (the image added to: it does not open, or
 * no build writes one like it; or a compressor or block size that is not
 * its own), and why it cannot be opened as the words of a caller say it:
 * "append-open" (open(2) failed: the errno; ENOENT, nothing there),
 * "append-not-regular", "append-locked" (another process appends to it),
 * "append-past-end" ("offset" is at or past its end), "append-not-image"
 * (it ends before a superblock would), "append-io" (a read failed: the
 * errno); "descriptor", "driver".
 * With a build: the step of its last failure, "" when none: "source" (an
 * add of a directory, archive or listing, and the OCI image or the layers
 * applied before the next add or the finish), "entry" (an entry added one
 * by one), "pseudo" (applying the pseudo definitions: SQK_ERR_ARG is one
 * that clashes with what the sources gave), "label" (the SELinux labels),
 * "write" (the image being written), "commit" (its sync and rename). The
 * string is static.
 */
SQK_API const char *sqk_build_failed_step(const struct sqk_build *b);
/** The steps sqk_build_failed_step() names, as values to branch on. */
enum sqk_build_step {
	SQK_STEP_NONE = 0,		  /**< "": none failed */
	SQK_STEP_OPTIONS = 1,		  /**< "options" */
	SQK_STEP_SORT = 2,		  /**< "sort" */
	SQK_STEP_REUSE = 3,		  /**< "reuse" */
	SQK_STEP_OFFSET = 4,		  /**< "offset" */
	SQK_STEP_OUTPUT = 5,		  /**< "output" */
	SQK_STEP_OUTPUT_OPEN = 6,	  /**< "output-open" */
	SQK_STEP_OUTPUT_SPOOL = 7,	  /**< "output-spool" */
	SQK_STEP_OFFSET_COPY = 8,	  /**< "offset-copy" */
	SQK_STEP_APPEND = 9,		  /**< "append" */
	SQK_STEP_APPEND_OPEN = 10,	  /**< "append-open" */
	SQK_STEP_APPEND_NOT_REGULAR = 11, /**< "append-not-regular" */
	SQK_STEP_APPEND_LOCKED = 12,	  /**< "append-locked" */
	SQK_STEP_APPEND_PAST_END = 13,	  /**< "append-past-end" */
	SQK_STEP_APPEND_NOT_IMAGE = 14,	  /**< "append-not-image" */
	SQK_STEP_APPEND_IO = 15,	  /**< "append-io" */
	SQK_STEP_DESCRIPTOR = 16,	  /**< "descriptor" */
	SQK_STEP_DRIVER = 17,		  /**< "driver" */
	SQK_STEP_VERITY = 18,		  /**< "verity" */
	SQK_STEP_SOURCE = 19,		  /**< "source" */
	SQK_STEP_ENTRY = 20,		  /**< "entry" */
	SQK_STEP_PSEUDO = 21,		  /**< "pseudo" */
	SQK_STEP_WRITE = 22,		  /**< "write" */
	SQK_STEP_COMMIT = 23,		  /**< "commit" */
	SQK_STEP_LABEL = 24,		  /**< "label" */
	SQK_STEP_OTHER = 255,		  /**< a step a later library names */
};
/**
 * sqk_build_failed_step() as a value: the same step, for a caller that
 * branches on it (@p b NULL: the last create in this thread that failed).
 */
SQK_API enum sqk_build_step sqk_build_failed_step_id(const struct sqk_build *b);
/**
 * The bytes of the output file so far (with "offset", the bytes kept in
 * front too; with "append", the image appended to), for a progress bar
 * while sources are read and before the progress callback has a total.
 * Unlike every other call on a build, safe from another thread while the
 * build runs (until sqk_build_destroy()); after sqk_build_finish() the
 * figure may be 0.
 */
SQK_API uint64_t sqk_build_written(const struct sqk_build *b);
/** Free the build; one not finished leaves nothing behind. NULL is ignored. */
SQK_API void sqk_build_destroy(struct sqk_build *b);

#ifdef __cplusplus
}
#endif

#endif
