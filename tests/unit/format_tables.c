// SPDX-License-Identifier: BSD-2-Clause
/*
 * The format codec for the superblock, metadata headers, lookup tables and
 * xattr entries: encode -> decode round trips (with a few bytes checked
 * against the format by hand) and each rule reporting under its field
 * name. format_tables_agree.c has the reader and fsck agree about the
 * same bytes.
 */
#include <stdio.h>
#include <string.h>

#include "format/fmt_meta.h"
#include "format/fmt_super.h"
#include "format/fmt_table.h"
#include "format/fmt_xattr.h"
#include "tap.h"
#include "util/error.h"

/* The broken rules a check reported. */
struct seen {
	char fields[16][32];
	unsigned n;
	int stop_after; /* 0: go on */
};

static int collect(void *ctx, const struct sqk_fmt_issue *i)
{
	struct seen *s = ctx;

	if (s->n < 16)
		snprintf(s->fields[s->n], sizeof(s->fields[0]), "%s", i->field);
	s->n++;
	return s->stop_after && s->n >= (unsigned)s->stop_after;
}

static int seen_field(const struct seen *s, const char *field)
{
	unsigned i;

	for (i = 0; i < s->n && i < 16; i++)
		if (!strcmp(s->fields[i], field))
			return 1;
	return 0;
}

static void good_super(struct sqk_super *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->magic = SQK_MAGIC;
	sb->inode_count = 10;
	sb->mkfs_time = 1600000000;
	sb->block_size = 131072;
	sb->fragment_count = 2;
	sb->compressor = SQK_COMP_GZIP;
	sb->block_log = 17;
	sb->flags = SQK_FLAG_EXPORTABLE | SQK_FLAG_DUPLICATES;
	sb->id_count = 1;
	sb->version_major = 4;
	sb->version_minor = 0;
	sb->root_inode = SQK_MKREF(0, 32);
	sb->bytes_used = 20000;
	sb->inode_table = 10000;
	sb->dir_table = 11000;
	sb->fragment_table = 12000;
	sb->export_table = 13000;
	sb->id_table = 14000;
	sb->xattr_table = SQK_INVALID_TABLE;
}

static void test_round_trips(void)
{
	static const uint8_t want_meta_raw[] = {0x0a, 0x80}, want_meta_z[] = {0x00, 0x20};
	static const uint8_t want_frag[] = {8, 7, 6, 5, 4, 3, 2, 1, 0x10, 0, 0, 1, 0, 0, 0, 0};
	struct sqk_super sb, back;
	uint8_t raw[SQK_SUPER_SIZE], b[16];
	struct sqk_fmt_meta_hdr h = {10, 1}, h2;
	struct sqk_fmt_frag fe = {0x0102030405060708ull, 0x01000010, 0}, fe2;
	struct sqk_fmt_xattr_id xi = {SQK_MKREF(3, 17), 4, 99}, xi2;
	struct sqk_fmt_xattr_table xt = {123456789, 7, 0}, xt2;
	struct sqk_fmt_xattr_key k = {SQK_XATTR_SECURITY | SQK_XATTR_OOL, 9}, k2;

	good_super(&sb);
	sb.xattr_table = 0x1122334455667788ull;
	sqk_fmt_super_encode(&sb, raw);
	sqk_fmt_super_decode(&back, raw);
	ok(memcmp(&sb, &back, sizeof(sb)) == 0, "superblock: encode then decode gives every field");
	ok(memcmp(raw, "hsqs", 4) == 0, "superblock: the magic is \"hsqs\" at 0");
	ok(raw[12] == 0 && raw[13] == 0 && raw[14] == 2 && raw[15] == 0,
	   "superblock: block_size 131072 at 12, little-endian");
	ok(raw[56] == 0x88 && raw[63] == 0x11, "superblock: xattr_table at 56");
	ok(raw[88] == (13000 & 0xff) && raw[89] == (13000 >> 8), "superblock: export_table at 88");

	sqk_fmt_meta_hdr_encode(&h, b);
	is_mem(b, want_meta_raw, 2, "metadata header: 10 bytes stored raw is 0x800a");
	sqk_fmt_meta_hdr_decode(&h2, b);
	ok(h2.size == 10 && h2.raw == 1, "metadata header: decodes back");
	h.size = 8192;
	h.raw = 0;
	sqk_fmt_meta_hdr_encode(&h, b);
	is_mem(b, want_meta_z, 2, "metadata header: 8192 compressed is 0x2000");
	sqk_fmt_meta_hdr_decode(&h2, b);
	ok(h2.size == 8192 && h2.raw == 0, "metadata header: decodes back compressed");
	is_int(sqk_fmt_meta_word(&h2), 8192, "metadata header: as a size word");
	is_int(sqk_fmt_data_start(NULL), 96, "no options block: the data starts at 96");
	h.size = 16;
	h.raw = 1;
	is_int(sqk_fmt_data_start(&h), 96 + 2 + 16, "an options block of 16 bytes");

	sqk_fmt_frag_encode(&fe, b);
	is_mem(b, want_frag, 16, "fragment entry: start, size word, unused");
	sqk_fmt_frag_decode(&fe2, b);
	ok(!memcmp(&fe, &fe2, sizeof(fe)), "fragment entry: decodes back");

	sqk_fmt_id_encode(b, 0xdeadbeef);
	ok(b[0] == 0xef && b[3] == 0xde, "id entry: 4 bytes little-endian");
	is_int(sqk_fmt_id_decode(b), 0xdeadbeef, "id entry: decodes back");
	sqk_fmt_export_encode(b, SQK_MKREF(77, 5));
	ok(sqk_fmt_export_decode(b) == SQK_MKREF(77, 5) && b[0] == 5 && b[2] == 77,
	   "export entry: a reference, 8 bytes");
	sqk_fmt_lookup_encode(b, 0x1234567890ull);
	ok(sqk_fmt_lookup_decode(b) == 0x1234567890ull && b[0] == 0x90,
	   "lookup list: u64 positions");

	sqk_fmt_xattr_id_encode(&xi, b);
	sqk_fmt_xattr_id_decode(&xi2, b);
	ok(!memcmp(&xi, &xi2, sizeof(xi)) && b[8] == 4 && b[12] == 99,
	   "xattr id: ref, count at 8, size at 12");
	sqk_fmt_xattr_table_encode(&xt, b);
	sqk_fmt_xattr_table_decode(&xt2, b);
	ok(!memcmp(&xt, &xt2, sizeof(xt)) && b[8] == 7, "xattr table header: kv start, count");

	sqk_fmt_xattr_key_encode(&k, b);
	ok(b[0] == 2 && b[1] == 1 && b[2] == 9 && b[3] == 0,
	   "xattr key: type 0x102 (security, out of line), name size 9");
	sqk_fmt_xattr_key_decode(&k2, b);
	ok(k2.type == k.type && k2.name_size == 9 && sqk_fmt_xattr_ool(&k2),
	   "xattr key: decodes back, out of line");
	ok(!strcmp(sqk_fmt_xattr_prefix(&k2), "security."), "xattr key: its prefix");
	{
		size_t plen = 0;

		ok(sqk_fmt_xattr_type("trusted.x", &plen) == SQK_XATTR_TRUSTED && plen == 8,
		   "xattr prefix: trusted. is type 1");
		ok(sqk_fmt_xattr_type("system.x", &plen) < 0, "xattr prefix: system. has no type");
	}
	sqk_fmt_xattr_value_encode(b, 65536);
	is_int(sqk_fmt_xattr_value_decode(b), 65536, "xattr value size: decodes back");
	sqk_fmt_xattr_ref_encode(b, SQK_MKREF(1, 2));
	ok(sqk_fmt_xattr_ref_decode(b) == SQK_MKREF(1, 2), "xattr out-of-line ref: decodes back");
	is_int(sqk_fmt_table_blocks(2049, 4), 2, "2049 ids fill 2 blocks");
	is_int(sqk_fmt_table_block_bytes(2049, 4, 1), 4, "the second holds 4 bytes");
}

/* A check over sb: its result and the fields it reported. */
static int super_rules(const struct sqk_super *sb, uint64_t file_size, struct seen *s)
{
	struct sqk_fmt_report r = {collect, s, 0};

	memset(s, 0, sizeof(*s));
	return sqk_fmt_super_check(sb, file_size, &r);
}

static void test_rules(void)
{
	struct sqk_super sb;
	struct seen s;
	struct sqk_fmt_report r = {collect, &s, 0};
	struct sqk_fmt_meta_hdr h = {0, 0};
	struct sqk_fmt_frag fe = {200, 0, 0};
	struct sqk_fmt_xattr_id xi = {SQK_MKREF(50, 0), 0, 0};
	struct sqk_fmt_xattr_table xt = {5000, 1, 0};
	struct sqk_fmt_xattr_key k = {9, 0};
	uint64_t pos[3] = {100, 102, 200};
	int err;

	good_super(&sb);
	is_int(super_rules(&sb, 20480, &s), 0, "super: a good superblock breaks no rule");
	is_int(s.n, 0, "super: nothing reported");
	is_int(sqk_fmt_main_tables_check(&sb, 96, NULL), 0, "main tables: good");

	good_super(&sb);
	sb.magic = 0x12345678;
	is_int(super_rules(&sb, 20480, &s), SQK_ERR_MAGIC, "super: a bad magic is SQK_ERR_MAGIC");
	ok(s.n == 1 && seen_field(&s, "magic"), "super: reported as magic, and nothing more");
	good_super(&sb);
	sb.version_major = 3;
	is_int(super_rules(&sb, 20480, &s), SQK_ERR_VERSION, "super: version 3 is SQK_ERR_VERSION");
	ok(seen_field(&s, "version_major"), "super: reported as version_major");
	good_super(&sb);
	sb.block_size = 3000;
	is_int(super_rules(&sb, 20480, &s), SQK_ERR_CORRUPT, "super: block size 3000");
	ok(s.n == 1 && seen_field(&s, "block_size"), "super: reported as block_size only");

	/* Rules the check goes on after: each is reported. */
	good_super(&sb);
	sb.block_log = 16;
	sb.flags |= 0x8000;
	sb.inode_count = 0;
	sb.compressor = 9;
	is_int(super_rules(&sb, 20480, &s), SQK_ERR_CORRUPT, "super: the first error is returned");
	ok(s.n == 4 && seen_field(&s, "block_log") && seen_field(&s, "flags") &&
		   seen_field(&s, "inode_count") && seen_field(&s, "compressor"),
	   "super: block_log, flags, inode_count and compressor each reported");
	memset(&s, 0, sizeof(s));
	s.stop_after = 1;
	r.count = 0;
	ok(sqk_fmt_super_check(&sb, 20480, &r) != 0 && s.n == 1,
	   "super: a report that says stop ends the check");
	is_int(sqk_fmt_super_check(&sb, 20480, NULL), SQK_ERR_CORRUPT,
	       "super: no report: the first broken rule's error");
	good_super(&sb);
	sb.compressor = 9;
	is_int(super_rules(&sb, 20480, &s), SQK_ERR_UNSUPPORTED,
	       "super: an unknown compressor alone is SQK_ERR_UNSUPPORTED");
	good_super(&sb);
	is_int(super_rules(&sb, 19999, &s), SQK_ERR_TRUNCATED,
	       "super: bytes_used past the file is SQK_ERR_TRUNCATED");
	ok(seen_field(&s, "bytes_used"), "super: reported as bytes_used");
	good_super(&sb);
	sb.id_count = 0;
	super_rules(&sb, 20480, &s);
	ok(s.n == 1 && seen_field(&s, "id_count"), "super: id_count 0");
	good_super(&sb);
	sb.fragment_table = SQK_INVALID_TABLE;
	super_rules(&sb, 20480, &s);
	ok(s.n == 1 && seen_field(&s, "fragment_count"), "super: fragments without a table");
	good_super(&sb);
	sb.export_table = SQK_INVALID_TABLE;
	super_rules(&sb, 20480, &s);
	ok(s.n == 1 && seen_field(&s, "flags"), "super: exportable without an export table");

	good_super(&sb);
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_main_tables_check(&sb, 10001, &r) && seen_field(&s, "inode_table"),
	   "main tables: the inode table inside the options block");
	sb.dir_table = sb.inode_table;
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_main_tables_check(&sb, 96, &r) && seen_field(&s, "dir_table"),
	   "main tables: the directory table at the inode table");
	good_super(&sb);
	sb.root_inode = SQK_MKREF(1000, 0);
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_main_tables_check(&sb, 96, &r) && seen_field(&s, "root_inode"),
	   "main tables: the root past the inode table");
	sb.root_inode = SQK_MKREF(0, 8192);
	ok(sqk_fmt_main_tables_check(&sb, 96, NULL), "main tables: the root at offset 8192");

	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_meta_hdr_check(&h, 100, 1000, &r) && seen_field(&s, "size"),
	   "metadata header: size 0");
	h.size = 900;
	ok(sqk_fmt_meta_hdr_check(&h, 100, 1000, NULL), "metadata header: runs past the end");
	ok(!sqk_fmt_meta_hdr_check(&h, 98, 1000, NULL), "metadata header: ends at the end");
	h.size = 8193;
	ok(sqk_fmt_meta_hdr_check(&h, 0, 100000, NULL), "metadata header: 8193 bytes");
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_meta_pos_check(999, 1000, &r) && seen_field(&s, "position"),
	   "metadata header: no room for it");
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_meta_len_check(0, &r) && seen_field(&s, "length"),
	   "metadata: a block of nothing");
	h.size = 20;
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_options_check(&h, 110, &r) && seen_field(&s, "options"),
	   "options block: runs past bytes_used");
	ok(sqk_fmt_options_check(NULL, 97, NULL), "options block: no room for it");
	ok(!sqk_fmt_options_check(&h, 118, NULL), "options block: fits");

	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_frag_check(&fe, 4096, 96, 1000, &r) && seen_field(&s, "size"),
	   "fragment entry: size 0");
	fe.size = SQK_BLOCK_UNCOMPRESSED | 4097;
	ok(sqk_fmt_frag_check(&fe, 4096, 96, 1000, NULL), "fragment entry: more than a block");
	fe.size = 900;
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_frag_check(&fe, 4096, 96, 1000, &r) && seen_field(&s, "start"),
	   "fragment entry: past the data area");
	fe.size = 800;
	ok(!sqk_fmt_frag_check(&fe, 4096, 96, 1000, NULL), "fragment entry: good");

	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_xattr_id_check(&xi, 50, &r) && seen_field(&s, "count") && seen_field(&s, "ref"),
	   "xattr id: no pairs, and outside the area");
	xi.count = 1;
	ok(!sqk_fmt_xattr_id_check(&xi, 51, NULL), "xattr id: good");
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_xattr_table_check(&xt, 6000, 9000, &r) && seen_field(&s, "kv_start"),
	   "xattr table: key/value area before the table before it");

	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_span_check("id_table", 990, 16, 100, 1000, &r) && seen_field(&s, "id_table"),
	   "span: a list past bytes_used, under its table's name");
	ok(!sqk_fmt_span_check("id_table", 984, 16, 100, 1000, NULL), "span: ends at bytes_used");
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_lookup_check("id_lookup", pos, 3, 100, 300, &r) && seen_field(&s, "id_lookup"),
	   "lookup list: blocks closer than a minimal block");
	pos[1] = 103;
	ok(!sqk_fmt_lookup_check("id_lookup", pos, 3, 100, 300, NULL), "lookup list: good");
	ok(sqk_fmt_lookup_check("id_lookup", pos, 3, 100, 202, NULL),
	   "lookup list: the last runs into the list");
	ok(sqk_fmt_lookup_check("id_lookup", pos, 3, 101, 300, NULL),
	   "lookup list: the first before the table before it");
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_table_block_check(100, 104, 500, 400, &r) && seen_field(&s, "length") &&
		   seen_field(&s, "next"),
	   "table block: short, and ending elsewhere");
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_tables_end_check(900, 1000, &r) && seen_field(&s, "bytes_used"),
	   "tables: bytes after the last one");

	memset(&s, 0, sizeof(s));
	err = sqk_fmt_xattr_key_check(&k, &r);
	ok(err && seen_field(&s, "type") && seen_field(&s, "name_size"),
	   "xattr key: unknown type, empty name");
	k.type = SQK_XATTR_USER;
	k.name_size = 256;
	ok(sqk_fmt_xattr_key_check(&k, NULL), "xattr key: a name of 256 bytes");
	k.name_size = 255;
	ok(!sqk_fmt_xattr_key_check(&k, NULL), "xattr key: 255 bytes");
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_xattr_name_check("a\0b", 3, &r) && seen_field(&s, "name"),
	   "xattr name: a NUL byte");
	memset(&s, 0, sizeof(s));
	ok(sqk_fmt_xattr_value_check(65537, 0, &r) && seen_field(&s, "value_size"),
	   "xattr value: over 64 KiB");
	ok(sqk_fmt_xattr_value_check(9, 1, NULL), "xattr value: an out-of-line ref of 9 bytes");
	ok(!sqk_fmt_xattr_value_check(65536, 0, NULL) && !sqk_fmt_xattr_value_check(8, 1, NULL),
	   "xattr value: 64 KiB, and a ref of 8");
}

int main(void)
{
	test_round_trips();
	test_rules();
	return tap_done();
}
