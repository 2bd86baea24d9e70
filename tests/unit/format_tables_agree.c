// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reader and fsck agree about the superblock, lookup tables and xattr
 * entries (the codec's own round trips and rules are in format_tables.c).
 * An image is built in memory with every block stored uncompressed (a
 * codec that never shrinks), so single fields can be changed; the reader
 * opens it and reads every lookup-table entry and xattr set, fsck checks
 * it, and the two must both accept or both refuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "compressors/compressor.h"
#include "format/fmt_meta.h"
#include "format/fmt_super.h"
#include "format/fmt_table.h"
#include "format/fmt_xattr.h"
#include "fsck/fsck.h"
#include "mem_image.h"
#include "mkfs/mkfs.h"
#include "read/data.h"
#include "read/image.h"
#include "read/layout.h"
#include "read/meta.h"
#include "read/xattr.h"
#include "tap.h"
#include "util/error.h"
#include "util/file.h"

/* A codec that never shrinks: every block and metadata block is stored raw. */
static struct sqk_codec raw_codec;

static int never(struct sqk_compressor *c, const uint8_t *src, size_t srclen, uint8_t *dst,
		 size_t cap, size_t *outlen)
{
	return SQK_ERR_OVERFLOW;
}

static struct sqk_compressor *raw_create(const struct sqk_comp_config *cfg)
{
	struct sqk_compressor *c = sqk_codec_by_id(SQK_COMP_GZIP)->create(cfg);

	if (c)
		c->compress = never;
	return c;
}

static void write_file(const char *path, size_t size, unsigned seed)
{
	FILE *fp = fopen(path, "w");
	size_t i;

	for (i = 0; fp && i < size; i++)
		fputc('a' + (int)((i * seed + i / 7) % 26), fp);
	if (fp)
		fclose(fp);
}

static int have_xattrs;

static uint8_t *build(const char *dir, size_t *len)
{
	static const char big[] = "a value long enough to be stored once and referenced";
	char path[512];
	int i;

	for (i = 0; i < 12; i++) {
		snprintf(path, sizeof(path), "%s/f%02d", dir, i);
		write_file(path, (size_t)(i * 1000 + 10), (unsigned)i + 2);
		/* Two files share a long value: the second is stored out of line. */
		if (i < 3 && setxattr(path, "user.same", big, sizeof(big), 0) == 0 &&
		    setxattr(path, i ? "user.other" : "user.first", "v", 1, 0) == 0)
			have_xattrs++;
	}
	raw_codec = *sqk_codec_by_id(SQK_COMP_GZIP);
	raw_codec.create = raw_create;
	return mem_image_of_dir(dir, &raw_codec, 1, len);
}

/* The reader: open, then every id, fragment, export and xattr entry. 0 when all is read. */
static int reader(const uint8_t *img, size_t len)
{
	struct sqk_image *im;
	const struct sqk_super *sb;
	const struct sqk_layout *l;
	uint64_t start, i;
	uint32_t size, n;
	uint8_t raw[16];
	int err;

	err = sqk_image_open(sqk_file_mem(img, len), NULL, &im);
	if (err)
		return err;
	sb = sqk_image_super(im);
	l = sqk_image_layout(im);
	for (i = 0; !err && i < sb->fragment_count; i++)
		err = sqk_fragment_entry(im, (uint32_t)i, &start, &size);
	for (i = 0; !err && l->t[SQK_TABLE_EXPORT].ok && i < sb->inode_count; i++)
		err = sqk_meta_table_entry(im, SQK_TABLE_EXPORT, i, raw);
	for (i = 0; !err && i < l->t[SQK_TABLE_XATTR].entries; i++) {
		struct sqk_xattr *xs;

		err = sqk_xattr_read(im, (uint32_t)i, &xs, &n);
		if (!err)
			sqk_xattr_free(xs, n);
	}
	sqk_image_destroy(im);
	return err;
}

struct problems {
	char checks[512];
	unsigned n;
};

static void problem(void *ctx, const char *path, const char *check, const char *detail)
{
	struct problems *p = ctx;
	size_t used = strlen(p->checks);

	snprintf(p->checks + used, sizeof(p->checks) - used, "%s%s", used ? " " : "", check);
	p->n++;
}

/* fsck: the number of problems, their check names in p. */
static unsigned fsck(const uint8_t *img, size_t len, struct problems *p)
{
	struct sqk_fsck_opts o = {0};
	struct sqk_fsck *f;

	memset(p, 0, sizeof(*p));
	o.report = problem;
	o.ctx = p;
	if (sqk_fsck_create(sqk_file_mem(img, len), &o, &f) || sqk_fsck_run(f))
		p->n = 1000;
	sqk_fsck_destroy(f);
	return p->n;
}

static uint8_t *base;
static size_t base_len;
static struct sqk_super bsb;
static struct sqk_layout bl;

typedef void (*damage_fn)(uint8_t *img, struct sqk_super *sb);

static void d_none(uint8_t *img, struct sqk_super *sb)
{
}

static void d_block_log(uint8_t *img, struct sqk_super *sb)
{
	sb->block_log++;
}

static void d_flags(uint8_t *img, struct sqk_super *sb)
{
	sb->flags |= 0x8000;
}

static void d_export_flag(uint8_t *img, struct sqk_super *sb)
{
	sb->export_table = SQK_INVALID_TABLE;
}

static void d_gap(uint8_t *img, struct sqk_super *sb)
{
	sb->bytes_used += 8;
}

static void d_root(uint8_t *img, struct sqk_super *sb)
{
	sb->root_inode = SQK_MKREF(0, 9000);
}

static void d_id_table(uint8_t *img, struct sqk_super *sb)
{
	sb->id_table = sb->bytes_used - 4;
}

static void d_frag_lookup(uint8_t *img, struct sqk_super *sb)
{
	sqk_fmt_lookup_encode(img + sb->fragment_table, 40);
}

/* Fragment entry 0, in its stored block. */
static void frag0(uint8_t *img, void (*change)(struct sqk_fmt_frag *e))
{
	uint8_t *p = img + bl.t[SQK_TABLE_FRAG].pos[0] + SQK_FMT_META_HDR_SIZE;
	struct sqk_fmt_frag e;

	sqk_fmt_frag_decode(&e, p);
	change(&e);
	sqk_fmt_frag_encode(&e, p);
}

static void hole(struct sqk_fmt_frag *e)
{
	e->size = 0;
}

static void outside(struct sqk_fmt_frag *e)
{
	e->start = bsb.inode_table;
}

static void d_frag_size(uint8_t *img, struct sqk_super *sb)
{
	frag0(img, hole);
}

static void d_frag_start(uint8_t *img, struct sqk_super *sb)
{
	frag0(img, outside);
}

/* The fragment table's block loses its last entry: shorter than the table needs. */
static void d_frag_block(uint8_t *img, struct sqk_super *sb)
{
	uint8_t *p = img + bl.t[SQK_TABLE_FRAG].pos[0];
	struct sqk_fmt_meta_hdr h;

	sqk_fmt_meta_hdr_decode(&h, p);
	h.size -= SQK_FMT_FRAG_SIZE;
	sqk_fmt_meta_hdr_encode(&h, p);
}

static void d_id_count(uint8_t *img, struct sqk_super *sb)
{
	sb->id_count = 0;
}

static void d_xattr_count(uint8_t *img, struct sqk_super *sb)
{
	uint8_t *p = img + bl.t[SQK_TABLE_XATTR].pos[0] + SQK_FMT_META_HDR_SIZE;
	struct sqk_fmt_xattr_id e;

	sqk_fmt_xattr_id_decode(&e, p);
	e.count = 0;
	sqk_fmt_xattr_id_encode(&e, p);
}

static void d_xattr_type(uint8_t *img, struct sqk_super *sb)
{
	uint8_t *p = img + bl.kv_start + SQK_FMT_META_HDR_SIZE;
	struct sqk_fmt_xattr_key k;

	sqk_fmt_xattr_key_decode(&k, p);
	k.type = 7;
	sqk_fmt_xattr_key_encode(&k, p);
}

static void d_xattr_value(uint8_t *img, struct sqk_super *sb)
{
	uint8_t *p = img + bl.kv_start + SQK_FMT_META_HDR_SIZE;
	struct sqk_fmt_xattr_key k;

	sqk_fmt_xattr_key_decode(&k, p);
	sqk_fmt_xattr_value_encode(p + SQK_FMT_XATTR_KEY_SIZE + k.name_size, 70000);
}

static void d_kv_start(uint8_t *img, struct sqk_super *sb)
{
	struct sqk_fmt_xattr_table h;

	sqk_fmt_xattr_table_decode(&h, img + sb->xattr_table);
	h.kv_start = sb->xattr_table + 1;
	sqk_fmt_xattr_table_encode(&h, img + sb->xattr_table);
}

static void d_options(uint8_t *img, struct sqk_super *sb)
{
	sb->flags |= SQK_FLAG_COMPRESSOR_OPTIONS;
}

static const struct {
	const char *name;
	damage_fn fn;
	const char *check; /* what fsck must report; NULL: clean */
	int xattrs;	   /* needs the xattr table */
} cases[] = {
	{"untouched", d_none, NULL, 0},
	{"block_log off by one", d_block_log, "superblock", 0},
	{"an unknown flag", d_flags, "superblock", 0},
	{"exportable without an export table", d_export_flag, "superblock", 0},
	{"bytes after the last table", d_gap, "superblock", 0},
	{"the root at offset 9000", d_root, "superblock", 0},
	{"the id table past bytes_used", d_id_table, "superblock", 0},
	{"id_count 0", d_id_count, "superblock", 0},
	{"a fragment block before the directory table", d_frag_lookup, "metadata", 0},
	{"fragment 0 a hole", d_frag_size, "fragment", 0},
	{"fragment 0 past the data area", d_frag_start, "fragment", 0},
	{"the fragment table's block short", d_frag_block, "metadata", 0},
	{"an options block that is not there", d_options, "compressor", 0},
	{"xattr id 0 with no pairs", d_xattr_count, "xattr", 1},
	{"an xattr key of type 7", d_xattr_type, "xattr", 1},
	{"an xattr value of 70000 bytes", d_xattr_value, "xattr", 1},
	{"the key/value area after the header", d_kv_start, "superblock", 1},
};

static void test_agree(void)
{
	char dir[] = "/tmp/sqk-format-tables.XXXXXX";
	uint8_t *img;
	size_t i;

	if (!mkdtemp(dir)) {
		ok(0, "a scratch directory");
		return;
	}
	base = build(dir, &base_len);
	if (!ok(base != NULL, "an image with every block stored raw"))
		return;
	sqk_fmt_super_decode(&bsb, base);
	{
		struct sqk_file *f = sqk_file_mem(base, base_len);

		is_int(sqk_layout_read(&bl, f, &bsb, NULL), 0, "its layout reads");
		sqk_file_destroy(f);
	}
	ok(bsb.fragment_count > 0 && bl.t[SQK_TABLE_FRAG].ok, "it has fragments");
	img = malloc(base_len);
	for (i = 0; img && i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sqk_super sb = bsb;
		struct problems p;
		unsigned nf;
		int rd;

		if (cases[i].xattrs && !bl.t[SQK_TABLE_XATTR].ok) {
			ok(1, "# SKIP %s: no xattrs here", cases[i].name);
			continue;
		}
		memcpy(img, base, base_len);
		cases[i].fn(img, &sb);
		sqk_fmt_super_encode(&sb, img);
		rd = reader(img, base_len);
		nf = fsck(img, base_len, &p);
		if (!cases[i].check) {
			ok(rd == 0 && nf == 0, "%s: the reader and fsck both accept it",
			   cases[i].name);
			continue;
		}
		if (!ok(rd != 0 && nf > 0, "%s: the reader refuses it and fsck reports it",
			cases[i].name))
			printf("#   reader %d (%s), fsck: %s\n", rd, sqk_strerror(rd), p.checks);
		if (!ok(strstr(p.checks, cases[i].check) != NULL, "%s: fsck says %s", cases[i].name,
			cases[i].check))
			printf("#   fsck: %s\n", p.checks);
	}
	free(img);
	sqk_layout_free(&bl);
	free(base);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
}

int main(void)
{
	test_agree();
	return tap_done();
}
