/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_AREA_H
#define SQK_VERITY_AREA_H

/*
 * A hash area to read or check against a root hash: found where it is
 * said to be, its superblock read (or its parameters given when it has
 * none), its tree's geometry checked against the files that hold it.
 */
#include <stdint.h>

#include "verity_fmt.h"
#include "verity_hash.h"

struct sqk_file;

/* Where the area is after the image: at the image's end, padded to 4096 bytes. */
#define SQK_VERITY_AT_END UINT64_MAX

/* Where a hash area is and what a caller knows of it. */
struct sqk_verity_where {
	uint8_t root[SQK_VERITY_DIGEST_MAX];
	uint32_t root_len; /* bytes of root: the digest's size */
	/* The file holding the area; NULL: the image's own file. */
	const char *hash_path;
	/* Where the area starts in its file; SQK_VERITY_AT_END: at the image's padded end. */
	uint64_t offset;
	/* No superblock: the tree starts at offset, made with these. */
	int no_superblock;
	char algorithm[33]; /* "" is sha256 */
	uint16_t salt_size;
	uint8_t salt[SQK_VERITY_SALT_MAX];
	uint64_t data_blocks; /* 0: the image's padded size in blocks */
};

struct sqk_verity_area {
	struct sqk_verity_params p;
	struct sqk_verity_geo g;
	struct sqk_verity_hasher h;
	uint8_t root[SQK_VERITY_DIGEST_MAX];
	struct sqk_file *hash; /* holds the area */
	int own_hash;	       /* hash was opened here */
	uint64_t image_end;    /* the image's padded end, as the caller read it */
};

/*
 * Open the area w says, for the image in image (from its start), whose
 * SquashFS superblock gives end, its padded end (the caller decodes it):
 * 0; SQK_ERR_IO (errno kept, *why NULL) when the hash file cannot be
 * opened or read; SQK_ERR_MAGIC when no superblock is where one should be;
 * SQK_ERR_UNSUPPORTED, SQK_ERR_CORRUPT, SQK_ERR_ARG (the root hash's
 * length is not the algorithm's), SQK_ERR_TRUNCATED (the file ends before
 * the tree does): *why says what. image stays the caller's.
 */
/* Set w's root hash from hex (a root hash is 16 bytes or more): 0, or SQK_ERR_ARG. */
int sqk_verity_where_root(struct sqk_verity_where *w, const char *hex);
/*
 * Say w's area has no superblock: made with algorithm (NULL: sha256) and
 * salt (hex, "-" or NULL for none). 0, or SQK_ERR_ARG (*why: which).
 */
int sqk_verity_where_plain(struct sqk_verity_where *w, const char *algorithm, const char *salt,
			   const char **why);

/* A block that does not match the tree, as a read or a check finds it. */
enum sqk_verity_why {
	SQK_VERITY_MISMATCH = 1, /* its hash is not the one above it (or the root) */
	SQK_VERITY_SPARE,	 /* a hash block's bytes after its digests are not zero */
	SQK_VERITY_UNREADABLE,	 /* it could not be read (the file ends before it) */
	SQK_VERITY_UNCOVERED,	 /* the tree does not cover it */
};
struct sqk_verity_bad {
	int level;	/* -1: a data block; else a hash block of that level (0: the lowest) */
	uint64_t block; /* its index: data blocks from the image's start, hash blocks in level */
	uint64_t pos;	/* where it lies in its file */
	enum sqk_verity_why why;
	uint64_t covers;  /* a hash block: the data blocks it stands for start ... */
	uint64_t ncovers; /* ... and are this many */
	int top;	  /* checked against the root hash itself */
};

/*
 * b in words, into buf: "data block 12 (bytes 49152..53247) does not match
 * its hash", "hash block 3 of level 0 (at byte 1069056) does not match the
 * level above: data blocks 384..511 cannot be checked", ...
 */
void sqk_verity_bad_text(const struct sqk_verity_bad *b, char *buf, size_t cap);

int sqk_verity_area_open(struct sqk_file *image, uint64_t end, const struct sqk_verity_where *w,
			 struct sqk_verity_area **out, const char **why);
void sqk_verity_area_free(struct sqk_verity_area *a);

#endif
