// SPDX-License-Identifier: BSD-2-Clause
/*
 * tamper: break one thing in an image, for the fsck tests.
 *
 *   tamper KIND IN OUT
 *
 * IN is an image whose metadata is stored uncompressed (mksquashfs -noI
 * -noD -noF -noX), so every structure can be found and changed in place:
 * the tool walks the inode table, finds entries by name in the directory
 * table, and changes one field. Which field each KIND changes is in the
 * table at the end; the tree the test builds holds the names used there
 * (the kernel-* kinds: tests/interop/kernel-refuses.t's trees and images).
 * Prints what it changed on stdout; exit 1 when the image does not hold
 * what the kind needs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressors/compressor.h"
#include "format/fmt_super.h"
#include "format/format.h"
#include "lib/zlib_refused.h"
#include "util/le.h"

static uint8_t *img;
static size_t img_len;
static struct sqk_super sb;

static __attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...)
{
	va_list ap;

	fputs("tamper: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- uncompressed metadata: a linear offset maps to a file position ---- */

/* Every block but the last holds 8192 bytes behind its 2-byte header. */
static uint64_t lpos(uint64_t table, uint64_t lin)
{
	uint64_t pos =
		table + (lin / SQK_META_SIZE) * (SQK_META_SIZE + 2) + 2 + lin % SQK_META_SIZE;

	if (pos >= img_len)
		die("offset %llu of the table at %llu is past the image", (unsigned long long)lin,
		    (unsigned long long)table);
	return pos;
}

static uint64_t ref_lin(uint64_t ref)
{
	return SQK_REF_BLOCK(ref) / (SQK_META_SIZE + 2) * SQK_META_SIZE + SQK_REF_OFFSET(ref);
}

static uint32_t rd(uint64_t table, uint64_t lin, int bytes)
{
	uint32_t v = 0;
	int i;

	for (i = bytes - 1; i >= 0; i--)
		v = (v << 8) | img[lpos(table, lin + (uint64_t)i)];
	return v;
}

static void wr(uint64_t table, uint64_t lin, int bytes, uint32_t v)
{
	int i;

	for (i = 0; i < bytes; i++, v >>= 8)
		img[lpos(table, lin + (uint64_t)i)] = (uint8_t)v;
}

/* Check that a table is stored as uncompressed blocks; returns its linear length. */
static uint64_t table_len(uint64_t start, uint64_t end)
{
	uint64_t pos = start, len = 0;

	while (pos < end) {
		uint16_t h = get_le16(img + pos);

		if (!(h & SQK_META_UNCOMPRESSED))
			die("the table at %llu is compressed (needs -noI -noD -noF -noX)",
			    (unsigned long long)start);
		len += h & SQK_META_SIZE_MASK;
		pos += 2 + (h & SQK_META_SIZE_MASK);
	}
	return len;
}

/* ---- inodes ---- */

#define IT sb.inode_table
#define DT sb.dir_table

struct ino {
	uint64_t lin; /* in the inode table */
	unsigned type;
	uint32_t number;
};

static struct ino inodes[4096];
static unsigned ninodes;

static uint64_t inode_size(uint64_t lin, unsigned type)
{
	uint64_t size, blocks;
	uint32_t frag, i, n;

	switch (type) {
	case SQK_DIR:
		return 32;
	case SQK_LDIR:
		n = rd(IT, lin + 32, 2);
		size = 40;
		for (i = 0; i < n; i++)
			size += 12 + rd(IT, lin + size + 8, 4) + 1;
		return size;
	case SQK_FILE:
	case SQK_LFILE:
		if (type == SQK_FILE) {
			frag = rd(IT, lin + 20, 4);
			size = rd(IT, lin + 28, 4);
		} else {
			frag = rd(IT, lin + 44, 4);
			size = rd(IT, lin + 24, 4) | (uint64_t)rd(IT, lin + 28, 4) << 32;
		}
		blocks = size / sb.block_size;
		if (frag == SQK_INVALID_FRAG && size % sb.block_size)
			blocks++;
		return (type == SQK_FILE ? 32 : 56) + 4 * blocks;
	case SQK_SYMLINK:
	case SQK_LSYMLINK:
		return 24 + rd(IT, lin + 20, 4) + (type == SQK_LSYMLINK ? 4 : 0);
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		return 24;
	case SQK_LBLKDEV:
	case SQK_LCHRDEV:
		return 28;
	case SQK_FIFO:
	case SQK_SOCKET:
		return 20;
	default:
		return 24;
	}
}

static void scan_inodes(void)
{
	uint64_t len = table_len(IT, DT), lin = 0;

	while (lin < len) {
		struct ino *n = &inodes[ninodes++];

		if (ninodes == sizeof(inodes) / sizeof(inodes[0]))
			die("too many inodes");
		n->lin = lin;
		n->type = rd(IT, lin, 2);
		n->number = rd(IT, lin + 12, 4);
		if (n->type < 1 || n->type > 14)
			die("inode at %llu has type %u", (unsigned long long)lin, n->type);
		lin += inode_size(lin, n->type);
	}
}

static struct ino *by_lin(uint64_t lin)
{
	unsigned i;

	for (i = 0; i < ninodes; i++)
		if (inodes[i].lin == lin)
			return &inodes[i];
	die("no inode at %llu", (unsigned long long)lin);
}

/* ---- directories ---- */

struct dirinfo {
	uint64_t listing; /* linear offset in the directory table */
	uint32_t size;	  /* listing bytes */
};

static struct dirinfo dir_of(const struct ino *d)
{
	struct dirinfo di;
	uint32_t block, offset;

	if (d->type == SQK_DIR) {
		block = rd(IT, d->lin + 16, 4);
		di.size = rd(IT, d->lin + 24, 2) - 3;
		offset = rd(IT, d->lin + 26, 2);
	} else if (d->type == SQK_LDIR) {
		di.size = rd(IT, d->lin + 20, 4) - 3;
		block = rd(IT, d->lin + 24, 4);
		offset = rd(IT, d->lin + 34, 2);
	} else {
		die("inode %u is not a directory", d->number);
	}
	di.listing = ref_lin(SQK_MKREF(block, offset));
	return di;
}

/* An entry: where it is in the directory table, its header, and its inode. */
struct entry {
	uint64_t at, header;
	struct ino *ino;
	uint32_t name_len;
};

static int find_entry(const struct ino *d, const char *name, struct entry *out)
{
	struct dirinfo di = dir_of(d);
	uint64_t lin = di.listing, end = di.listing + di.size;

	while (lin < end) {
		uint32_t count = rd(DT, lin, 4) + 1, start = rd(DT, lin + 4, 4), i;
		uint64_t header = lin;

		lin += 12;
		for (i = 0; i < count; i++) {
			uint32_t off = rd(DT, lin, 2), len = rd(DT, lin + 6, 2) + 1, k;
			char buf[257];

			for (k = 0; k < len; k++)
				buf[k] = (char)rd(DT, lin + 8 + k, 1);
			buf[len] = '\0';
			if (strcmp(buf, name) == 0) {
				out->at = lin;
				out->header = header;
				out->name_len = len;
				out->ino = by_lin(ref_lin(SQK_MKREF(start, off)));
				return 1;
			}
			lin += 8 + len;
		}
	}
	return 0;
}

static struct ino *root(void)
{
	return by_lin(ref_lin(sb.root_inode));
}

/* Resolve "a/b/c" from the root; the entry naming the last component. */
static struct entry lookup(const char *path)
{
	struct ino *d = root();
	char copy[1024], *tok, *save = NULL;
	struct entry e = {0, 0, NULL, 0};

	snprintf(copy, sizeof(copy), "%s", path);
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!find_entry(d, tok, &e))
			die("no entry %s in %s", tok, path);
		d = e.ino;
	}
	return e;
}

/* ---- the kinds ---- */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void k_magic(void)
{
	put_le32(img, 0x12345678);
	say("superblock: magic 0x12345678");
}

static void k_flags(void)
{
	put_le16(img + 24, get_le16(img + 24) | 0x8000);
	say("superblock: flag 0x8000 set");
}

static void k_compressor(void)
{
	put_le16(img + 20, 9);
	say("superblock: compressor id 9");
}

static void k_comp_options(void)
{
	/* gzip options: level (u32), window (u16), strategies (u16); level 42 is invalid. */
	if (!(sb.flags & SQK_FLAG_COMPRESSOR_OPTIONS) || sb.compressor != SQK_COMP_GZIP ||
	    !(get_le16(img + SQK_SUPER_SIZE) & SQK_META_UNCOMPRESSED))
		die("no uncompressed gzip options block (mksquashfs -comp gzip -Xcompression-level "
		    "1)");
	put_le32(img + SQK_SUPER_SIZE + 2, 42);
	say("compressor: gzip level 42 in the options block");
}

static void k_metadata(void)
{
	/* The directory table's first block claims to be compressed: it is not a valid stream. */
	put_le16(img + DT, get_le16(img + DT) & SQK_META_SIZE_MASK);
	say("directory table: first block marked compressed");
}

static void k_inode(void)
{
	struct entry e = lookup("link");

	wr(IT, e.ino->lin + 24, 1, 0); /* the target "hello" becomes "\0ello" */
	say("inode: symlink target with a NUL byte");
}

static void k_number(void)
{
	struct entry a = lookup("hello"), b = lookup("sub/inner");

	wr(IT, b.ino->lin + 12, 4, a.ino->number);
	say("inode-number: sub/inner takes number %u of hello", a.ino->number);
}

/* Make entry e name inode n (both in the one-block inode table). */
static void retarget(const struct entry *e, const struct ino *n)
{
	uint32_t base = rd(DT, e->header + 8, 4);

	if (rd(DT, e->header + 4, 4) != 0 || n->lin >= SQK_META_SIZE)
		die("the inode table is more than one block");
	wr(DT, e->at, 2, (uint32_t)n->lin);
	wr(DT, e->at + 2, 2, (uint16_t)(int16_t)((int64_t)n->number - base));
}

static void k_orphan(void)
{
	/* sub/inner's entry names sub/other's inode: inner is listed nowhere. */
	struct entry in = lookup("sub/inner");

	retarget(&in, lookup("sub/other").ino);
	say("orphan: sub/inner names sub/other's inode");
}

static void k_nlink(void)
{
	struct entry e = lookup("link");

	wr(IT, e.ino->lin + 16, 4, 7);
	say("nlink: link's link count 7");
}

static void k_dir_header(void)
{
	struct dirinfo di = dir_of(lookup("big").ino);

	wr(DT, di.listing, 4, 299);
	say("dir-header: a header of big announces 300 entries");
}

static void k_dir_name(void)
{
	struct entry e = lookup("hello");

	wr(DT, e.at + 8 + 2, 1, '/');
	say("dir-name: hello becomes he/lo");
}

static void k_dir_order(void)
{
	struct entry e = lookup("sub");

	wr(DT, e.at + 8, 1, 'a');
	say("dir-order: sub becomes aub, after hello");
}

static void k_dir_entry(void)
{
	struct entry e = lookup("hello");

	wr(DT, e.at, 2, rd(DT, e.at, 2) + 4);
	say("dir-entry: hello's entry points 4 bytes into its inode");
}

static void k_dir_type(void)
{
	struct entry e = lookup("hello");

	wr(DT, e.at + 4, 2, SQK_SYMLINK);
	say("dir-type: hello listed as a symlink");
}

static void k_dir_link_type(void)
{
	struct entry e = lookup("shared2");

	wr(DT, e.at + 4, 2, SQK_FIFO);
	say("dir-link-type: shared2, a hard link of shared (met first), listed as a fifo");
}

static void k_dir_size(void)
{
	struct ino *s = lookup("sub").ino;

	if (s->type != SQK_DIR)
		die("sub is not a basic directory");
	wr(IT, s->lin + 24, 2, rd(IT, s->lin + 24, 2) - 2);
	say("dir-size: sub's listing size 2 bytes short");
}

static void k_dir_parent(void)
{
	struct ino *s = lookup("sub").ino;

	wr(IT, s->lin + 28, 4, lookup("hello").ino->number);
	say("dir-parent: sub's parent is hello's number");
}

static void k_dir_loop(void)
{
	/* sub/inner's entry names sub itself, a directory inside itself. */
	struct entry in = lookup("sub/inner");

	retarget(&in, lookup("sub").ino);
	wr(DT, in.at + 4, 2, SQK_DIR);
	say("dir-loop: sub/inner names sub");
}

static void k_dir_cycle(void)
{
	/* sub/deep/back names sub, and sub names deep as its parent: a cycle. */
	struct entry back = lookup("sub/deep/back");
	struct ino *sub = lookup("sub").ino, *deep = lookup("sub/deep").ino;

	retarget(&back, sub);
	wr(DT, back.at + 4, 2, SQK_DIR);
	wr(IT, sub->lin + 28, 4, deep->number);
	say("dir-loop: sub/deep/back names sub, whose parent is sub/deep");
}

static void k_dir_index(void)
{
	struct ino *b = lookup("big").ino;

	if (b->type != SQK_LDIR || rd(IT, b->lin + 32, 2) == 0)
		die("big has no index");
	/* The first index entry's name: its last byte changes. */
	wr(IT, b->lin + 40 + 12 + rd(IT, b->lin + 40 + 8, 4), 1, '~');
	say("dir-index: big's first index name changed");
}

/* The first block word of a file inode, and its position. */
static uint64_t first_block(struct ino *f)
{
	if (f->type == SQK_FILE)
		return f->lin + 32;
	if (f->type == SQK_LFILE)
		return f->lin + 56;
	die("not a file");
}

static void k_data(void)
{
	struct ino *f = lookup("data").ino;
	uint64_t w = first_block(f);

	if (rd(IT, f->lin + (f->type == SQK_FILE ? 28 : 24), 4) < sb.block_size)
		die("data has no full block");

	wr(IT, w, 4, rd(IT, w, 4) - 1);
	say("data: data's first block word one byte short");
}

static void k_fragment(void)
{
	struct ino *f = lookup("hello").ino;

	if (f->type != SQK_FILE && f->type != SQK_LFILE)
		die("hello is not a file");
	wr(IT, f->lin + (f->type == SQK_FILE ? 24 : 48), 4, sb.block_size - 2);
	say("fragment: hello's tail at offset %u", sb.block_size - 2);
}

static void k_sparse(void)
{
	struct ino *f = lookup("holes").ino;

	if (f->type != SQK_LFILE)
		die("holes is not an extended file");
	wr(IT, f->lin + 32, 4, 5);
	wr(IT, f->lin + 36, 4, 0);
	say("sparse: holes' sparse count 5");
}

static void k_id(void)
{
	wr(IT, lookup("hello").ino->lin + 4, 2, 40);
	say("id: hello's uid index 40");
}

static void k_xattr(void)
{
	struct ino *f = lookup("shared").ino;

	if (f->type != SQK_LFILE)
		die("shared is not an extended file");
	wr(IT, f->lin + 52, 4, 1000);
	say("xattr: shared's xattr index 1000");
}

static void k_export(void)
{
	uint64_t list, block;

	if (sb.export_table == SQK_INVALID_TABLE)
		die("no export table");
	list = sb.export_table;
	block = get_le64(img + list);
	if (!(get_le16(img + block) & SQK_META_UNCOMPRESSED))
		die("the export table is compressed");
	/* Entry 0 (inode 1) points 4 bytes further. */
	put_le64(img + block + 2, get_le64(img + block + 2) + 4);
	say("export: the entry of inode 1 moved by 4 bytes");
}

/* ---- blocks the kernel's decoder refuses, their data intact ---- */

static uint64_t file_field(const struct ino *f, unsigned basic, unsigned extended, int wide)
{
	uint64_t lin = f->lin + (f->type == SQK_FILE ? basic : extended);

	if (f->type == SQK_FILE || !wide)
		return rd(IT, lin, 4);
	return rd(IT, lin, 4) | (uint64_t)rd(IT, lin + 4, 4) << 32;
}

#define FILE_START(f)	  file_field(f, 16, 16, 1)
#define FILE_FRAG(f)	  file_field(f, 20, 44, 0)
#define FILE_OFFSET_AT(f) ((f)->lin + ((f)->type == SQK_FILE ? 24 : 48))
#define FILE_SIZE(f)	  file_field(f, 28, 24, 1)

static struct ino *file_named(const char *name)
{
	struct ino *f = lookup(name).ino;

	if (f->type != SQK_FILE && f->type != SQK_LFILE)
		die("%s is not a file", name);
	return f;
}

/* Write the stream zlib refuses at pos; returns its length. */
static uint32_t put_refused(uint64_t pos)
{
	if (pos + sizeof(refused_sound) > img_len)
		die("no room for the stream at %llu", (unsigned long long)pos);
	refused_stream(img + pos);
	return sizeof(refused_sound);
}

/*
 * pattern and copy (the same REFUSED_LEN bytes, so mksquashfs stores one
 * block for both; -no-fragments): that block becomes the stream. Stored
 * uncompressed (-noD), or compressed into at least the stream's length:
 * the stream is written in its place and the bytes after it are left over.
 */
static void k_kernel_block(void)
{
	struct ino *p = file_named("pattern"), *c = file_named("copy");
	uint64_t start = FILE_START(p);
	uint32_t len, word;

	if (FILE_SIZE(p) != REFUSED_LEN || FILE_FRAG(p) != SQK_INVALID_FRAG ||
	    FILE_START(c) != start || FILE_SIZE(c) != REFUSED_LEN)
		die("pattern and copy must share one block of %u bytes", REFUSED_LEN);
	word = rd(IT, first_block(p), 4);
	if (word != (REFUSED_LEN | SQK_BLOCK_UNCOMPRESSED) &&
	    (word & SQK_BLOCK_UNCOMPRESSED || word < sizeof(refused_sound)))
		die("pattern's block must be stored uncompressed, or compressed into %zu bytes or "
		    "more",
		    sizeof(refused_sound));
	len = put_refused(start);
	wr(IT, first_block(p), 4, len);
	wr(IT, first_block(c), 4, len);
	say("kernel-block: the block of pattern and copy at %llu (%u bytes)",
	    (unsigned long long)start, len);
}

/*
 * pattern (REFUSED_LEN bytes) and part (100 bytes of the pattern from
 * offset 300) have their tails in one fragment, stored uncompressed (-noF):
 * its block becomes the stream, which holds the pattern, so pattern's tail
 * is at 0 and part's at 300.
 */
static void k_kernel_fragment(void)
{
	struct ino *p = file_named("pattern"), *q = file_named("part");
	uint32_t idx = FILE_FRAG(p), word, len;
	uint64_t block, entry;

	if (FILE_SIZE(p) != REFUSED_LEN || FILE_SIZE(q) != 100 || idx == SQK_INVALID_FRAG ||
	    FILE_FRAG(q) != idx || sb.fragment_table == SQK_INVALID_TABLE)
		die("pattern and part must have their tails in one fragment");
	block = get_le64(img + sb.fragment_table + idx / 512 * 8);
	if (!(get_le16(img + block) & SQK_META_UNCOMPRESSED))
		die("the fragment table is compressed");
	entry = block + 2 + (uint64_t)idx % 512 * 16;
	word = get_le32(img + entry + 8);
	if (!(word & SQK_BLOCK_UNCOMPRESSED))
		die("fragment %u is compressed", idx);
	len = put_refused(get_le64(img + entry));
	put_le32(img + entry + 8, len);
	wr(IT, FILE_OFFSET_AT(p), 4, 0);
	wr(IT, FILE_OFFSET_AT(q), 4, 300);
	say("kernel-fragment: fragment %u (%u bytes), pattern's tail at 0, part's at 300", idx,
	    len);
}

/*
 * One bit of the xattr table's first metadata block flipped, the first
 * that zlib's inflate refuses and libdeflate reads to the same bytes: in a
 * fixed-Huffman block, the code of a 258-byte match (length symbol 285)
 * turned into that of 287, which zlib refuses and libdeflate reads as 285.
 * Needs a gzip image made with -X strategy=fixed and a long repeated value.
 */
static void k_kernel_xattr(void)
{
	uint8_t want[SQK_META_SIZE], got[SQK_META_SIZE], *blk;
	struct sqk_comp_config cfg;
	struct sqk_compressor *c;
	size_t want_len, got_len;
	uint64_t kv, bit;
	uint32_t size;
	uint16_t h;

	if (sb.xattr_table == SQK_INVALID_TABLE || sb.compressor != SQK_COMP_GZIP)
		die("no xattr table, or not gzip");
	kv = get_le64(img + sb.xattr_table);
	h = get_le16(img + kv);
	size = h & SQK_META_SIZE_MASK;
	blk = img + kv + 2;
	if (h & SQK_META_UNCOMPRESSED)
		die("the xattr table is not compressed");
	if (sqk_comp_config_init(&cfg, SQK_COMP_GZIP, sb.block_size) ||
	    !(c = sqk_comp_create(&cfg)) ||
	    c->decompress(c, blk, size, want, sizeof(want), &want_len) != 0)
		die("the xattr table's first block does not decompress");
	for (bit = 0; bit < (uint64_t)size * 8; bit++) {
		blk[bit / 8] ^= (uint8_t)(1u << bit % 8);
		if (c->decompress_kernel(c, blk, size, got, sizeof(got), &got_len) != 0 &&
		    c->decompress(c, blk, size, got, sizeof(got), &got_len) == 0 &&
		    got_len == want_len && !memcmp(got, want, want_len)) {
			c->destroy(c);
			say("kernel-xattr: bit %u of byte %llu of the xattr block at %llu",
			    (unsigned)(bit % 8), (unsigned long long)(kv + 2 + bit / 8),
			    (unsigned long long)kv);
			return;
		}
		blk[bit / 8] ^= (uint8_t)(1u << bit % 8);
	}
	c->destroy(c);
	die("no bit of the xattr block at %llu turns it into one only libdeflate reads",
	    (unsigned long long)kv);
}

static const struct {
	const char *name;
	void (*run)(void);
} kinds[] = {
	{"magic", k_magic},
	{"flags", k_flags},
	{"compressor", k_compressor},
	{"comp-options", k_comp_options},
	{"metadata", k_metadata},
	{"inode", k_inode},
	{"inode-number", k_number},
	{"orphan", k_orphan},
	{"nlink", k_nlink},
	{"dir-header", k_dir_header},
	{"dir-name", k_dir_name},
	{"dir-order", k_dir_order},
	{"dir-entry", k_dir_entry},
	{"dir-type", k_dir_type},
	{"dir-link-type", k_dir_link_type},
	{"dir-size", k_dir_size},
	{"dir-parent", k_dir_parent},
	{"dir-loop", k_dir_loop},
	{"dir-cycle", k_dir_cycle},
	{"dir-index", k_dir_index},
	{"data", k_data},
	{"fragment", k_fragment},
	{"sparse", k_sparse},
	{"id", k_id},
	{"xattr", k_xattr},
	{"export", k_export},
	{"kernel-block", k_kernel_block},
	{"kernel-fragment", k_kernel_fragment},
	{"kernel-xattr", k_kernel_xattr},
};

int main(int argc, char **argv)
{
	FILE *fp;
	size_t i;
	long n;

	if (argc != 4) {
		fputs("usage: tamper KIND IN OUT\nkinds:", stderr);
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			fprintf(stderr, " %s", kinds[i].name);
		fputc('\n', stderr);
		return 2;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(argv[1], kinds[i].name) == 0)
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		die("unknown kind %s", argv[1]);
	fp = fopen(argv[2], "rb");
	if (!fp || fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < SQK_SUPER_SIZE ||
	    fseek(fp, 0, SEEK_SET))
		die("%s: cannot read", argv[2]);
	img = malloc(img_len = (size_t)n);
	if (!img || fread(img, 1, img_len, fp) != img_len)
		die("%s: cannot read", argv[2]);
	fclose(fp);
	sqk_fmt_super_decode(&sb, img);
	if (sb.magic != SQK_MAGIC || sb.dir_table >= img_len || sb.inode_table >= sb.dir_table)
		die("%s: not a squashfs image", argv[2]);
	scan_inodes();
	kinds[i].run();
	fp = fopen(argv[3], "wb");
	if (!fp || fwrite(img, 1, img_len, fp) != img_len || fclose(fp))
		die("%s: cannot write", argv[3]);
	free(img);
	return 0;
}
