// SPDX-License-Identifier: BSD-2-Clause
/*
 * craft: write a small SquashFS 4.0 image from scratch, valid or broken on
 * purpose, to see how a reader copes.
 *
 *   craft KIND OUT.img
 *
 * No compressor is involved: every metadata block is stored uncompressed
 * (header bit 15 set) and every data block is flagged uncompressed (bit 24).
 * The superblock still names gzip, as mksquashfs would. Every field is
 * written with the little-endian helpers of core/util/le.h; nothing is cast.
 *
 * The valid image ("ok") holds:  hello (file, "hi\n"), link -> hello, sub/.
 * Each other KIND changes one thing; see the table at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "util/le.h"

#define BLOCK_SIZE 131072u
#define BLOCK_LOG  17
#define MTIME	   1600000000u
#define MAX_INODES 16
#define MAX_ENTS   8

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("craft: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- a growing byte buffer ---- */

struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static uint8_t *grow(struct bytes *b, size_t n)
{
	uint8_t *at;

	if (b->len + n > b->cap) {
		while (b->len + n > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	at = b->p + b->len;
	memset(at, 0, n);
	b->len += n;
	return at;
}

static void add_bytes(struct bytes *b, const void *p, size_t n)
{
	if (n)
		memcpy(grow(b, n), p, n);
}

static void add16(struct bytes *b, uint16_t v)
{
	put_le16(grow(b, 2), v);
}

static void add32(struct bytes *b, uint32_t v)
{
	put_le32(grow(b, 4), v);
}

static void add64(struct bytes *b, uint64_t v)
{
	put_le64(grow(b, 8), v);
}

/*
 * Append payload as one uncompressed metadata block. Every table here is
 * small, so one block holds it and a reference is simply 0 << 16 | offset.
 */
static void add_meta_block(struct bytes *img, const struct bytes *payload)
{
	if (payload->len > SQK_META_SIZE)
		die("a table does not fit one metadata block (%zu bytes)", payload->len);
	add16(img, (uint16_t)(SQK_META_UNCOMPRESSED | payload->len));
	add_bytes(img, payload->p, payload->len);
}

/* ---- the tree to write ---- */

struct dent {
	const char *name;
	size_t name_len; /* names may hold a NUL */
	int ino;	 /* index into inodes[] */
};

struct inode {
	unsigned type;	     /* basic type written to the inode */
	unsigned entry_type; /* written to directory entries naming it */
	uint16_t mode;	     /* permission bits only: the type bits stay 0, as mksquashfs writes */
	/* file */
	const char *data;
	uint32_t data_len;
	uint32_t file_size; /* normally data_len */
	/* symlink */
	const char *target;
	/* directory */
	struct dent ents[MAX_ENTS];
	int nents;
	/* computed while writing */
	uint32_t number;
	uint32_t offset;   /* in the inode table */
	uint32_t data_pos; /* absolute position of the file's block */
	uint32_t list_offset, list_size;
	uint32_t parent;
};

struct tree {
	struct inode in[MAX_INODES];
	int count;
	int root;
	/* changes made after the image is laid out */
	int truncate_half; /* cut the image to half of bytes_used */
	int id_table_past_end;
};

static int new_inode(struct tree *t, unsigned type, uint16_t mode)
{
	struct inode *n;

	if (t->count == MAX_INODES)
		die("too many inodes");
	n = &t->in[t->count];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->entry_type = type;
	n->mode = mode;
	return t->count++;
}

static int add_file(struct tree *t, const char *data)
{
	int i = new_inode(t, SQK_FILE, 0644);

	t->in[i].data = data;
	t->in[i].data_len = (uint32_t)strlen(data);
	t->in[i].file_size = t->in[i].data_len;
	return i;
}

static int add_dir(struct tree *t)
{
	return new_inode(t, SQK_DIR, 0755);
}

static int add_symlink(struct tree *t, const char *target)
{
	int i = new_inode(t, SQK_SYMLINK, 0777);

	t->in[i].target = target;
	return i;
}

/* Entries are written in the order given: the caller decides if sorted. */
static void add_entry_n(struct tree *t, int dir, const char *name, size_t len, int ino)
{
	struct inode *d = &t->in[dir];

	if (d->nents == MAX_ENTS)
		die("too many entries");
	d->ents[d->nents].name = name;
	d->ents[d->nents].name_len = len;
	d->ents[d->nents].ino = ino;
	d->nents++;
}

static void add_entry(struct tree *t, int dir, const char *name, int ino)
{
	add_entry_n(t, dir, name, strlen(name), ino);
}

static uint32_t inode_size(const struct inode *n)
{
	switch (n->type) {
	case SQK_DIR:
		return 32;
	case SQK_SYMLINK:
		return 24 + (uint32_t)strlen(n->target);
	default: /* a file, or a file whose type was spoiled */
		return 32 + (n->data_len ? 4 : 0);
	}
}

static uint32_t subdirs(const struct tree *t, const struct inode *d)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < d->nents; i++)
		n += t->in[d->ents[i].ino].type == SQK_DIR;
	return n;
}

static void write_image(struct tree *t, const char *out)
{
	struct bytes img = {0}, itab = {0}, dtab = {0}, ids = {0};
	uint64_t inode_start, dir_start, id_block, id_start, bytes_used;
	uint8_t *sb;
	int i, j, fd;

	/* Numbers, inode table offsets, parents. */
	for (i = 0, j = 0; i < t->count; i++) {
		t->in[i].number = (uint32_t)i + 1;
		t->in[i].offset = (uint32_t)j;
		j += (int)inode_size(&t->in[i]);
	}
	for (i = 0; i < t->count; i++) {
		for (j = 0; j < t->in[i].nents; j++) {
			struct inode *c = &t->in[t->in[i].ents[j].ino];

			if (c->type == SQK_DIR && !c->parent)
				c->parent = t->in[i].number;
		}
	}
	t->in[t->root].parent = (uint32_t)t->count + 1; /* as mksquashfs does */

	/* The superblock comes last; the data blocks follow its space. */
	grow(&img, SQK_SUPER_SIZE);
	for (i = 0; i < t->count; i++) {
		t->in[i].data_pos = (uint32_t)img.len;
		add_bytes(&img, t->in[i].data, t->in[i].data_len);
	}

	/* Directory listings: one header for all entries of a directory. */
	for (i = 0; i < t->count; i++) {
		struct inode *d = &t->in[i];
		uint32_t base;

		if (d->type != SQK_DIR)
			continue;
		d->list_offset = (uint32_t)dtab.len;
		if (d->nents) {
			/* the lowest number: every delta is positive, as in real images */
			base = UINT32_MAX;
			for (j = 0; j < d->nents; j++) {
				if (t->in[d->ents[j].ino].number < base)
					base = t->in[d->ents[j].ino].number;
			}
			add32(&dtab, (uint32_t)d->nents - 1);
			add32(&dtab, 0); /* the inode table's first (only) block */
			add32(&dtab, base);
			for (j = 0; j < d->nents; j++) {
				const struct dent *e = &d->ents[j];
				const struct inode *c = &t->in[e->ino];

				add16(&dtab, (uint16_t)c->offset);
				add16(&dtab, (uint16_t)(int16_t)(c->number - base));
				add16(&dtab, (uint16_t)c->entry_type);
				add16(&dtab, (uint16_t)(e->name_len - 1));
				add_bytes(&dtab, e->name, e->name_len);
			}
		}
		d->list_size = (uint32_t)dtab.len - d->list_offset;
	}

	/* Inodes. */
	for (i = 0; i < t->count; i++) {
		struct inode *n = &t->in[i];

		if (itab.len != n->offset)
			die("inode %d is not where it was planned", i);
		add16(&itab, (uint16_t)n->type);
		add16(&itab, n->mode);
		add16(&itab, 0); /* uid index */
		add16(&itab, 0); /* gid index */
		add32(&itab, MTIME);
		add32(&itab, n->number);
		switch (n->type) {
		case SQK_DIR:
			add32(&itab, 0); /* block_index: the first (only) block */
			add32(&itab, 2 + subdirs(t, n));
			add16(&itab, (uint16_t)(n->list_size + 3));
			add16(&itab, (uint16_t)n->list_offset);
			add32(&itab, n->parent);
			break;
		case SQK_SYMLINK:
			add32(&itab, 1);
			add32(&itab, (uint32_t)strlen(n->target));
			add_bytes(&itab, n->target, strlen(n->target));
			break;
		default:
			add32(&itab, n->data_len ? n->data_pos : 0);
			add32(&itab, SQK_INVALID_FRAG);
			add32(&itab, 0);
			add32(&itab, n->file_size);
			if (n->data_len)
				add32(&itab, SQK_BLOCK_UNCOMPRESSED | n->data_len);
			break;
		}
	}

	inode_start = img.len;
	add_meta_block(&img, &itab);
	dir_start = img.len;
	add_meta_block(&img, &dtab);
	add32(&ids, 0); /* one id: root */
	id_block = img.len;
	add_meta_block(&img, &ids);
	id_start = img.len;
	add64(&img, id_block);
	bytes_used = img.len;

	sb = img.p;
	put_le32(sb + 0, SQK_MAGIC);
	put_le32(sb + 4, (uint32_t)t->count);
	put_le32(sb + 8, MTIME);
	put_le32(sb + 12, BLOCK_SIZE);
	put_le32(sb + 16, 0); /* fragments */
	put_le16(sb + 20, SQK_COMP_GZIP);
	put_le16(sb + 22, BLOCK_LOG);
	put_le16(sb + 24, SQK_FLAG_UNCOMPRESSED_INODES | SQK_FLAG_UNCOMPRESSED_DATA |
				  SQK_FLAG_UNCOMPRESSED_FRAGMENTS | SQK_FLAG_NO_FRAGMENTS |
				  SQK_FLAG_NO_XATTRS | SQK_FLAG_UNCOMPRESSED_IDS);
	put_le16(sb + 26, 1); /* ids */
	put_le16(sb + 28, SQK_FORMAT_VERSION_MAJOR);
	put_le16(sb + 30, SQK_FORMAT_VERSION_MINOR);
	put_le64(sb + 32, SQK_MKREF(0, t->in[t->root].offset));
	put_le64(sb + 40, bytes_used);
	put_le64(sb + 48, t->id_table_past_end ? bytes_used + 16 : id_start);
	put_le64(sb + 56, SQK_INVALID_TABLE); /* xattrs */
	put_le64(sb + 64, inode_start);
	put_le64(sb + 72, dir_start);
	put_le64(sb + 80, SQK_INVALID_TABLE); /* fragments */
	put_le64(sb + 88, SQK_INVALID_TABLE); /* export */

	if (img.len % SQK_DEVBLK_SIZE)
		grow(&img, SQK_DEVBLK_SIZE - img.len % SQK_DEVBLK_SIZE);
	if (t->truncate_half)
		img.len = (size_t)bytes_used / 2;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("%s: %s", out, strerror(errno));
	if (write(fd, img.p, img.len) != (ssize_t)img.len || close(fd) != 0)
		die("%s: write failed", out);
	free(img.p);
	free(itab.p);
	free(dtab.p);
	free(ids.p);
}

/* ---- the kinds ---- */

struct base {
	int root, hello, sub, link;
};

/* The valid tree without root entries, so that a kind can add its own. */
static struct base base(struct tree *t)
{
	struct base b;

	b.root = add_dir(t);
	b.hello = add_file(t, "hi\n");
	b.sub = add_dir(t);
	b.link = add_symlink(t, "hello");
	t->root = b.root;
	return b;
}

static void sorted_root(struct tree *t, const struct base *b)
{
	add_entry(t, b->root, "hello", b->hello);
	add_entry(t, b->root, "link", b->link);
	add_entry(t, b->root, "sub", b->sub);
}

/* A directory holding one file, "escaped": a reader fooled into creating it
 * outside the destination leaves it there for the test to find. */
static int escaping_dir(struct tree *t)
{
	int d = add_dir(t);

	add_entry(t, d, "escaped", add_file(t, "written outside\n"));
	return d;
}

static void kind_ok(struct tree *t)
{
	struct base b = base(t);

	sorted_root(t, &b);
}

static void kind_dotdot(struct tree *t)
{
	struct base b = base(t);

	add_entry(t, b.root, "..", escaping_dir(t));
	sorted_root(t, &b);
}

static void kind_dot(struct tree *t)
{
	struct base b = base(t);

	add_entry(t, b.root, ".", escaping_dir(t));
	sorted_root(t, &b);
}

static void kind_slash(struct tree *t)
{
	struct base b = base(t);

	add_entry(t, b.root, "../escaped", add_file(t, "written outside\n"));
	sorted_root(t, &b);
}

static void kind_nul(struct tree *t)
{
	struct base b = base(t);

	add_entry(t, b.root, "hello", b.hello);
	add_entry_n(t, b.root, "hello\0evil", 10, add_file(t, "shadow\n"));
	add_entry(t, b.root, "link", b.link);
	add_entry(t, b.root, "sub", b.sub);
}

/* The same name twice: first a symlink to "..", then a directory. A reader
 * that lets the second replace or merge with the first writes through it. */
static void kind_dupname(struct tree *t)
{
	struct base b = base(t);

	add_entry(t, b.root, "escape", add_symlink(t, ".."));
	add_entry(t, b.root, "escape", escaping_dir(t));
	sorted_root(t, &b);
}

static void kind_unsorted(struct tree *t)
{
	struct base b = base(t);

	add_entry(t, b.root, "sub", b.sub);
	add_entry(t, b.root, "hello", b.hello);
	add_entry(t, b.root, "link", b.link);
}

/* sub/again is the root directory again. */
static void kind_loop(struct tree *t)
{
	struct base b = base(t);

	sorted_root(t, &b);
	add_entry(t, b.sub, "again", b.root);
}

static void kind_truncated(struct tree *t)
{
	kind_ok(t);
	t->truncate_half = 1;
}

static void kind_tablepast(struct tree *t)
{
	kind_ok(t);
	t->id_table_past_end = 1;
}

static void kind_badinode(struct tree *t)
{
	struct base b = base(t);

	sorted_root(t, &b);
	t->in[b.hello].type = 15; /* one past the last extended type */
}

/* hello claims 4 GiB - 1: 32768 block sizes, far more than the table holds. */
static void kind_hugefile(struct tree *t)
{
	struct base b = base(t);

	sorted_root(t, &b);
	t->in[b.hello].file_size = 0xffffffffu;
}

static const struct {
	const char *name;
	void (*make)(struct tree *t);
	const char *what;
} kinds[] = {
	{"ok", kind_ok, "a valid image: hello (\"hi\\n\"), link -> hello, sub/"},
	{"dotdot", kind_dotdot, "an entry named \"..\" (a directory holding \"escaped\")"},
	{"dot", kind_dot, "an entry named \".\" (a directory holding \"escaped\")"},
	{"slash", kind_slash, "an entry named \"../escaped\""},
	{"nul", kind_nul, "an entry named \"hello\\0evil\""},
	{"dupname", kind_dupname, "\"escape\" twice: a symlink to \"..\", then a directory"},
	{"unsorted", kind_unsorted, "root entries in the order sub, hello, link"},
	{"loop", kind_loop, "sub/again is the root directory"},
	{"truncated", kind_truncated, "the valid image cut to half of bytes_used"},
	{"tablepast", kind_tablepast, "the id table pointer 16 bytes past bytes_used"},
	{"badinode", kind_badinode, "hello's inode has type 15"},
	{"hugefile", kind_hugefile, "hello's size is 4 GiB - 1 with one block listed"},
};

int main(int argc, char **argv)
{
	struct tree t;
	size_t i;

	if (argc != 3) {
		fputs("usage: craft KIND OUT.img\nkinds:\n", stderr);
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			fprintf(stderr, "  %-10s %s\n", kinds[i].name, kinds[i].what);
		return 2;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(argv[1], kinds[i].name) == 0)
			break;
	}
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		die("unknown kind %s", argv[1]);
	memset(&t, 0, sizeof(t));
	kinds[i].make(&t);
	write_image(&t, argv[2]);
	return 0;
}
