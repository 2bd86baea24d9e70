/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_BUILD_H
#define SQK_VERITY_BUILD_H

/*
 * A hash tree made while an image is written. The writer writes through
 * the build's file, a wrapper around its output: each block of the image
 * is hashed once all of it has been written, from the bytes in hand,
 * without reading them back. Block 0, which the superblock and the
 * compressor options end up in last, is kept in memory and hashed at the
 * end. A write behind what was hashed (the writer rewinds over a file it
 * found again) makes the blocks it touches unhashed again; a block left
 * unhashed, or only partly written through the wrapper (an image appended
 * to), is read back and hashed at the end: never a digest of bytes the
 * image no longer holds.
 *
 * At the end the tree goes after the image in its file (the hash area at
 * the image's padded end, as `veritysetup --hash-offset` lays it out), or
 * into a file of its own.
 */
#include <stdint.h>

#include "verity_fmt.h"

struct sqk_file;
struct sqk_verity_build;

enum sqk_verity_salt {
	SQK_VERITY_SALT_GIVEN,	/* p.salt as it is (none is allowed) */
	SQK_VERITY_SALT_RANDOM, /* 32 random bytes, and a random uuid */
	/*
	 * Derived from the image's bytes: the SHA-256 of the root hash the
	 * image has with no salt. It is known only once the image is whole, so
	 * the image is read once more, at the end.
	 */
	SQK_VERITY_SALT_DERIVED,
};

struct sqk_verity_build_opts {
	/* The algorithm, salt (SALT_GIVEN), superblock; the rest is set at the end. */
	struct sqk_verity_params p;
	enum sqk_verity_salt salt;
	/* The hash area's own file, written from its start; NULL: after the image. */
	struct sqk_file *hash_out;
	/* Workers for what is read back at the end. */
	unsigned threads;
	/*
	 * Called once the tree is written, before the finish returns (the
	 * files that go with the image put in place before its superblock);
	 * its error fails the finish. May be NULL.
	 */
	int (*done)(void *ctx);
	void *ctx;
};

/* What was made. */
struct sqk_verity_result {
	struct sqk_verity_params p; /* data_blocks, salt, uuid and hash_offset as written */
	uint8_t root[SQK_VERITY_DIGEST_MAX];
	uint32_t digest;
	uint64_t hash_size;	/* bytes of the hash area, from hash_offset */
	uint64_t reread_blocks; /* blocks read back at the end (block 0 is not counted) */
};

/*
 * A build over image (its bytes from 0; which stays the caller's): 0, or
 * SQK_ERR_UNSUPPORTED for an algorithm this library does not hash with,
 * SQK_ERR_IO when no random bytes can be had (errno), SQK_ERR_NOMEM; or
 * the error of reading the image's first block (which it holds already,
 * appended to), with *out set for its errnum (the caller destroys it).
 */
int sqk_verity_build_create(struct sqk_file *image, const struct sqk_verity_build_opts *o,
			    struct sqk_verity_build **out);
/* The file to write the image through, while the build lives; destroying it does nothing. */
struct sqk_file *sqk_verity_build_file(struct sqk_verity_build *vb);
/*
 * The image is size bytes (a multiple of 4096), of which head (len bytes
 * at offset 0) is still to be written, after this: hash what is left,
 * make the tree, write the hash area. Later writes through the build's
 * file may only be of the head's bytes, as given (SQK_ERR_ARG otherwise).
 * 0, or the error of a read or write, SQK_ERR_NOMEM.
 */
int sqk_verity_build_finish(struct sqk_verity_build *vb, uint64_t size, const void *head,
			    size_t len);
/* Did the finish fail writing the hash area's own file (hash_out)? */
int sqk_verity_build_hash_failed(const struct sqk_verity_build *vb);
/* What the finished build made; NULL before. */
const struct sqk_verity_result *sqk_verity_build_result(const struct sqk_verity_build *vb);
void sqk_verity_build_destroy(struct sqk_verity_build *vb);

/* n random bytes (getrandom): 0, or SQK_ERR_IO. */
int sqk_verity_random(void *buf, size_t n);

#endif
