/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_FMT_H
#define SQK_VERITY_FMT_H

/*
 * The dm-verity on-disk format, version 1, as the kernel reads it and
 * `veritysetup format` writes it: every fact of it is written here once.
 *
 * A hash area is an optional 512-byte superblock (in a hash block of its
 * own) followed by the hash tree. Each data block of the data device is
 * hashed (hash_type 1: the salt, then the block; hash_type 0, Chrome OS's:
 * the block, then the salt); the digests, each in a slot of the next power
 * of two (hash_type 1) or of its own size (0), fill hash blocks, zero
 * padded; those blocks are hashed in turn, up to one block whose hash is
 * the root hash. The levels lie top first: the single block under the root,
 * then each level down to the one holding the data blocks' digests. With
 * one data block there is no level: the root is that block's hash.
 */
#include <stddef.h>
#include <stdint.h>

/* The block size squashkit writes, for data and hash blocks alike. */
#define SQK_VERITY_BLOCK 4096u
/* The superblock's size; it takes a whole hash block in the area. */
#define SQK_VERITY_SB_SIZE    512u
#define SQK_VERITY_SALT_MAX   256u
#define SQK_VERITY_DIGEST_MAX 64u
/* As cryptsetup: more levels than this is no tree a device can hold. */
#define SQK_VERITY_MAX_LEVELS 63u
/* "12345678-1234-1234-1234-123456789abc" and its NUL. */
#define SQK_VERITY_UUID_STR 37u
/* The longest hex root hash and its NUL. */
#define SQK_VERITY_HEX_MAX (2 * SQK_VERITY_DIGEST_MAX + 1)

/* The superblock's fields, decoded. */
struct sqk_verity_sb {
	uint32_t version;   /* 1 */
	uint32_t hash_type; /* 1: salt first; 0: Chrome OS's, salt last */
	uint8_t uuid[16];
	char algorithm[33]; /* "sha256", NUL-terminated */
	uint32_t data_block_size, hash_block_size;
	uint64_t data_blocks;
	uint16_t salt_size;
	uint8_t salt[SQK_VERITY_SALT_MAX];
};

/* The superblock's bytes for sb (every reserved byte zero). */
void sqk_verity_sb_encode(const struct sqk_verity_sb *sb, uint8_t out[SQK_VERITY_SB_SIZE]);
/*
 * Decode and check a superblock: 0; SQK_ERR_MAGIC when in holds none (no
 * signature); SQK_ERR_UNSUPPORTED for a version, hash type or algorithm
 * this library does not read; SQK_ERR_CORRUPT for a field out of range.
 * *why says which, in words (may be NULL).
 */
int sqk_verity_sb_decode(const uint8_t in[SQK_VERITY_SB_SIZE], struct sqk_verity_sb *sb,
			 const char **why);

/* Is n a block size the format allows (a power of two, 512 to 4096)? */
int sqk_verity_block_size_ok(uint64_t n);

/* What a tree is made with; the geometry follows from it. */
struct sqk_verity_params {
	char algorithm[33]; /* "sha256", "sha512", ... */
	uint32_t hash_type;
	uint32_t data_block_size, hash_block_size;
	uint64_t data_blocks;
	uint16_t salt_size;
	uint8_t salt[SQK_VERITY_SALT_MAX];
	/* Where the area starts in the hash file; the superblock's place when there is one. */
	uint64_t hash_offset;
	int superblock; /* 1: a superblock heads the area */
	uint8_t uuid[16];
};

/* Where everything of a tree lies. Block numbers count hash blocks from the file's start. */
struct sqk_verity_geo {
	uint32_t data_bs, hash_bs;
	uint32_t digest;			     /* bytes of a digest */
	uint32_t slot;				     /* bytes a digest takes in a hash block */
	unsigned per_bits;			     /* log2 of the digests in a hash block */
	uint64_t data_blocks;			     /* blocks of the data device that are hashed */
	unsigned levels;			     /* 0: one data block, hashed into the root */
	uint64_t level_block[SQK_VERITY_MAX_LEVELS]; /* each level's first hash block */
	uint64_t level_size[SQK_VERITY_MAX_LEVELS];  /* its hash blocks */
	uint64_t tree_block;			     /* the tree's first hash block */
	uint64_t end;				     /* the byte after the area's last */
};

/*
 * The geometry of p, with a digest of digest bytes: 0, or SQK_ERR_ARG for
 * block sizes the format does not allow, no data block, an offset that is
 * no multiple of the hash block (without a superblock), SQK_ERR_OVERFLOW
 * for a tree deeper than the format allows or past 2^64 bytes.
 */
int sqk_verity_geometry(const struct sqk_verity_params *p, uint32_t digest,
			struct sqk_verity_geo *g);
/* The byte position of hash block i of level l, and of the digest of child c of that level. */
static inline uint64_t sqk_verity_hash_pos(const struct sqk_verity_geo *g, unsigned level,
					   uint64_t i)
{
	return (g->level_block[level] + i) * g->hash_bs;
}
/*
 * A child (data block, or hash block of the level below) and where its
 * digest is: the hash block of level `level` holding it, and the offset
 * in that block.
 */
static inline void sqk_verity_parent(const struct sqk_verity_geo *g, uint64_t child,
				     uint64_t *block, uint32_t *off)
{
	*block = child >> g->per_bits;
	*off = (uint32_t)(child & ((1u << g->per_bits) - 1)) * g->slot;
}

/* The data blocks hash block j of level l stands for: the first, and how many. */
void sqk_verity_covers(const struct sqk_verity_geo *g, unsigned level, uint64_t j, uint64_t *first,
		       uint64_t *n);

/* Lowercase hex of n bytes into out (2n + 1 bytes). */
void sqk_verity_hex(const uint8_t *in, size_t n, char *out);
/*
 * Hex into at most max bytes: 0 and *n; SQK_ERR_ARG for an odd length, a
 * character that is no hex digit, or more than max bytes. "-" and "" are
 * none (n = 0), as veritysetup's --salt=- says.
 */
int sqk_verity_unhex(const char *in, uint8_t *out, size_t max, size_t *n);
/* The uuid's usual form, lowercase (37 bytes with the NUL). */
void sqk_verity_uuid_str(const uint8_t uuid[16], char out[SQK_VERITY_UUID_STR]);
/* Read that form back: 0, or SQK_ERR_ARG. */
int sqk_verity_uuid_parse(const char *in, uint8_t uuid[16]);
/* Make u a random (version 4) uuid of bytes r. */
void sqk_verity_uuid_v4(uint8_t u[16], const uint8_t r[16]);

#endif
