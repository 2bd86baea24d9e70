// SPDX-License-Identifier: BSD-2-Clause
/* The dm-verity superblock, the tree's geometry, hex and uuids (verity_fmt.h). */
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "util/le.h"
#include "util/parse.h"
#include "verity_fmt.h"

static const uint8_t signature[8] = {'v', 'e', 'r', 'i', 't', 'y', 0, 0};

/* Byte offsets of the superblock's fields. */
enum {
	SB_SIGNATURE = 0,
	SB_VERSION = 8,
	SB_HASH_TYPE = 12,
	SB_UUID = 16,
	SB_ALGORITHM = 32,
	SB_DATA_BS = 64,
	SB_HASH_BS = 68,
	SB_DATA_BLOCKS = 72,
	SB_SALT_SIZE = 80,
	/* 6 reserved bytes */
	SB_SALT = 88,
	/* 168 reserved bytes to the end */
};

void sqk_verity_sb_encode(const struct sqk_verity_sb *sb, uint8_t out[SQK_VERITY_SB_SIZE])
{
	memset(out, 0, SQK_VERITY_SB_SIZE);
	memcpy(out + SB_SIGNATURE, signature, sizeof(signature));
	put_le32(out + SB_VERSION, sb->version);
	put_le32(out + SB_HASH_TYPE, sb->hash_type);
	memcpy(out + SB_UUID, sb->uuid, 16);
	memcpy(out + SB_ALGORITHM, sb->algorithm, strnlen(sb->algorithm, 32));
	put_le32(out + SB_DATA_BS, sb->data_block_size);
	put_le32(out + SB_HASH_BS, sb->hash_block_size);
	put_le64(out + SB_DATA_BLOCKS, sb->data_blocks);
	put_le16(out + SB_SALT_SIZE, sb->salt_size);
	memcpy(out + SB_SALT, sb->salt, sb->salt_size <= SQK_VERITY_SALT_MAX ? sb->salt_size : 0);
}

int sqk_verity_block_size_ok(uint64_t n)
{
	return n >= 512 && n <= 4096 && !(n & (n - 1));
}

static int said(const char **why, const char *what, int err)
{
	if (why)
		*why = what;
	return err;
}

int sqk_verity_sb_decode(const uint8_t in[SQK_VERITY_SB_SIZE], struct sqk_verity_sb *sb,
			 const char **why)
{
	memset(sb, 0, sizeof(*sb));
	if (memcmp(in + SB_SIGNATURE, signature, sizeof(signature)) != 0)
		return said(why, "no verity superblock", SQK_ERR_MAGIC);
	sb->version = get_le32(in + SB_VERSION);
	sb->hash_type = get_le32(in + SB_HASH_TYPE);
	memcpy(sb->uuid, in + SB_UUID, 16);
	memcpy(sb->algorithm, in + SB_ALGORITHM, 32);
	sb->data_block_size = get_le32(in + SB_DATA_BS);
	sb->hash_block_size = get_le32(in + SB_HASH_BS);
	sb->data_blocks = get_le64(in + SB_DATA_BLOCKS);
	sb->salt_size = get_le16(in + SB_SALT_SIZE);
	if (sb->version != 1)
		return said(why, "verity superblock version is not 1", SQK_ERR_UNSUPPORTED);
	if (sb->hash_type > 1)
		return said(why, "unknown verity hash type", SQK_ERR_UNSUPPORTED);
	if (!sb->algorithm[0])
		return said(why, "no hash algorithm named", SQK_ERR_CORRUPT);
	if (!sqk_verity_block_size_ok(sb->data_block_size) ||
	    !sqk_verity_block_size_ok(sb->hash_block_size))
		return said(why, "block size is not a power of two from 512 to 4096",
			    SQK_ERR_CORRUPT);
	if (!sb->data_blocks)
		return said(why, "no data block", SQK_ERR_CORRUPT);
	if (sb->salt_size > SQK_VERITY_SALT_MAX)
		return said(why, "salt longer than 256 bytes", SQK_ERR_CORRUPT);
	memcpy(sb->salt, in + SB_SALT, sb->salt_size);
	return 0;
}

/* log2 of a power of two, or of the next one up. */
static unsigned bits_up(uint64_t n)
{
	unsigned b = 0;

	while (((uint64_t)1 << b) < n)
		b++;
	return b;
}

static unsigned bits_down(uint64_t n)
{
	unsigned b = 0;

	while (n >> (b + 1))
		b++;
	return b;
}

int sqk_verity_geometry(const struct sqk_verity_params *p, uint32_t digest,
			struct sqk_verity_geo *g)
{
	uint64_t pos, first;
	int i;

	memset(g, 0, sizeof(*g));
	if (!sqk_verity_block_size_ok(p->data_block_size) ||
	    !sqk_verity_block_size_ok(p->hash_block_size) || !p->data_blocks || !digest ||
	    digest > SQK_VERITY_DIGEST_MAX || p->hash_type > 1)
		return SQK_ERR_ARG;
	g->data_bs = p->data_block_size;
	g->hash_bs = p->hash_block_size;
	g->digest = digest;
	g->slot = p->hash_type ? 1u << bits_up(digest) : digest;
	if (g->slot > g->hash_bs)
		return SQK_ERR_ARG;
	g->per_bits = bits_down(g->hash_bs / g->slot);
	g->data_blocks = p->data_blocks;
	/* The superblock takes the area's first hash block; without one the tree starts there. */
	if (p->superblock) {
		if (p->hash_offset > UINT64_MAX - SQK_VERITY_SB_SIZE - g->hash_bs)
			return SQK_ERR_OVERFLOW;
		first = (p->hash_offset + SQK_VERITY_SB_SIZE + g->hash_bs - 1) / g->hash_bs;
	} else {
		if (p->hash_offset % g->hash_bs)
			return SQK_ERR_ARG;
		first = p->hash_offset / g->hash_bs;
	}
	while (g->per_bits * g->levels < 64 && (g->data_blocks - 1) >> (g->per_bits * g->levels))
		g->levels++;
	if (g->levels > SQK_VERITY_MAX_LEVELS)
		return SQK_ERR_OVERFLOW;
	pos = first;
	g->tree_block = first;
	for (i = (int)g->levels - 1; i >= 0; i--) {
		unsigned shift = (unsigned)(i + 1) * g->per_bits;
		uint64_t n = shift >= 64
				     ? 1
				     : (g->data_blocks >> shift) +
					       !!(g->data_blocks & (((uint64_t)1 << shift) - 1));

		g->level_block[i] = pos;
		g->level_size[i] = n;
		if (pos + n < pos)
			return SQK_ERR_OVERFLOW;
		pos += n;
	}
	if (pos > UINT64_MAX / g->hash_bs)
		return SQK_ERR_OVERFLOW;
	g->end = pos * g->hash_bs;
	return 0;
}

void sqk_verity_covers(const struct sqk_verity_geo *g, unsigned level, uint64_t j, uint64_t *first,
		       uint64_t *n)
{
	unsigned shift = (level + 1) * g->per_bits;
	uint64_t span = shift >= 64 ? UINT64_MAX : (uint64_t)1 << shift;

	*first = shift >= 64 || j > (g->data_blocks >> shift) ? g->data_blocks : j << shift;
	*n = g->data_blocks - *first < span ? g->data_blocks - *first : span;
}

void sqk_verity_hex(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

int sqk_verity_unhex(const char *in, uint8_t *out, size_t max, size_t *n)
{
	size_t len = strlen(in), i;

	*n = 0;
	if (!strcmp(in, "-"))
		return 0;
	if (len % 2 || len / 2 > max)
		return SQK_ERR_ARG;
	for (i = 0; i < len / 2; i++) {
		int hi = sqk_parse_hex_digit((unsigned char)in[2 * i]),
		    lo = sqk_parse_hex_digit((unsigned char)in[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return SQK_ERR_ARG;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*n = len / 2;
	return 0;
}

void sqk_verity_uuid_str(const uint8_t u[16], char out[SQK_VERITY_UUID_STR])
{
	char hex[33];

	sqk_verity_hex(u, 16, hex);
	snprintf(out, SQK_VERITY_UUID_STR, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
		 hex + 16, hex + 20);
}

int sqk_verity_uuid_parse(const char *in, uint8_t u[16])
{
	char hex[33];
	size_t i, j = 0, n;

	if (strlen(in) != 36)
		return SQK_ERR_ARG;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (in[i] != '-')
				return SQK_ERR_ARG;
			continue;
		}
		hex[j++] = in[i];
	}
	hex[j] = '\0';
	return sqk_verity_unhex(hex, u, 16, &n) || n != 16 ? SQK_ERR_ARG : 0;
}

void sqk_verity_uuid_v4(uint8_t u[16], const uint8_t r[16])
{
	memcpy(u, r, 16);
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}
