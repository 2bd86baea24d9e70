/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_VERITY_H
#define SQUASHKIT_VERITY_H

/**
 * @file squashkit/verity.h
 * dm-verity: hash trees in the on-disk format the Linux kernel and
 * `veritysetup` use (version 1, 4096-byte blocks), made while an image is
 * built (see build.h, the "verity" options), checked against a root hash
 * wherever an image is read, with no device-mapper, and signed root
 * hashes.
 *
 * An image opened with a root hash (sqk_open_opts_set_root_hash()) reads
 * every byte through its tree: each read checks the 4 KiB blocks it
 * covers, so everything read from the image (its tables, its files'
 * data) has been checked, or the read fails with SQK_ERR_IO and errno
 * EIO. sqk_check_path() with a root hash checks every block of the image
 * and of its tree and names the files and tables holding a bad one;
 * sqk_verity_check_path() checks the tree alone.
 */
#include <stddef.h>
#include <stdint.h>

#include "build.h"
#include "check.h"
#include "error.h"
#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The hash area starts right after the image, at its end padded to 4096 bytes. */
#define SQK_VERITY_AFTER_IMAGE UINT64_MAX

/** A hash tree's parameters: what veritysetup and the kernel's table need. */
struct sqk_verity_info {
	char root_hash[129]; /**< lowercase hex; "" when not known (found, not given) */
	char salt[513];	     /**< lowercase hex; "" for none */
	char hash[33];	     /**< the algorithm: "sha256", "sha512", ... */
	char uuid[37];	     /**< the superblock's; "" without one */
	int superblock;	     /**< 1 when a verity superblock heads the hash area */
	int in_image_file;   /**< 1 when the area is in the image's file, after the image */
	/**
	 * Where the hash area starts in its file (the superblock's place when
	 * there is one): in the image's file, counted from the image's start
	 * (with an offset, from the offset on, as `losetup -o` shows it).
	 */
	uint64_t hash_offset;
	uint64_t hash_size;   /**< bytes of the area */
	uint64_t data_blocks; /**< blocks of the image the tree covers */
	uint32_t data_block_size, hash_block_size;
	uint32_t hash_type; /**< 1 (0 is Chrome OS's) */
};

/**
 * The tree a finished build made with "verity": 0, SQK_ERR_NOENT when
 * the build made none, SQK_ERR_ARG before it is finished.
 */
SQK_API int sqk_build_verity(const struct sqk_build *b, struct sqk_verity_info *info,
			     size_t struct_size);
#define sqk_build_verity(...) sqk_build_verity(__VA_ARGS__, sizeof(struct sqk_verity_info))

/**
 * Add a hash tree to the existing image at @p path (written by any
 * SquashFS writer), as a build with "verity" makes one, by the options of
 * @p o that say how: "verity" (appended, the default, or FILE),
 * "verity-salt", "verity-hash", "verity-no-superblock",
 * "verity-root-hash-file", "verity-sign", "verity-cert", "verity-sig",
 * "verity-sig-json", and "offset" (where the image starts in its file),
 * "threads", "force", "source-date-epoch". The image is read once (twice
 * with a salt made of its bytes), padded with zeros to a multiple of 4096
 * bytes in its file when it is not, and the area written after it, or into
 * its own file. Bytes after the image (an earlier area) are replaced only
 * with "force" (else SQK_ERR_EXIST). The file is locked against a second
 * writer; a failure or a signal before the tree is whole and synced cuts
 * it back to its old length (with "force", to the image's end). @p info
 * gets what was made.
 */
SQK_API int sqk_verity_add(const char *path, const struct sqk_build_opts *o,
			   struct sqk_verity_info *info, size_t struct_size);
#define sqk_verity_add(...) sqk_verity_add(__VA_ARGS__, sizeof(struct sqk_verity_info))

/**
 * Read the image through its hash tree, checked against @p hex (the root
 * hash, as `veritysetup format` prints it). The area is found after the
 * image, unless sqk_open_opts_set_verity_area() says where. SQK_ERR_ARG
 * for hex that is no hash.
 */
SQK_API int sqk_open_opts_set_root_hash(struct sqk_open_opts *o, const char *hex);
/**
 * Where the hash area is: in the file at @p hash_file (NULL: the image's
 * own file), @p offset bytes in (SQK_VERITY_AFTER_IMAGE: right after the
 * image in its own file, or from the start of hash_file).
 */
SQK_API int sqk_open_opts_set_verity_area(struct sqk_open_opts *o, const char *hash_file,
					  uint64_t offset);
/**
 * The hash area has no superblock (veritysetup --no-superblock): the tree
 * starts where the area does, made with the algorithm @p hash (NULL:
 * sha256) and the salt @p salt (hex; "-" or NULL for none), over the
 * image padded to 4096 bytes. SQK_ERR_ARG for an unknown algorithm or a
 * salt that is no hex of at most 256 bytes.
 */
SQK_API int sqk_open_opts_set_verity_no_superblock(struct sqk_open_opts *o, const char *hash,
						   const char *salt);
/**
 * For sqk_check_path() and sqk_verity_check_path(): also check that
 * @p p7s (a detached PKCS#7 signature in DER, as the kernel and systemd
 * take them) signs the root hash by the key of the certificate in
 * @p cert (PEM). Its problem's check is "verity-signature".
 */
SQK_API int sqk_open_opts_set_verity_signature(struct sqk_open_opts *o, const char *p7s,
					       const char *cert);

/**
 * The hash area of an open image: the one it is read through (root hash
 * set), else the one whose superblock follows the image (root_hash "").
 * 0, or SQK_ERR_NOENT when there is none.
 */
SQK_API int sqk_image_verity(struct sqk_image *img, struct sqk_verity_info *info,
			     size_t struct_size);
#define sqk_image_verity(...) sqk_image_verity(__VA_ARGS__, sizeof(struct sqk_verity_info))

/** A block that does not match its hash tree. */
struct sqk_verity_block {
	int level;	  /**< -1: a data block of the image; else a hash block of that level */
	uint64_t block;	  /**< its index: data block i holds the image's bytes i*4096.. */
	uint64_t pos;	  /**< where it lies in its file */
	uint64_t covers;  /**< a hash block: the first data block it stands for ... */
	uint64_t ncovers; /**< ... and how many */
	char what[160];	  /**< what is wrong, in words */
};
/**
 * How many blocks failed reads of an image opened with a root hash so
 * far, and the first of them in @p first (may be NULL). Thread-safe.
 */
SQK_API uint64_t sqk_image_verity_failures(struct sqk_image *img, struct sqk_verity_block *first,
					   size_t struct_size);
#define sqk_image_verity_failures(...)                                                             \
	sqk_image_verity_failures(__VA_ARGS__, sizeof(struct sqk_verity_block))

/**
 * Check the image at @p path against its hash tree alone, as `veritysetup
 * verify` does (the root hash and the area as @p opts say), with
 * @p threads workers: every data block, every hash block, the bytes of
 * hash blocks no digest uses, and the signature when one is given. When a
 * block is bad, the image's structures are read to name the files and
 * tables holding it. The problems' checks are "verity" and
 * "verity-signature". 0 when the check was made; an error when it could
 * not be (a file that cannot be read, no root hash set), with *out NULL.
 */
SQK_API int sqk_verity_check_path(const char *path, const struct sqk_open_opts *opts,
				  unsigned threads, struct sqk_report **out);
/** The same for an image read through callbacks (the hash area in its own file, or after it). */
SQK_API int sqk_verity_check_io(const struct sqk_io *io, const struct sqk_open_opts *opts,
				unsigned threads, struct sqk_report **out, size_t struct_size);
#define sqk_verity_check_io(...) sqk_verity_check_io(__VA_ARGS__, sizeof(struct sqk_io))

/**
 * The tree a check with a root hash checked (sqk_check_path(),
 * sqk_verity_check_path()): 0, or SQK_ERR_NOENT when it checked none (no
 * root hash, or no area found: a problem says why).
 */
SQK_API int sqk_report_verity(const struct sqk_report *r, struct sqk_verity_info *info,
			      size_t struct_size);
#define sqk_report_verity(...) sqk_report_verity(__VA_ARGS__, sizeof(struct sqk_verity_info))

/**
 * Does the detached PKCS#7 signature in the file @p p7s sign @p root_hex
 * by the key of the certificate in @p cert? 0 when it does; SQK_ERR_CORRUPT
 * when it does not (or is no signature); SQK_ERR_IO and the errno when a
 * file cannot be read; SQK_ERR_ARG when @p cert holds no certificate.
 */
SQK_API int sqk_verity_signature_check(const char *root_hex, const char *p7s, const char *cert);

#ifdef __cplusplus
}
#endif

#endif
