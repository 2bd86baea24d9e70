// SPDX-License-Identifier: BSD-2-Clause
/*
 * The inode and directory codec (core/format/fmt_inode, fmt_dir, fmt_name):
 *   - every inode type 1..14, directory headers, entries and index entries
 *     survive encode -> decode;
 *   - the codec's bytes, laid out by hand as an image in memory (one inode
 *     of each type under a root with an index), read back through the
 *     reader (sqk_inode_read, the listing, the lookup through the index)
 *     as they were written, and fsck calls the image clean;
 *   - one broken field at a time: the codec names the field, and the
 *     reader refuses exactly what fsck reports, under the check expected.
 *     Link counts and parents are the documented exception: only fsck,
 *     which sees the whole tree, checks them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format_image.h"
#include "read/dir.h"
#include "read/inode.h"
#include "tap.h"
#include "util/error.h"

/* --- what the codec says: every field reported over the image's inodes and listing --- */

struct fields {
	char list[512];
};

static int note(void *ctx, const struct sqk_fmt_issue *is)
{
	struct fields *fl = ctx;
	size_t n = strlen(fl->list);

	snprintf(fl->list + n, sizeof(fl->list) - n, "%s%s", n ? "," : "", is->field);
	return 0;
}

static void codec_fields(const struct world *w, struct fields *fl)
{
	const struct sqk_fmt_limits lim = {BS, NINO, 0, 2};
	struct sqk_fmt_report r = {note, fl, 0};
	const uint8_t *d = w->dtab;
	struct sqk_fmt_dir_header h;
	unsigned i;

	memset(fl, 0, sizeof(*fl));
	for (i = 0; i < NINO; i++) {
		const struct spec *s = &w->s[i];
		struct sqk_fmt_inode n;
		size_t fixed;

		sqk_fmt_inode_decode_header(w->itab + s->at, &n);
		fixed = sqk_fmt_inode_fixed_size(n.type);
		if (sqk_fmt_inode_check_header(&n, &lim, &r) && !fixed)
			continue;
		sqk_fmt_inode_decode_body(w->itab + s->at + SQK_FMT_INODE_HEADER_SIZE, &n);
		sqk_fmt_inode_check_body(&n, &lim, &r);
		sqk_fmt_inode_check_links(&n, &lim, i == ROOT, &r);
		if (sqk_basic_type(n.type) == SQK_SYMLINK && n.target_len <= SQK_FMT_SYMLINK_MAX)
			sqk_fmt_symlink_check((const char *)w->itab + s->at + fixed, n.target_len,
					      &r);
	}
	for (i = 0; i < w->nindex; i++) {
		struct sqk_fmt_dir_index x;
		const uint8_t *p = w->itab + w->s[ROOT].at + sqk_fmt_inode_fixed_size(SQK_LDIR);
		size_t k;

		for (k = 0; k < i; k++)
			p += SQK_FMT_DIR_INDEX_SIZE + w->x[k].name_size;
		sqk_fmt_dir_index_decode(p, &x);
		if (!sqk_fmt_dir_index_check_size(&x, &r))
			sqk_fmt_dir_index_check(&x, i ? &w->x[i - 1] : NULL,
						sqk_fmt_dir_listing(w->s[ROOT].ino.dir_size), &r);
	}
	sqk_fmt_dir_header_decode(d, &h);
	if (sqk_fmt_dir_header_check(&h, &r))
		return;
	d += SQK_FMT_DIR_HEADER_SIZE;
	for (i = 0; i < h.count && d < w->dtab + w->dlen; i++) {
		struct sqk_fmt_dir_entry e;
		const char *name = (const char *)d + SQK_FMT_DIR_ENTRY_SIZE;

		sqk_fmt_dir_entry_decode(d, &e);
		if (sqk_fmt_dir_entry_check_size(&e, &r))
			return;
		sqk_fmt_dir_entry_check(&e, &h, &lim, &r);
		sqk_name_check(name, e.name_size, &r);
		if (i)
			sqk_name_check_order(w->ent[i - 1].name, w->ent[i - 1].len, name,
					     e.name_size, &r);
		d += SQK_FMT_DIR_ENTRY_SIZE + e.name_size;
	}
}

/* --- round trips --- */

static int same_inode(const struct sqk_fmt_inode *a, const struct sqk_fmt_inode *b)
{
	return a->type == b->type && a->mode == b->mode && a->uid_idx == b->uid_idx &&
	       a->gid_idx == b->gid_idx && a->mtime == b->mtime && a->number == b->number &&
	       a->nlink == b->nlink && a->xattr == b->xattr && a->blocks_start == b->blocks_start &&
	       a->file_size == b->file_size && a->sparse == b->sparse &&
	       a->frag_index == b->frag_index && a->frag_offset == b->frag_offset &&
	       a->dir_block == b->dir_block && a->dir_offset == b->dir_offset &&
	       a->dir_size == b->dir_size && a->parent == b->parent &&
	       a->index_count == b->index_count && a->target_len == b->target_len &&
	       a->rdev == b->rdev;
}

static void test_round_trips(void)
{
	struct world *w = malloc(sizeof(*w));
	unsigned i, t;

	build(w, NULL, NULL);
	for (i = 0; i < NINO; i++) {
		struct sqk_fmt_inode in = w->s[i].ino, out;
		uint8_t raw[SQK_FMT_INODE_FIXED_MAX + SQK_FMT_INODE_TAIL_MAX];
		size_t n;

		/* Every field that the type stores gets a value of its full width. */
		if (in.type >= 8)
			in.xattr = 0x89abcdefu - i;
		if (in.type == SQK_LFILE) {
			in.blocks_start = 0x123456789abull, in.file_size = 0xfedcba987654ull;
			in.sparse = 0x1122334455ull, in.nlink = 0x80000001u;
			in.frag_index = 77, in.frag_offset = 0x7fff;
		}
		if (in.type == SQK_LDIR)
			in.dir_size = 0x12345678, in.dir_block = 0x87654321, in.dir_offset = 0x1fff,
			in.index_count = 0xffff, in.parent = 0xfffffffe;
		n = sqk_fmt_inode_encode(&in, raw);
		sqk_fmt_inode_decode(raw, &out);
		sqk_fmt_inode_encode_tail(&in, raw + n);
		sqk_fmt_inode_decode_tail(raw + n, &out);
		ok(n == sqk_fmt_inode_fixed_size(in.type) && same_inode(&in, &out),
		   "round trip: type %u (%zu bytes)", in.type, n);
	}
	for (t = 0; t <= 15; t += 15)
		is_int(sqk_fmt_inode_fixed_size(t), 0, "type %u has no layout", t);

	{
		struct sqk_fmt_dir_header h = {256, 0xabcdef01, 0xffffffff}, h2;
		struct sqk_fmt_dir_entry e = {0x1fff, -32768, 7, 256}, e2;
		struct sqk_fmt_dir_index x = {0xfffffff0, 0x12345678, 256}, x2;
		uint8_t raw[16];

		sqk_fmt_dir_header_encode(&h, raw);
		sqk_fmt_dir_header_decode(raw, &h2);
		ok(h2.count == 256 && h2.start == h.start && h2.base == h.base &&
			   get_le32(raw) == 255,
		   "round trip: directory header (count stored minus one)");
		sqk_fmt_dir_entry_encode(&e, raw);
		sqk_fmt_dir_entry_decode(raw, &e2);
		ok(e2.offset == e.offset && e2.delta == e.delta && e2.type == e.type &&
			   e2.name_size == 256,
		   "round trip: directory entry (delta -32768, name of 256)");
		e.delta = 32767;
		sqk_fmt_dir_entry_encode(&e, raw);
		sqk_fmt_dir_entry_decode(raw, &e2);
		is_int(e2.delta, 32767, "round trip: delta 32767");
		sqk_fmt_dir_index_encode(&x, raw);
		sqk_fmt_dir_index_decode(raw, &x2);
		ok(x2.offset == x.offset && x2.start == x.start && x2.name_size == 256,
		   "round trip: directory index entry");
		ok(sqk_fmt_dir_delta_fits(40000, 40000 - 32768) &&
			   !sqk_fmt_dir_delta_fits(40000, 40000 - 32769) &&
			   sqk_fmt_dir_delta_fits(1, 32768) && !sqk_fmt_dir_delta_fits(1, 32769),
		   "deltas fit in -32768..32767");
	}
	ok(sqk_name_cmp("ab", 2, "abc", 3) < 0 && sqk_name_cmp("b", 1, "abc", 3) > 0 &&
		   sqk_name_cmp("\xff", 1, "a", 1) > 0 && sqk_name_cmp("x", 1, "x", 1) == 0,
	   "names: bytewise, unsigned, shorter first on a common prefix");
	free(w);
}

/* --- the image read back --- */

static void test_read_back(void)
{
	struct world *w = malloc(sizeof(*w));
	struct sqk_fsck_counts c;
	struct report rep;
	struct sqk_image *img;
	struct sqk_dir_iter it;
	struct sqk_dir_entry ent;
	struct sqk_inode root;
	unsigned i, good = 1;

	build(w, NULL, NULL);
	img = open_image(w);
	if (!ok(img != NULL, "the image opens"))
		return;
	for (i = 0; i < NINO; i++) {
		const struct spec *s = &w->s[i];
		const struct sqk_fmt_inode *n = &s->ino;
		unsigned basic = sqk_basic_type(n->type);
		struct sqk_inode in;
		int fine;

		if (!ok(sqk_inode_read(img, s->ref, &in) == 0, "reader: type %u reads", n->type))
			continue;
		fine = in.type == n->type && in.mtime == n->mtime && in.number == n->number &&
		       in.nlink == n->nlink && in.xattr == n->xattr &&
		       (in.mode & 07777) == n->mode &&
		       (unsigned)(in.mode & S_IFMT) == sqk_fmt_type_mode(n->type) &&
		       in.uid == (n->uid_idx ? 1000u : 0u) && in.gid == (n->gid_idx ? 1000u : 0u);
		if (basic == SQK_FILE)
			fine = fine && in.size == n->file_size &&
			       in.blocks_start == n->blocks_start && in.sparse == n->sparse &&
			       in.frag_index == n->frag_index && in.nblocks == s->nblocks &&
			       !memcmp(in.blocks, s->blocks, 4 * s->nblocks);
		if (basic == SQK_DIR)
			fine = fine && in.size == sqk_fmt_dir_listing(n->dir_size) &&
			       in.dir_block == n->dir_block && in.dir_offset == n->dir_offset &&
			       in.parent == n->parent && in.index_count == n->index_count;
		if (basic == SQK_SYMLINK)
			fine = fine && in.size == n->target_len && !strcmp(in.target, s->target);
		if (basic == SQK_BLKDEV || basic == SQK_CHRDEV)
			fine = fine && in.rdev == n->rdev;
		ok(fine, "reader: type %u gives back what was encoded", n->type);
		sqk_inode_free(&in);
	}
	if (sqk_inode_read(img, w->s[ROOT].ref, &root) == 0 &&
	    sqk_dir_iter_open(img, &root, &it) == 0) {
		for (i = 0; i < NENT; i++) {
			const struct spec *s = &w->s[i];

			good &= sqk_dir_iter_next(&it, &ent) == 1 && !strcmp(ent.name, s->name) &&
				ent.number == s->ino.number && ent.ref == s->ref &&
				ent.type == sqk_basic_type(s->ino.type);
		}
		good &= sqk_dir_iter_next(&it, &ent) == 0;
		sqk_dir_iter_close(&it);
		ok(good, "reader: the listing gives every entry, its number, place and type");
		good = 1;
		for (i = 0; i < NENT; i++)
			good &= sqk_dir_lookup(img, &root, names[i], strlen(names[i]), &ent) == 0 &&
				ent.number == i + 1;
		ok(good, "reader: every name is found through the index");
		is_int(sqk_dir_lookup(img, &root, "t08", 3, &ent), SQK_ERR_NOENT,
		       "reader: a name that is not there is not found");
		sqk_inode_free(&root);
	} else {
		ok(0, "reader: the root's listing opens");
	}
	sqk_image_destroy(img);

	is_int(fsck(w, &rep, &c), 0, "fsck runs");
	ok(c.errors == 0 && c.inodes == NINO && c.directories == 2 && c.blocks == 4,
	   "fsck: clean, %llu inodes, %llu directories, %llu blocks", (unsigned long long)c.inodes,
	   (unsigned long long)c.directories, (unsigned long long)c.blocks);
	if (rep.n)
		printf("# %s", rep.text);
	free(w);
}

/* --- one broken rule at a time --- */

static void m_symlink_empty(struct world *w)
{
	w->s[2].ino.target_len = 0;
}
static void m_symlink_long(struct world *w)
{
	memset(w->s[2].target, 'x', 4097);
	w->s[2].ino.target_len = 4097;
}
static void m_symlink_nul(struct world *w)
{
	w->s[2].target[3] = '\0';
}
static void m_dir_size(struct world *w)
{
	w->s[0].ino.dir_size = 2;
}
static void m_dir_offset(struct world *w)
{
	w->s[0].ino.dir_offset = 8192;
}
static void m_uid(struct world *w)
{
	w->s[1].ino.uid_idx = 2;
}
static void m_number(struct world *w)
{
	w->s[4].ino.number = NINO + 1;
}
static void m_type(struct world *w)
{
	w->s[12].ino.type = 15; /* the last entry: the root stays readable after it */
}
static void m_frag(struct world *w)
{
	w->s[1].ino.frag_index = 0;
	w->s[1].ino.frag_offset = 0;
	w->s[1].nblocks = 1;
}
static void m_huge(struct world *w)
{
	w->s[7].ino.file_size = (uint64_t)BS << 33;
}
static void m_nlink(struct world *w)
{
	w->s[5].ino.nlink = 0;
}
static void m_parent(struct world *w)
{
	w->s[0].ino.parent = 0;
}
static void m_root_parent(struct world *w)
{
	w->s[ROOT].ino.parent = 5;
}
static void m_count(struct world *w)
{
	w->hdr.count = 257;
}
static void m_etype(struct world *w)
{
	w->ent[4].e.type = 8;
}
static void m_dot(struct world *w)
{
	w->ent[0].len = w->ent[0].e.name_size = 2;
	memcpy(w->ent[0].name, "..", 2);
}
static void m_slash(struct world *w)
{
	w->ent[1].name[3] = '/';
}
static void m_order(struct world *w)
{
	w->ent[3].name[1] = '9';
}
static void m_twice(struct world *w)
{
	memcpy(w->ent[3].name, w->ent[2].name, w->ent[2].len);
	w->ent[3].len = w->ent[3].e.name_size = w->ent[2].len;
}
static void m_enumber(struct world *w)
{
	w->ent[5].e.delta = -1;
}
static void m_eoffset(struct world *w)
{
	w->ent[5].e.offset = 8192;
}
static void m_ename_size(struct world *w)
{
	w->ent[6].len = w->ent[6].e.name_size = 257;
	memset(w->ent[6].name + 3, 'z', 254);
}
static void m_xname_size(struct world *w)
{
	w->x[0].name_size = 257;
	memset(w->xname[0], 'a', 257);
}
static void m_xoffset(struct world *w)
{
	w->x[0].offset = 4000;
}
static void m_xorder(struct world *w)
{
	w->nindex = 2;
	w->s[ROOT].ino.index_count = 2;
	w->x[1] = w->x[0];
	strcpy(w->xname[1], w->xname[0]);
}

enum probe { P_INODE, P_LIST, P_LOOKUP };

static const struct mutation {
	const char *what;
	void (*pre)(struct world *);
	void (*post)(struct world *);
	const char *field; /* the codec's */
	enum probe probe;  /* how the reader meets it */
	unsigned spec;	   /* the inode the reader reads */
	int read_err;	   /* what the reader says; 0: only fsck sees it */
	const char *check; /* fsck's check */
	const char *path;
} mutations[] = {
	{"an empty symlink target", m_symlink_empty, NULL, "target_len", P_INODE, 2,
	 SQK_ERR_CORRUPT, "inode", "/t03-symlink"},
	{"a target past PATH_MAX", m_symlink_long, NULL, "target_len", P_INODE, 2, SQK_ERR_CORRUPT,
	 "inode", "/t03-symlink"},
	{"a NUL in a target", m_symlink_nul, NULL, "target", P_INODE, 2, SQK_ERR_CORRUPT, "inode",
	 "/t03-symlink"},
	{"a directory size below 3", m_dir_size, NULL, "dir_size", P_INODE, 0, SQK_ERR_CORRUPT,
	 "dir-size", "/t01-dir"},
	{"a listing offset past a block", m_dir_offset, NULL, "dir_offset", P_INODE, 0,
	 SQK_ERR_CORRUPT, "inode", "/t01-dir"},
	{"a uid index past the id table", m_uid, NULL, "uid_idx", P_INODE, 1, SQK_ERR_CORRUPT, "id",
	 "/t02-file"},
	{"an inode number past inode_count", m_number, NULL, "number", P_INODE, 4, SQK_ERR_CORRUPT,
	 "inode-number", "inode table"},
	{"an unknown type", m_type, NULL, "type", P_INODE, 12, SQK_ERR_CORRUPT, "inode",
	 "inode table"},
	{"a fragment past the fragment table", m_frag, NULL, "frag_index", P_INODE, 1,
	 SQK_ERR_CORRUPT, "fragment", "/t02-file"},
	{"more blocks than an inode lists", m_huge, NULL, "file_size", P_INODE, 7, SQK_ERR_CORRUPT,
	 "inode", "/t09-lfile"},
	{"a link count of 0", m_nlink, NULL, "nlink", P_INODE, 5, 0, "nlink", "/t06-fifo"},
	{"a parent of 0", m_parent, NULL, "parent", P_INODE, 0, 0, "dir-parent", "/t01-dir"},
	{"a root parent inside the tree", m_root_parent, NULL, "parent", P_INODE, ROOT, 0,
	 "dir-parent", "/"},
	{"a header of 257 entries", NULL, m_count, "count", P_LIST, 0, SQK_ERR_CORRUPT,
	 "dir-header", "/"},
	{"an entry of an extended type", NULL, m_etype, "type", P_LIST, 0, SQK_ERR_CORRUPT,
	 "dir-type", "/"},
	{"a name '..'", NULL, m_dot, "name", P_LIST, 0, SQK_ERR_BADNAME, "dir-name", "/"},
	{"a name with '/'", NULL, m_slash, "name", P_LIST, 0, SQK_ERR_BADNAME, "dir-name", "/"},
	{"names out of order", NULL, m_order, "name", P_LIST, 0, SQK_ERR_SEQUENCE, "dir-order",
	 "/"},
	{"a name listed twice", NULL, m_twice, "name", P_LIST, 0, SQK_ERR_SEQUENCE, "dir-order",
	 "/"},
	{"an entry naming inode 0", NULL, m_enumber, "inode_number", P_LIST, 0, SQK_ERR_CORRUPT,
	 "dir-entry", "/"},
	{"an entry's inode past a block", NULL, m_eoffset, "offset", P_LIST, 0, SQK_ERR_CORRUPT,
	 "dir-entry", "/"},
	{"a name of 257 bytes", NULL, m_ename_size, "name_size", P_LIST, 0, SQK_ERR_CORRUPT,
	 "dir-header", "/"},
	{"an index name of 257 bytes", NULL, m_xname_size, "name_size", P_LOOKUP, 0,
	 SQK_ERR_CORRUPT, "dir-index", "/"},
	{"an index entry past the listing", NULL, m_xoffset, "offset", P_LOOKUP, 0, SQK_ERR_CORRUPT,
	 "dir-index", "/"},
	{"index entries out of order", m_xorder, NULL, "offset", P_LOOKUP, 0, SQK_ERR_CORRUPT,
	 "dir-index", "/"},
};

/* What the reader says, meeting the broken thing the way the mutation names. */
static int reader(const struct world *w, const struct mutation *m)
{
	struct sqk_image *img = open_image(w);
	struct sqk_inode ino;
	struct sqk_dir_iter it;
	struct sqk_dir_entry ent;
	int err;

	if (!img)
		return 1;
	err = sqk_inode_read(img, w->s[m->probe == P_INODE ? m->spec : ROOT].ref, &ino);
	if (!err && m->probe == P_LIST) {
		err = sqk_dir_iter_open(img, &ino, &it);
		while (!err && (err = sqk_dir_iter_next(&it, &ent)) == 1)
			err = 0;
		sqk_dir_iter_close(&it);
	} else if (!err && m->probe == P_LOOKUP) {
		err = sqk_dir_lookup(img, &ino, "t13-lfifo", 9, &ent);
	}
	sqk_inode_free(&ino);
	sqk_image_destroy(img);
	return err;
}

static void test_rules(void)
{
	struct world *w = malloc(sizeof(*w));
	size_t i;

	for (i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		const struct mutation *m = &mutations[i];
		struct sqk_fsck_counts c;
		struct report rep;
		struct fields fl;
		char want[96];
		int err;

		build(w, m->pre, m->post);
		codec_fields(w, &fl);
		if (!ok(!strcmp(fl.list, m->field), "%s: the codec reports %s", m->what, m->field))
			printf("#   reported: %s\n", fl.list);
		err = reader(w, m);
		is_int(err, m->read_err, "%s: the reader %s", m->what,
		       m->read_err ? "refuses it" : "takes it (only fsck sees the tree)");
		snprintf(want, sizeof(want), "%s: %s: ", m->path, m->check);
		fsck(w, &rep, &c);
		if (!ok(strstr(rep.text, want) != NULL, "%s: fsck reports %s at %s", m->what,
			m->check, m->path))
			printf("# %s", rep.text);
	}
	free(w);
}

int main(void)
{
	test_round_trips();
	test_read_back();
	test_rules();
	return tap_done();
}
