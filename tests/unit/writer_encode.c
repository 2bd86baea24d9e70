// SPDX-License-Identifier: BSD-2-Clause
/*
 * Golden bytes of the writer's encoders: metadata blocks, all 14 inode
 * types, directory listings with their headers and index, and the id
 * table. Expected bytes are written out by hand from the format, against
 * an in-memory file and a pass-through codec (every block is stored, so
 * every metadata header carries bit 15).
 */
#include <stdlib.h>
#include <string.h>

#include "format/fmt_check.h"
#include "format/fmt_inode.h"
#include "format/format.h"
#include "meta_stream.h"
#include "tap.h"
#include "util/error.h"
#include "util/file.h"
#include "util/le.h"
#include "write/dir_writer.h"
#include "write/inode_writer.h"
#include "write/meta_writer.h"
#include "write/table_writer.h"

/* Never shrinks: every block is stored as it is. */
static int pass_compress(struct sqk_compressor *c, const uint8_t *src, size_t srclen, uint8_t *dst,
			 size_t cap, size_t *outlen)
{
	return SQK_ERR_OVERFLOW;
}

/* Shrinks everything to "XY", to see the compressed header form. */
static int xy_compress(struct sqk_compressor *c, const uint8_t *src, size_t srclen, uint8_t *dst,
		       size_t cap, size_t *outlen)
{
	dst[0] = 'X';
	dst[1] = 'Y';
	*outlen = 2;
	return 0;
}

static struct sqk_compressor pass = {.compress = pass_compress};
static struct sqk_compressor xy = {.compress = xy_compress};

static void test_meta(void)
{
	struct sqk_meta_writer *mw = malloc(sizeof(*mw));
	static uint8_t big[8192 + 5];
	const uint8_t want_small[] = {0x0a, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	const uint8_t want_xy[] = {0x02, 0x00, 'X', 'Y'};
	uint8_t ten[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

	sqk_mw_init(mw, &pass, NULL, 0, 1);
	is_int(sqk_mw_ref(mw), 0, "meta: first reference is 0");
	sqk_mw_write(mw, ten, sizeof(ten));
	is_int(sqk_mw_ref(mw), 10, "meta: reference counts bytes in the open block");
	sqk_mw_flush(mw);
	is_int(mw->out_len, 12, "meta: a stored block is 2 + 10 bytes");
	ok(memcmp(mw->mem, want_small, sizeof(want_small)) == 0,
	   "meta: header 0x800a (10 bytes, stored) then the bytes");
	sqk_mw_release(mw);

	sqk_mw_init(mw, &pass, NULL, 0, 1);
	memset(big, 0xab, sizeof(big));
	sqk_mw_write(mw, big, sizeof(big));
	is_int(mw->out_len, 8194, "meta: a full block is emitted as soon as it fills");
	is_int(get_le16(mw->mem), 0xa000, "meta: full block header is 8192 | 0x8000");
	is_int(sqk_mw_ref(mw), ((uint64_t)8194 << 16) | 5,
	       "meta: reference is start << 16 | offset");
	sqk_mw_flush(mw);
	is_int(mw->nstarts, 2, "meta: two block starts recorded");
	is_int(mw->starts[1], 8194, "meta: second block starts after the first");
	sqk_mw_release(mw);

	sqk_mw_init(mw, &xy, NULL, 0, 0);
	sqk_mw_write(mw, ten, sizeof(ten));
	sqk_mw_flush(mw);
	ok(mw->out_len == 4 && memcmp(mw->mem, want_xy, 4) == 0,
	   "meta: a block that shrinks has its size without bit 15");
	sqk_mw_release(mw);
	free(mw);
}

/* Encode one inode and compare the stream with want. */
static void check_inode(const struct sqk_inode_info *in, const uint8_t *want, size_t len,
			const char *what)
{
	struct sqk_meta_writer *mw = malloc(sizeof(*mw));
	uint8_t out[256];
	size_t n;

	sqk_mw_init(mw, &pass, NULL, 0, 0);
	sqk_inode_write(mw, in, NULL, NULL);
	sqk_mw_flush(mw);
	n = meta_stream_of(mw->mem, mw->out_len, out);
	if (!ok(n == len && memcmp(out, want, len) == 0, "inode: %s", what)) {
		printf("#   got %zu bytes:", n);
		for (size_t i = 0; i < n; i++)
			printf(" %02x", out[i]);
		printf("\n");
	}
	sqk_mw_release(mw);
	free(mw);
}

/* The common header: mode 0644, uid index 1, gid index 2, mtime 0x11223344, inode 7. */
#define HDR(t) (t), 0, 0xa4, 0x01, 1, 0, 2, 0, 0x44, 0x33, 0x22, 0x11, 7, 0, 0, 0

static void base(struct sqk_inode_info *in, unsigned type)
{
	memset(in, 0, sizeof(*in));
	in->type = type;
	in->mode = 0644;
	in->uid_idx = 1;
	in->gid_idx = 2;
	in->mtime = 0x11223344;
	in->number = 7;
	in->nlink = 1;
	in->xattr = SQK_INVALID_XATTR;
}

static void test_inodes(void)
{
	struct sqk_inode_info in;
	static const uint32_t blocks[] = {0x1000, 0x1000000 | 0x20000};
	static const uint32_t one_sparse[] = {0};
	static const uint8_t index[] = {0x20, 0, 0, 0, 0x30, 0, 0, 0, 1, 0, 0, 0, 'a', 'b'};

	base(&in, SQK_DIR);
	in.dir_block = 0x10, in.nlink = 3, in.dir_size = 0x1234, in.dir_offset = 0x56,
	in.parent = 9;
	{
		const uint8_t w[] = {HDR(1), 0x10, 0,	 0, 0, 3, 0, 0, 0,
				     0x34,   0x12, 0x56, 0, 9, 0, 0, 0};
		check_inode(&in, w, sizeof(w), "basic directory (1)");
	}
	base(&in, SQK_LDIR);
	in.nlink = 3, in.dir_size = 0x12345, in.dir_block = 0x10, in.parent = 9;
	in.index_count = 1, in.dir_offset = 0x56, in.xattr = 5;
	in.index = index, in.index_len = sizeof(index);
	{
		const uint8_t w[] = {HDR(8), 3, 0, 0,	 0, 0x45, 0x23, 1, 0, 0x10, 0, 0,   0,
				     9,	     0, 0, 0,	 1, 0,	  0x56, 0, 5, 0,    0, 0,   0x20,
				     0,	     0, 0, 0x30, 0, 0,	  0,	1, 0, 0,    0, 'a', 'b'};
		check_inode(&in, w, sizeof(w), "extended directory (8) with one index entry");
	}
	base(&in, SQK_FILE);
	in.blocks_start = 0x60, in.frag_index = 3, in.frag_offset = 0x100, in.file_size = 0x20005;
	in.blocks = blocks, in.nblocks = 2;
	{
		const uint8_t w[] = {HDR(2), 0x60, 0, 0, 0, 3,	  0, 0, 0, 0, 1, 0, 0,
				     5,	     0,	   2, 0, 0, 0x10, 0, 0, 0, 0, 2, 1};
		check_inode(&in, w, sizeof(w), "basic file (2) with two block sizes");
	}
	base(&in, SQK_LFILE);
	in.blocks_start = 0x100000060ull, in.file_size = 0x200000000ull, in.sparse = 0x8000;
	in.nlink = 2, in.frag_index = SQK_INVALID_FRAG, in.xattr = 4;
	in.blocks = one_sparse, in.nblocks = 1;
	{
		const uint8_t w[] = {HDR(9), 0x60, 0,	 0,    0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0,
				     0,	     0,	   0,	 0x80, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0xff,
				     0xff,   0xff, 0xff, 0,    0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0};
		check_inode(&in, w, sizeof(w), "extended file (9) with a sparse block");
	}
	base(&in, SQK_SYMLINK);
	in.target = "abc", in.target_len = 3;
	{
		const uint8_t w[] = {HDR(3), 1, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
		check_inode(&in, w, sizeof(w), "basic symlink (3)");
	}
	base(&in, SQK_LSYMLINK);
	in.target = "abc", in.target_len = 3, in.xattr = 6;
	{
		const uint8_t w[] = {HDR(10), 1, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', 6, 0, 0, 0};
		check_inode(&in, w, sizeof(w), "extended symlink (10): xattr after the target");
	}
	/* major 8, minor 0x12345: 0x45 | 8 << 8 | 0x12300 << 12 = 0x12300845 */
	base(&in, SQK_BLKDEV);
	in.rdev = sqk_encode_dev(8, 0x12345);
	{
		const uint8_t w[] = {HDR(4), 1, 0, 0, 0, 0x45, 0x08, 0x30, 0x12};
		check_inode(&in, w, sizeof(w), "basic block device (4), 20-bit minor");
	}
	base(&in, SQK_CHRDEV);
	in.rdev = sqk_encode_dev(1, 3);
	{
		const uint8_t w[] = {HDR(5), 1, 0, 0, 0, 3, 1, 0, 0};
		check_inode(&in, w, sizeof(w), "basic char device (5)");
	}
	base(&in, SQK_FIFO);
	{
		const uint8_t w[] = {HDR(6), 1, 0, 0, 0};
		check_inode(&in, w, sizeof(w), "basic fifo (6)");
	}
	base(&in, SQK_SOCKET);
	in.nlink = 2;
	{
		const uint8_t w[] = {HDR(7), 2, 0, 0, 0};
		check_inode(&in, w, sizeof(w), "basic socket (7)");
	}
	base(&in, SQK_LBLKDEV);
	in.rdev = sqk_encode_dev(8, 1), in.xattr = 9;
	{
		const uint8_t w[] = {HDR(11), 1, 0, 0, 0, 1, 8, 0, 0, 9, 0, 0, 0};
		check_inode(&in, w, sizeof(w), "extended block device (11)");
	}
	base(&in, SQK_LCHRDEV);
	in.rdev = sqk_encode_dev(300, 70000), in.xattr = 9;
	/* 70000 = 0x11170: 0x70 | 300 << 8 (0x12c00) | 0x11100 << 12 (0x11100000) */
	{
		const uint8_t w[] = {HDR(12), 1, 0, 0, 0, 0x70, 0x2c, 0x11, 0x11, 9, 0, 0, 0};
		check_inode(&in, w, sizeof(w), "extended char device (12)");
	}
	base(&in, SQK_LFIFO);
	in.xattr = 0;
	{
		const uint8_t w[] = {HDR(13), 1, 0, 0, 0, 0, 0, 0, 0};
		check_inode(&in, w, sizeof(w), "extended fifo (13)");
	}
	base(&in, SQK_LSOCKET);
	in.xattr = 0x01020304;
	{
		const uint8_t w[] = {HDR(14), 1, 0, 0, 0, 4, 3, 2, 1};
		check_inode(&in, w, sizeof(w), "extended socket (14)");
	}

	/* The form each value needs. */
	base(&in, 0);
	in.basic_type = SQK_FILE;
	is_int(sqk_inode_type(&in), SQK_FILE, "type: a plain file is basic");
	in.nlink = 2;
	is_int(sqk_inode_type(&in), SQK_LFILE, "type: a hard-linked file is extended");
	in.nlink = 1, in.file_size = 0x100000000ull;
	is_int(sqk_inode_type(&in), SQK_LFILE, "type: a 4 GiB file is extended");
	in.file_size = 1, in.sparse = 4096;
	is_int(sqk_inode_type(&in), SQK_LFILE, "type: a file with sparse blocks is extended");
	in.sparse = 0, in.blocks_start = 0x100000000ull;
	is_int(sqk_inode_type(&in), SQK_LFILE, "type: blocks past 4 GiB need the extended form");
	base(&in, 0);
	in.basic_type = SQK_DIR, in.dir_size = 0xffff;
	is_int(sqk_inode_type(&in), SQK_DIR, "type: a 64 KiB - 1 listing fits a basic directory");
	in.dir_size = 0x10000;
	is_int(sqk_inode_type(&in), SQK_LDIR, "type: a larger listing needs the extended form");
	in.dir_size = 3, in.index_count = 1;
	is_int(sqk_inode_type(&in), SQK_LDIR, "type: an index needs the extended form");
	base(&in, 0);
	in.basic_type = SQK_SYMLINK, in.xattr = 0;
	is_int(sqk_inode_type(&in), SQK_LSYMLINK, "type: xattrs need the extended form");
}

static void test_dir_small(void)
{
	struct sqk_meta_writer *mw = malloc(sizeof(*mw));
	const struct sqk_dir_entry ents[] = {
		{"a", 1, 0x20, 5, SQK_FILE},
		{"bb", 2, 0x40, 6, SQK_DIR},
		{"c", 1, ((uint64_t)0x100 << 16) | 0x10, 7, SQK_SYMLINK},  /* another inode block */
		{"d", 1, ((uint64_t)0x100 << 16) | 0x30, 40000, SQK_FILE}, /* delta past s16 */
	};
	const uint8_t want[] = {/* header: 2 entries, inode block 0, base inode 5 */
				1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0,
				/* a: offset 0x20, delta 0, type 2, name size - 1 = 0 */
				0x20, 0, 0, 0, 2, 0, 0, 0, 'a',
				/* bb: offset 0x40, delta 1, type 1, name size - 1 = 1 */
				0x40, 0, 1, 0, 1, 0, 1, 0, 'b', 'b',
				/* header: 1 entry, inode block 0x100, base 7 */
				0, 0, 0, 0, 0, 1, 0, 0, 7, 0, 0, 0, 0x10, 0, 0, 0, 3, 0, 0, 0, 'c',
				/* header: 1 entry, inode block 0x100, base 40000 = 0x9c40 */
				0, 0, 0, 0, 0, 1, 0, 0, 0x40, 0x9c, 0, 0, 0x30, 0, 0, 0, 2, 0, 0, 0,
				'd'};
	struct sqk_dir_result r;
	uint8_t out[256];
	size_t n;

	sqk_mw_init(mw, &pass, NULL, 0, 0);
	sqk_dir_write(mw, ents, 4, NULL, NULL, &r);
	sqk_mw_flush(mw);
	n = meta_stream_of(mw->mem, mw->out_len, out);
	is_int(r.size, sizeof(want), "dir: listing size");
	ok(n == sizeof(want) && memcmp(out, want, sizeof(want)) == 0,
	   "dir: new headers for another inode block and for a delta past s16");
	is_int(r.index_count, 0, "dir: a listing in one metadata block has no index");
	free(r.index);
	sqk_mw_release(mw);
	free(mw);
}

static void test_dir_256(void)
{
	struct sqk_meta_writer *mw = malloc(sizeof(*mw));
	struct sqk_dir_entry ents[300];
	static char names[300][4];
	static uint8_t out[8192];
	struct sqk_dir_result r;
	size_t n;

	for (int i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "%03d", i);
		ents[i] = (struct sqk_dir_entry){names[i], 3, (uint64_t)i * 16, (uint32_t)i + 1,
						 SQK_FILE};
	}
	sqk_mw_init(mw, &pass, NULL, 0, 0);
	sqk_dir_write(mw, ents, 300, NULL, NULL, &r);
	sqk_mw_flush(mw);
	n = meta_stream_of(mw->mem, mw->out_len, out);
	/* 256 entries of 8 + 3 bytes after a 12-byte header: the next header is at 2828. */
	is_int(n, 12 + 256 * 11 + 12 + 44 * 11, "dir: 300 entries take two headers");
	is_int(get_le32(out), 255, "dir: first header holds 256 entries (stored 255)");
	is_int(get_le32(out + 2828), 43, "dir: second header holds 44 (stored 43)");
	is_int(get_le32(out + 2828 + 8), 257, "dir: second header's base is entry 256's inode");
	free(r.index);
	sqk_mw_release(mw);
	free(mw);
}

/*
 * 300 entries with 100-byte names (108 bytes each) in one inode block. A
 * new header starts when an entry would begin in the next 8 KiB block:
 * entry 76 at 8220, entry 152 at 16440, entry 228 at 24660. Pass-through
 * blocks are 8194 bytes, so those headers' blocks start at 8194, 16388 and
 * 24582, and each gets an index entry.
 */
static void test_dir_index(void)
{
	struct sqk_meta_writer *mw = malloc(sizeof(*mw));
	struct sqk_dir_entry ents[300];
	static char names[300][101];
	static uint8_t out[40000], want_index[3 * (12 + 100)];
	const uint32_t hdr_pos[4] = {0, 8220, 16440, 24660}, first[4] = {0, 76, 152, 228};
	const uint32_t counts[4] = {76, 76, 76, 72}, starts[3] = {8194, 16388, 24582};
	struct sqk_dir_result r;
	size_t n;
	int good = 1;

	for (int i = 0; i < 300; i++) {
		memset(names[i], 'x', 100);
		names[i][0] = (char)('A' + i / 26 / 26 % 26);
		names[i][1] = (char)('A' + i / 26 % 26);
		names[i][2] = (char)('A' + i % 26);
		ents[i] = (struct sqk_dir_entry){names[i], 100, 0x40 + (uint64_t)i,
						 (uint32_t)i + 10, SQK_FILE};
	}
	sqk_mw_init(mw, &pass, NULL, 0, 0);
	sqk_dir_write(mw, ents, 300, NULL, NULL, &r);
	sqk_mw_flush(mw);
	n = meta_stream_of(mw->mem, mw->out_len, out);
	is_int(r.size, 24660 + 12 + 72 * 108, "dir index: listing size");
	is_int(n, r.size, "dir index: the stream holds the listing");
	for (int h = 0; h < 4; h++) {
		const uint8_t *p = out + hdr_pos[h];

		good &= get_le32(p) == counts[h] - 1 && get_le32(p + 4) == 0 &&
			get_le32(p + 8) == first[h] + 10;
		good &= memcmp(p + 12 + 8, names[first[h]], 100) == 0;
	}
	ok(good, "dir index: headers at 0, 8220, 16440, 24660 with 76, 76, 76, 72 entries");
	for (int k = 0; k < 3; k++) {
		uint8_t *p = want_index + k * 112;

		put_le32(p, hdr_pos[k + 1]);
		put_le32(p + 4, starts[k]);
		put_le32(p + 8, 99);
		memcpy(p + 12, names[first[k + 1]], 100);
	}
	is_int(r.index_count, 3, "dir index: one entry per metadata block crossed");
	ok(r.index_len == sizeof(want_index) &&
		   memcmp(r.index, want_index, sizeof(want_index)) == 0,
	   "dir index: entries give listing offset, block start and first name");
	free(r.index);
	sqk_mw_release(mw);
	free(mw);
}

static void test_ids(void)
{
	struct sqk_id_table t;
	struct sqk_file *f = sqk_file_mem(NULL, 0);
	const uint8_t want[] = {0x0c, 0x80, 0xe8, 0x03, 0, 0, 0, 0, 0, 0, 0xfe, 0xff, 0, 0,
				/* lookup: the block is at 0 */
				0, 0, 0, 0, 0, 0, 0, 0};
	const uint8_t *data;
	uint64_t pos = 0, lookup = 0;
	uint16_t a, b, c, d;
	size_t len;
	int err = 0;

	sqk_id_table_init(&t);
	sqk_id_table_get(&t, 1000, &a);
	sqk_id_table_get(&t, 0, &b);
	sqk_id_table_get(&t, 1000, &c);
	sqk_id_table_get(&t, 65534, &d);
	ok(a == 0 && b == 1 && c == 0 && d == 2, "ids: numbered by first use, found again");
	sqk_id_table_write(&t, &pass, f, &pos, &lookup);
	data = sqk_file_mem_data(f, &len);
	is_int(lookup, 14, "ids: the lookup list follows the block");
	is_int(pos, 22, "ids: the table ends after one u64");
	ok(len == sizeof(want) && memcmp(data, want, sizeof(want)) == 0,
	   "ids: u32 ids in a stored metadata block, then its u64 position");
	sqk_id_table_release(&t);
	sqk_file_destroy(f);

	sqk_id_table_init(&t);
	for (uint32_t i = 0; i < 65535 && !err; i++)
		err = sqk_id_table_get(&t, i * 3, &a);
	ok(!err && t.count == 65535, "ids: 65535 distinct ids fit");
	is_int(sqk_id_table_get(&t, 7, &a), SQK_ERR_OVERFLOW, "ids: the 65536th is refused");
	is_int(sqk_id_table_get(&t, 3, &a), 0, "ids: known ids are still found when full");
	sqk_id_table_release(&t);
}

/*
 * The encoders run the reader's rules before a byte goes out: with limits,
 * an inode or an entry the reader would refuse is SQK_ERR_OVERFLOW, the
 * rule is reported, and the stream stays empty.
 */
static void test_refusals(void)
{
	struct sqk_fmt_limits lim = {4096, 10, 0, 3};
	struct sqk_fmt_issue issue = {"", 0, ""};
	struct sqk_fmt_report r = {sqk_fmt_keep_first, &issue, 0};
	struct sqk_meta_writer *mw = malloc(sizeof(*mw));
	const struct sqk_dir_entry far[] = {{"a", 1, 0x20, 5, SQK_FILE},
					    {"b", 1, 0x40, 11, SQK_FILE}};
	struct sqk_dir_result res;
	struct sqk_inode_info in;
	static char target[5000];
	int err;

	memset(target, 't', sizeof(target));
	base(&in, 0);
	in.basic_type = SQK_SYMLINK;
	in.target = target;
	in.target_len = 4096;
	sqk_mw_init(mw, &pass, NULL, 0, 0);
	err = sqk_inode_write(mw, &in, &lim, &r);
	ok(err == 0 && mw->total > 4096, "refusals: a 4096-byte target is written");
	sqk_mw_release(mw);

	in.target_len = 5000;
	sqk_mw_init(mw, &pass, NULL, 0, 0);
	err = sqk_inode_write(mw, &in, &lim, &r);
	ok(err == SQK_ERR_OVERFLOW && strcmp(issue.field, "target_len") == 0 &&
		   issue.value == 5000 && mw->total == 0,
	   "refusals: a 5000-byte target is refused as target_len, nothing written");
	sqk_mw_release(mw);

	base(&in, 0);
	in.basic_type = SQK_FIFO;
	in.uid_idx = 3;
	sqk_mw_init(mw, &pass, NULL, 0, 0);
	err = sqk_inode_write(mw, &in, &lim, &r);
	ok(err == SQK_ERR_OVERFLOW && strcmp(issue.field, "uid_idx") == 0 && mw->total == 0,
	   "refusals: an owner beyond the id table is refused");
	sqk_mw_release(mw);

	base(&in, 0);
	in.basic_type = SQK_FILE;
	in.file_size = 5000;
	in.frag_index = SQK_INVALID_FRAG;
	in.nblocks = 1; /* 5000 bytes in 4K blocks need two */
	in.blocks = (const uint32_t[]){4096 | 0x1000000u};
	sqk_mw_init(mw, &pass, NULL, 0, 0);
	err = sqk_inode_write(mw, &in, &lim, &r);
	ok(err == SQK_ERR_OVERFLOW && strcmp(issue.field, "file_size") == 0 && mw->total == 0,
	   "refusals: a block list of the wrong length is refused");
	sqk_mw_release(mw);

	sqk_mw_init(mw, &pass, NULL, 0, 0);
	err = sqk_dir_write(mw, far, 2, &lim, &r, &res);
	ok(err == SQK_ERR_OVERFLOW && strcmp(issue.field, "inode_number") == 0 && issue.value == 11,
	   "refusals: an entry beyond inode_count is refused");
	free(res.index);
	sqk_mw_release(mw);
	free(mw);
}

int main(void)
{
	test_meta();
	test_inodes();
	test_dir_small();
	test_dir_256();
	test_dir_index();
	test_ids();
	test_refusals();
	return tap_done();
}
