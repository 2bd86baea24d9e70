// SPDX-License-Identifier: BSD-2-Clause
/*
 * The dm-verity format module: the superblock's round trip and rules, the
 * tree's geometry as veritysetup lays it out, hex and uuids, and whole
 * hash areas against vectors `veritysetup format` (cryptsetup 2.6.1) made
 * from the same blocks: its root hashes and the SHA-256 of its hash files.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/error.h"
#include "util/file.h"
#include "verity/verity_fmt.h"
#include "verity/verity_hash.h"
#include "verity/verity_tree.h"

static void params(struct sqk_verity_params *p, const char *alg, uint64_t blocks)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->algorithm, alg);
	p->hash_type = 1;
	p->data_block_size = p->hash_block_size = 4096;
	p->data_blocks = blocks;
	p->superblock = 1;
}

static void test_sb(void)
{
	struct sqk_verity_sb sb = {0}, back;
	uint8_t raw[SQK_VERITY_SB_SIZE], copy[SQK_VERITY_SB_SIZE];
	const char *why = NULL;
	size_t i;

	sb.version = 1;
	sb.hash_type = 1;
	for (i = 0; i < 16; i++)
		sb.uuid[i] = (uint8_t)(0x10 + i);
	strcpy(sb.algorithm, "sha256");
	sb.data_block_size = sb.hash_block_size = 4096;
	sb.data_blocks = 0x123456789ull;
	sb.salt_size = 4;
	memcpy(sb.salt, "\x00\x11\x22\x33", 4);
	sqk_verity_sb_encode(&sb, raw);
	ok(!memcmp(raw, "verity\0\0", 8), "superblock: the signature leads");
	is_int(raw[8] | raw[9] << 8, 1, "superblock: version at 8, little-endian");
	is_int(raw[64] | raw[65] << 8, 4096, "superblock: data block size at 64");
	is_int(raw[80], 4, "superblock: salt size at 80");
	is_mem(raw + 88, sb.salt, 4, "superblock: salt at 88");
	ok(!memcmp(raw + 32, "sha256\0", 7), "superblock: algorithm at 32");
	is_int(sqk_verity_sb_decode(raw, &back, &why), 0, "superblock decodes");
	ok(back.data_blocks == sb.data_blocks && !memcmp(back.uuid, sb.uuid, 16) &&
		   !strcmp(back.algorithm, "sha256") && back.salt_size == 4 &&
		   !memcmp(back.salt, sb.salt, 4),
	   "superblock: every field comes back");
	memcpy(copy, raw, sizeof(raw));
	copy[0] = 'V';
	is_int(sqk_verity_sb_decode(copy, &back, &why), SQK_ERR_MAGIC,
	       "no signature: no superblock");
	memcpy(copy, raw, sizeof(raw));
	copy[8] = 2;
	is_int(sqk_verity_sb_decode(copy, &back, &why), SQK_ERR_UNSUPPORTED, "version 2 refused");
	memcpy(copy, raw, sizeof(raw));
	copy[12] = 2;
	is_int(sqk_verity_sb_decode(copy, &back, &why), SQK_ERR_UNSUPPORTED, "hash type 2 refused");
	memcpy(copy, raw, sizeof(raw));
	copy[65] = 0x30; /* 12288 */
	is_int(sqk_verity_sb_decode(copy, &back, &why), SQK_ERR_CORRUPT,
	       "a block size that is no power of two is refused");
	memcpy(copy, raw, sizeof(raw));
	copy[81] = 2; /* 516 bytes of salt */
	is_int(sqk_verity_sb_decode(copy, &back, &why), SQK_ERR_CORRUPT, "a salt over 256 refused");
	memcpy(copy, raw, sizeof(raw));
	memset(copy + 72, 0, 8);
	is_int(sqk_verity_sb_decode(copy, &back, &why), SQK_ERR_CORRUPT, "no data block refused");
}

static void test_geometry(void)
{
	struct sqk_verity_params p;
	struct sqk_verity_geo g;

	params(&p, "sha256", 1);
	is_int(sqk_verity_geometry(&p, 32, &g), 0, "one block: a geometry");
	is_int(g.levels, 0, "one block: no level, its hash is the root");
	is_int(g.end, 4096, "one block: the area is the superblock's block");
	params(&p, "sha256", 128);
	sqk_verity_geometry(&p, 32, &g);
	ok(g.levels == 1 && g.level_size[0] == 1 && g.level_block[0] == 1,
	   "128 blocks: one level of one block after the superblock");
	params(&p, "sha256", 129);
	sqk_verity_geometry(&p, 32, &g);
	ok(g.levels == 2 && g.level_size[1] == 1 && g.level_block[1] == 1 && g.level_size[0] == 2 &&
		   g.level_block[0] == 2,
	   "129 blocks: the top level first, then two blocks of digests");
	params(&p, "sha512", 65);
	sqk_verity_geometry(&p, 64, &g);
	ok(g.levels == 2 && g.per_bits == 6, "sha512: 64 digests a block");
	params(&p, "sha1", 129);
	p.superblock = 0;
	p.hash_offset = 8192;
	sqk_verity_geometry(&p, 20, &g);
	ok(g.slot == 32 && g.level_block[1] == 2 && g.end == 5 * 4096,
	   "sha1: 32-byte slots; no superblock: the tree at the offset");
	p.hash_type = 0;
	sqk_verity_geometry(&p, 20, &g);
	ok(g.slot == 20 && g.per_bits == 7, "hash type 0: slots of the digest's size");
	p.hash_offset = 100;
	is_int(sqk_verity_geometry(&p, 20, &g), SQK_ERR_ARG,
	       "no superblock: an offset off a block boundary is refused");
	params(&p, "sha256", 0);
	is_int(sqk_verity_geometry(&p, 32, &g), SQK_ERR_ARG, "no data block refused");
	params(&p, "sha256", UINT64_MAX);
	is_int(sqk_verity_geometry(&p, 32, &g), SQK_ERR_OVERFLOW, "2^64 blocks overflow the area");
}

static void test_hex(void)
{
	uint8_t b[8], u[16], r[16];
	char s[64];
	size_t n;

	is_int(sqk_verity_unhex("00a1FF", b, sizeof(b), &n), 0, "hex reads");
	ok(n == 3 && b[0] == 0 && b[1] == 0xa1 && b[2] == 0xff, "hex: the bytes, either case");
	sqk_verity_hex(b, 3, s);
	ok(!strcmp(s, "00a1ff"), "hex is written lowercase");
	ok(!sqk_verity_unhex("-", b, sizeof(b), &n) && n == 0, "'-' is no salt");
	ok(sqk_verity_unhex("abc", b, sizeof(b), &n) == SQK_ERR_ARG, "odd hex refused");
	ok(sqk_verity_unhex("zz", b, sizeof(b), &n) == SQK_ERR_ARG, "no hex digit refused");
	ok(sqk_verity_unhex("001122334455667788", b, 8, &n) == SQK_ERR_ARG, "too long refused");
	is_int(sqk_verity_uuid_parse("12345678-1234-1234-1234-123456789ABC", u), 0, "uuid reads");
	sqk_verity_uuid_str(u, s);
	ok(!strcmp(s, "12345678-1234-1234-1234-123456789abc"), "uuid comes back, lowercase");
	ok(sqk_verity_uuid_parse("12345678-1234-1234-1234_123456789abc", u) == SQK_ERR_ARG,
	   "a uuid without its dashes refused");
	memset(r, 0xff, sizeof(r));
	sqk_verity_uuid_v4(u, r);
	ok(u[6] == 0x4f && u[8] == 0xbf, "a random uuid is version 4, variant 1");
}

/* Blocks as the vectors were made: byte j of block i is (7i + 13j + 1) mod 256. */
static uint8_t *blocks(uint64_t n)
{
	uint8_t *d = malloc(n * 4096);
	uint64_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < 4096; j++)
			d[i * 4096 + j] = (uint8_t)(i * 7 + j * 13 + 1);
	return d;
}

/* The hash area of n blocks, against veritysetup's root and the SHA-256 of its file. */
static void vector(uint64_t n, const char *alg, const char *salt, const char *root_hex,
		   const char *file_sha, uint64_t file_size)
{
	struct sqk_verity_params p;
	struct sqk_verity_geo g;
	struct sqk_verity_hasher h;
	struct sqk_verity_ctx *c = sqk_verity_ctx_new();
	struct sqk_file *out = sqk_file_mem(NULL, 0);
	uint8_t *d = blocks(n), *leaves, root[64], sha[32];
	char hex[129];
	const uint8_t *area;
	size_t len, slen;
	uint64_t i;

	params(&p, alg, n);
	sqk_verity_unhex(salt, p.salt, sizeof(p.salt), &slen);
	p.salt_size = (uint16_t)slen;
	sqk_verity_uuid_parse("12345678-1234-1234-1234-123456789abc", p.uuid);
	sqk_verity_hasher_init(&h, &p);
	sqk_verity_geometry(&p, h.digest, &g);
	leaves = calloc(1, sqk_verity_leaves_bytes(&g));
	for (i = 0; i < n; i++)
		sqk_verity_hash(&h, c, d + i * 4096, 4096, leaves + i * g.slot);
	is_int(sqk_verity_tree_write(&p, &g, &h, leaves, out, root), 0, "%llu blocks, %s: written",
	       (unsigned long long)n, alg);
	sqk_verity_hex(root, h.digest, hex);
	if (!ok(!strcmp(hex, root_hex), "%llu blocks, %s, salt %s: veritysetup's root hash",
		(unsigned long long)n, alg, salt))
		printf("#   got %s\n", hex);
	area = sqk_file_mem_data(out, &len);
	is_int(len, file_size, "%llu blocks, %s: veritysetup's hash file size",
	       (unsigned long long)n, alg);
	sqk_verity_digest("sha256", area, len, sha);
	sqk_verity_hex(sha, 32, hex);
	if (!ok(!strcmp(hex, file_sha), "%llu blocks, %s: veritysetup's hash file, byte for byte",
		(unsigned long long)n, alg))
		printf("#   got %s\n", hex);
	free(leaves);
	free(d);
	sqk_file_destroy(out);
	sqk_verity_ctx_free(c);
}

int main(void)
{
	test_sb();
	test_geometry();
	test_hex();
	vector(1, "sha256", "00112233",
	       "bfc01749defbf4adc9f6e2a6a23280309f2a603b13585055dbd30fe1fee20581",
	       "e0426349cdc6448701681b3e9ed9d1d35c57c16787811e4b434ae3fb0c540e45", 4096);
	vector(4, "sha256", "00112233",
	       "8d37cd0ccdb373f85d06c0d2e79a5ab9f32ed0da60fb369876ff7746437db148",
	       "5cf07beccb83d8d7d700f5f5fa95311ce12257a49f7992603f82e79079602879", 8192);
	vector(300, "sha256", "-",
	       "57a7b28268144848b18fa18492aaedf72a8160495f8f72e81522e3b8d77e2463",
	       "a3ceadf7efb11492fac48dc88564d6fcee6e0132b144e0359569f0bd6fd84cc2", 20480);
	vector(100, "sha512", "0a0b0c",
	       "edaf0982f33426caee953c7baba850cfaa1c25970c7623ab43e5b0f72f372ad8"
	       "102f1222d7a72aa52d6e41e326715934f3036865bd982487840f222bf93e0781",
	       "5342e52b2033948d901fa496ccb2772bc985b9554fcf8640e4249f7e4a2b3357", 16384);
	vector(300, "sha512", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
	       "d3d5430af56a2a8a134df4f900522339a6bf79df0919d744b8e9eba72825a0f4"
	       "51f770b07f8baf52136111b9481f426bd7ba1aa55af5b41ae66eccfa4ff8b6fc",
	       "10b4098c31a4521d429c177384725402f619768c9aa4e46c450a499ff4cf6bfb", 28672);
	return tap_done();
}
