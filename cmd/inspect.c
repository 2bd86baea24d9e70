// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit inspect: the superblock, the compressor, where each table lies,
 * and what a walk of every inode finds (counts, compression, dedup, sparse
 * blocks, fragment fill).
 *
 * Table extents. A table's "start" is its first byte: for the inode and
 * directory tables the superblock's pointer; for the fragment, export and
 * id tables their first metadata block (the superblock points at the list
 * of block positions that follows the blocks); for xattrs the first
 * key/value metadata block. Its "size" runs to its last byte: for the inode
 * and directory tables the next structure's start (another table, or
 * bytes_used); for lookup tables the end of the position list, so it counts
 * the metadata blocks and the list (for xattrs also the 16-byte header and
 * the id blocks). A table that is not there (pointer 0xffffffffffffffff, or
 * an export table without the exportable flag) is absent (null in JSON); a
 * table with no entries but a valid pointer has size 0.
 *
 * Ratios are stored bytes / uncompressed bytes. Data: the sizes of all
 * files (each inode once, so hard links count once) against the bytes of
 * the distinct data blocks and of the fragment blocks. Metadata: every
 * metadata block of the six tables, stored (with its 2-byte header) against
 * decompressed. Dedup: a block position or a fragment tail reached from a
 * second file is saved; counted in file bytes and in stored bytes. Sparse:
 * the file bytes of zero-size blocks. Fragment fill: distinct tail bytes /
 * (fragments x block size).
 */
#include <getopt.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compressor.h"
#include "data.h"
#include "error.h"
#include "format.h"
#include "image.h"
#include "imageopt.h"
#include "inode.h"
#include "layout.h"
#include "meta.h"
#include "show.h"
#include "walk.h"

static const char usage_text[] =
	"Usage: squashkit inspect [OPTIONS] IMAGE\n"
	"Show the superblock of IMAGE, its flags, the compressor and its options,\n"
	"where each table lies and how large it is, counts of inodes by type, data\n"
	"and metadata compression ratios, dedup and sparse savings, fragment fill.\n\n"
	"      --json        one JSON object\n"
	"      --stats       print cache counters on stderr at the end\n"
	"  -h, --help        show this help\n";

enum { OPT_JSON = 256, OPT_STATS };

static const struct option longopts[] = {
	{"json", no_argument, NULL, OPT_JSON},
	{"stats", no_argument, NULL, OPT_STATS},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

enum { T_INODE, T_DIR, T_FRAG, T_EXPORT, T_ID, T_XATTR, T_COUNT };
static const char *const table_names[T_COUNT] = {"inode",  "directory", "fragment",
						 "export", "id",	"xattr"};

struct table {
	int present;
	uint64_t start, size;
	uint64_t lookup;  /* the superblock's pointer (lookup tables) */
	uint32_t nlookup; /* metadata blocks the lookup list names */
	uint64_t blocks, uncompressed, stored;
};

struct counts {
	uint64_t type[8]; /* by basic type */
	uint64_t extended, hard_links;
	uint64_t file_bytes, data_blocks, data_stored, frag_stored;
	uint64_t sparse_blocks, sparse_bytes;
	uint64_t dedup_blocks, dedup_bytes, dedup_stored, dedup_tails, dedup_tail_bytes;
	uint64_t tails, tail_bytes;
	struct sqk_u64set blocks, tail_set;
};

struct inspect {
	struct sqk_sink sink;
	struct sqk_image *img;
	const char *image;
	const struct sqfs_super *sb;
	struct table t[T_COUNT];
	uint64_t options_size; /* the options block, header included; 0 = none */
	uint64_t data_start;
	uint32_t xattr_ids;
	struct counts c;
	char err_path[4096 + 256 + 2];
};

static int sink_dir(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct inspect *in = (struct inspect *)s;

	in->c.type[SQFS_DIR]++;
	if (sqk_inode_extended(ino))
		in->c.extended++;
	return 0;
}

static int sink_dir_end(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	return 0;
}

/* A regular file's blocks and tail: what is stored, shared, sparse. */
static int count_file(struct inspect *in, const struct sqk_inode *ino)
{
	uint32_t bs = in->sb->block_size, i;
	uint64_t pos = ino->blocks_start;
	struct counts *c = &in->c;
	int r;

	c->file_bytes += ino->size;
	for (i = 0; i < ino->nblocks; i++) {
		uint32_t size = ino->blocks[i] & SQFS_BLOCK_SIZE_MASK;
		uint64_t left = ino->size - (uint64_t)i * bs;
		uint32_t len = left < bs ? (uint32_t)left : bs;

		if (size == 0) {
			c->sparse_blocks++;
			c->sparse_bytes += len;
			continue;
		}
		r = sqk_u64set_add(&c->blocks, pos);
		if (r < 0)
			return r;
		if (r) {
			c->dedup_blocks++;
			c->dedup_bytes += len;
			c->dedup_stored += size;
		} else {
			c->data_blocks++;
			c->data_stored += size;
		}
		pos += size;
	}
	if (ino->frag_index != SQFS_INVALID_FRAG) {
		uint32_t tail = sqk_inode_tail(ino, bs);

		r = sqk_u64set_add(&c->tail_set,
				   (uint64_t)ino->frag_index << 32 | ino->frag_offset);
		if (r < 0)
			return r;
		if (r) {
			c->dedup_tails++;
			c->dedup_tail_bytes += tail;
		} else {
			c->tails++;
			c->tail_bytes += tail;
		}
	}
	return 0;
}

static int sink_node(struct sqk_sink *s, const char *path, struct sqk_inode *ino,
		     const char *link_to)
{
	struct inspect *in = (struct inspect *)s;
	unsigned type = sqfs_basic_type(ino->type);

	/* A hard link: the inode was counted at its first path. */
	if (link_to) {
		in->c.hard_links++;
		return 0;
	}
	in->c.type[type]++;
	if (sqk_inode_extended(ino))
		in->c.extended++;
	return type == SQFS_FILE ? count_file(in, ino) : 0;
}

/* Each table's extent, as the library lays the image out, and its metadata blocks. */
static int find_tables(struct inspect *in)
{
	static const int which[T_COUNT] = {SQK_TABLE_INODE,  SQK_TABLE_DIR, SQK_TABLE_FRAG,
					   SQK_TABLE_EXPORT, SQK_TABLE_ID,  SQK_TABLE_XATTR};
	const struct sqk_layout *l = sqk_image_layout(in->img);
	int err, i;

	in->options_size = l->options_size;
	in->data_start = l->data_start;
	in->xattr_ids = (uint32_t)l->t[SQK_TABLE_XATTR].entries;
	for (i = 0; i < T_COUNT; i++) {
		const struct sqk_table *lt = &l->t[which[i]];
		struct table *t = &in->t[i];
		struct sqk_meta_count mc;

		if (!lt->present)
			continue;
		t->present = 1;
		t->start = lt->start;
		t->size = lt->end - lt->start;
		if (which[i] >= SQK_TABLE_FRAG) {
			t->lookup = lt->ptr;
			t->nlookup = lt->nblocks;
		}
		err = sqk_meta_count(in->img, lt->start, lt->blocks_end, &mc);
		if (err) {
			snprintf(in->err_path, sizeof(in->err_path), "%s table", table_names[i]);
			return err;
		}
		t->blocks = mc.blocks;
		t->uncompressed = mc.uncompressed;
		t->stored = mc.stored;
	}
	return 0;
}

static int count_fragments(struct inspect *in)
{
	uint32_t i;

	for (i = 0; i < in->sb->fragment_count; i++) {
		uint64_t start;
		uint32_t size;
		int err = sqk_fragment_entry(in->img, i, &start, &size);

		if (err) {
			snprintf(in->err_path, sizeof(in->err_path), "fragment %u", i);
			return err;
		}
		in->c.frag_stored += size & SQFS_BLOCK_SIZE_MASK;
	}
	return 0;
}

static double ratio(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

/* The flags by name: the superblock's bits, and "xattrs" as unsquashfs sees them. */
struct flag {
	const char *name;
	uint16_t bit;
};

static const struct flag flag_names[] = {
	{"exportable", SQFS_FLAG_EXPORTABLE},
	{"duplicates", SQFS_FLAG_DUPLICATES},
	{"no_fragments", SQFS_FLAG_NO_FRAGMENTS},
	{"always_fragments", SQFS_FLAG_ALWAYS_FRAGMENTS},
	{"uncompressed_inodes", SQFS_FLAG_UNCOMPRESSED_INODES},
	{"uncompressed_data", SQFS_FLAG_UNCOMPRESSED_DATA},
	{"uncompressed_fragments", SQFS_FLAG_UNCOMPRESSED_FRAGMENTS},
	{"uncompressed_xattrs", SQFS_FLAG_UNCOMPRESSED_XATTRS},
	{"compressor_options", SQFS_FLAG_COMPRESSOR_OPTIONS},
	{"no_xattrs", SQFS_FLAG_NO_XATTRS},
	{"uncompressed_ids", SQFS_FLAG_UNCOMPRESSED_IDS},
	{"check", SQFS_FLAG_CHECK},
	{NULL, 0},
};

static int has_xattrs(const struct sqfs_super *sb)
{
	return !(sb->flags & SQFS_FLAG_NO_XATTRS) && sb->xattr_table != SQFS_INVALID_TABLE;
}

static const char *const count_names[8] = {NULL,       "directories",	"files",
					   "symlinks", "block_devices", "char_devices",
					   "fifos",    "sockets"};

static const char *codec_name(const struct sqfs_super *sb)
{
	const struct sqk_codec *codec = sqk_codec_by_id(sb->compressor);

	return codec ? codec->name : "unknown";
}

static int describe(const struct inspect *in, struct sqk_comp_kv *kv, int max)
{
	const struct sqk_codec *codec = sqk_codec_by_id(in->sb->compressor);

	return codec && codec->describe ? codec->describe(sqk_image_comp(in->img), kv, max) : 0;
}

static void json_table(const struct table *t)
{
	if (!t->present) {
		fputs("null", stdout);
		return;
	}
	printf("{\"start\":%llu,\"size\":%llu,\"metadata_blocks\":%llu,\"uncompressed\":%llu,"
	       "\"stored\":%llu",
	       (unsigned long long)t->start, (unsigned long long)t->size,
	       (unsigned long long)t->blocks, (unsigned long long)t->uncompressed,
	       (unsigned long long)t->stored);
	if (t->lookup)
		printf(",\"lookup\":%llu,\"lookup_blocks\":%u", (unsigned long long)t->lookup,
		       t->nlookup);
	fputc('}', stdout);
}

static void meta_totals(const struct inspect *in, uint64_t *blocks, uint64_t *unc, uint64_t *st)
{
	int i;

	*blocks = *unc = *st = 0;
	for (i = 0; i < T_COUNT; i++) {
		*blocks += in->t[i].blocks;
		*unc += in->t[i].uncompressed;
		*st += in->t[i].stored;
	}
}

/* The superblock's six table pointers, as stored (0xffffffffffffffff = none). */
static const struct {
	const char *name;
	size_t off;
} pointers[] = {
	{"inode_table", offsetof(struct sqfs_super, inode_table)},
	{"dir_table", offsetof(struct sqfs_super, dir_table)},
	{"fragment_table", offsetof(struct sqfs_super, fragment_table)},
	{"export_table", offsetof(struct sqfs_super, export_table)},
	{"id_table", offsetof(struct sqfs_super, id_table)},
	{"xattr_table", offsetof(struct sqfs_super, xattr_table)},
};

static uint64_t pointer(const struct sqfs_super *sb, int i)
{
	uint64_t v;

	memcpy(&v, (const char *)sb + pointers[i].off, sizeof(v));
	return v;
}

/* Every superblock field as stored; a missing table's pointer is null. */
static void json_super(const struct sqfs_super *sb)
{
	size_t i;

	printf(",\"superblock\":{\"magic\":%u,\"inode_count\":%u,\"mkfs_time\":%u,"
	       "\"block_size\":%u,\"fragment_count\":%u,\"compressor\":%u,\"block_log\":%u,"
	       "\"flags\":%u,\"id_count\":%u,\"version_major\":%u,\"version_minor\":%u,"
	       "\"root_inode\":%llu,\"bytes_used\":%llu",
	       sb->magic, sb->inode_count, sb->mkfs_time, sb->block_size, sb->fragment_count,
	       sb->compressor, sb->block_log, sb->flags, sb->id_count, sb->version_major,
	       sb->version_minor, (unsigned long long)sb->root_inode,
	       (unsigned long long)sb->bytes_used);
	for (i = 0; i < sizeof(pointers) / sizeof(pointers[0]); i++) {
		uint64_t v = pointer(sb, (int)i);

		if (v == SQFS_INVALID_TABLE)
			printf(",\"%s\":null", pointers[i].name);
		else
			printf(",\"%s\":%llu", pointers[i].name, (unsigned long long)v);
	}
	fputc('}', stdout);
}

static void print_json(const struct inspect *in)
{
	const struct sqfs_super *sb = in->sb;
	const struct counts *c = &in->c;
	struct sqk_comp_kv kv[16];
	uint64_t mblocks, munc, mst, stored = c->data_stored + c->frag_stored;
	uint64_t inodes = 0;
	int i, n;

	fputs("{\"image\":", stdout);
	sqk_json_text(stdout, in->image);
	printf(",\"version\":\"%u.%u\",\"compression\":\"%s\",\"compressor_id\":%u,"
	       "\"block_size\":%u,\"block_log\":%u,\"bytes_used\":%llu,\"image_size\":%llu,"
	       "\"mkfs_time\":%u,\"inodes\":%u,\"fragments\":%u,\"ids\":%u,\"xattr_ids\":%u,"
	       "\"root_inode\":{\"block\":%llu,\"offset\":%u},\"flags_value\":%u",
	       sb->version_major, sb->version_minor, codec_name(sb), sb->compressor, sb->block_size,
	       sb->block_log, (unsigned long long)sb->bytes_used,
	       (unsigned long long)sqk_image_file(in->img)->size(sqk_image_file(in->img)),
	       sb->mkfs_time, sb->inode_count, sb->fragment_count, sb->id_count, in->xattr_ids,
	       (unsigned long long)SQFS_REF_BLOCK(sb->root_inode), SQFS_REF_OFFSET(sb->root_inode),
	       sb->flags);
	json_super(sb);
	printf(",\"flags\":{\"xattrs\":%s", has_xattrs(sb) ? "true" : "false");
	for (i = 0; flag_names[i].name; i++)
		printf(",\"%s\":%s", flag_names[i].name,
		       (sb->flags & flag_names[i].bit) ? "true" : "false");
	fputs("},\"compressor_options\":{", stdout);
	n = describe(in, kv, 16);
	for (i = 0; i < n; i++) {
		printf("%s\"%s\":", i ? "," : "", kv[i].key);
		if (kv[i].is_number)
			fputs(kv[i].value, stdout);
		else
			sqk_json_text(stdout, kv[i].value);
	}
	fputs("},\"options_block\":", stdout);
	if (in->options_size)
		printf("{\"start\":%u,\"size\":%llu}", SQFS_SUPER_SIZE,
		       (unsigned long long)in->options_size);
	else
		fputs("null", stdout);
	printf(",\"tables\":{\"data\":{\"start\":%llu,\"size\":%llu}",
	       (unsigned long long)in->data_start,
	       (unsigned long long)(sb->inode_table - in->data_start));
	for (i = 0; i < T_COUNT; i++) {
		printf(",\"%s\":", table_names[i]);
		json_table(&in->t[i]);
	}
	fputs("},\"counts\":{", stdout);
	for (i = 1; i < 8; i++) {
		printf("%s\"%s\":%llu", i > 1 ? "," : "", count_names[i],
		       (unsigned long long)c->type[i]);
		inodes += c->type[i];
	}
	printf(",\"extended\":%llu,\"hard_links\":%llu,\"inodes\":%llu,\"fragments\":%u,"
	       "\"ids\":%u,\"xattr_ids\":%u}",
	       (unsigned long long)c->extended, (unsigned long long)c->hard_links,
	       (unsigned long long)inodes, sb->fragment_count, sb->id_count, in->xattr_ids);
	printf(",\"data\":{\"uncompressed\":%llu,\"stored\":%llu,\"ratio\":%.6f,\"blocks\":%llu,"
	       "\"block_bytes\":%llu,\"fragment_bytes\":%llu,\"tails\":%llu,\"tail_bytes\":%llu}",
	       (unsigned long long)c->file_bytes, (unsigned long long)stored,
	       ratio(stored, c->file_bytes), (unsigned long long)c->data_blocks,
	       (unsigned long long)c->data_stored, (unsigned long long)c->frag_stored,
	       (unsigned long long)c->tails, (unsigned long long)c->tail_bytes);
	meta_totals(in, &mblocks, &munc, &mst);
	printf(",\"metadata\":{\"uncompressed\":%llu,\"stored\":%llu,\"ratio\":%.6f,"
	       "\"blocks\":%llu}",
	       (unsigned long long)munc, (unsigned long long)mst, ratio(mst, munc),
	       (unsigned long long)mblocks);
	printf(",\"dedup\":{\"blocks\":%llu,\"tails\":%llu,\"bytes\":%llu,\"stored_bytes\":%llu}",
	       (unsigned long long)c->dedup_blocks, (unsigned long long)c->dedup_tails,
	       (unsigned long long)(c->dedup_bytes + c->dedup_tail_bytes),
	       (unsigned long long)c->dedup_stored);
	printf(",\"sparse\":{\"blocks\":%llu,\"bytes\":%llu}", (unsigned long long)c->sparse_blocks,
	       (unsigned long long)c->sparse_bytes);
	printf(",\"fragment_fill\":%.6f}\n",
	       ratio(c->tail_bytes, (uint64_t)sb->fragment_count * sb->block_size));
}

static void print_percent(uint64_t part, uint64_t whole)
{
	if (whole)
		printf(" (%.2f%%)", 100.0 * ratio(part, whole));
	fputc('\n', stdout);
}

static void print_text(const struct inspect *in)
{
	const struct sqfs_super *sb = in->sb;
	const struct counts *c = &in->c;
	struct sqk_comp_kv kv[16];
	uint64_t mblocks, munc, mst, stored = c->data_stored + c->frag_stored;
	char when[32];
	int i, n;

	sqk_time_string(sb->mkfs_time, 1, when, sizeof(when));
	fputs("Image:              ", stdout);
	sqk_print_escaped(stdout, in->image);
	printf("\nMagic:              0x%08x\n", sb->magic);
	printf("Version:            %u.%u\n", sb->version_major, sb->version_minor);
	printf("Compression:        %s (id %u)\n", codec_name(sb), sb->compressor);
	n = describe(in, kv, 16);
	for (i = 0; i < n; i++)
		printf("  %-18s%s\n", kv[i].key, kv[i].value);
	if (in->options_size)
		printf("Options block:      %llu bytes at %u\n",
		       (unsigned long long)in->options_size, SQFS_SUPER_SIZE);
	else
		printf("Options block:      none (the codec's defaults apply)\n");
	printf("Block size:         %u (log %u)\n", sb->block_size, sb->block_log);
	printf("Bytes used:         %llu\n", (unsigned long long)sb->bytes_used);
	printf("Image size:         %llu\n",
	       (unsigned long long)sqk_image_file(in->img)->size(sqk_image_file(in->img)));
	printf("Created:            %s UTC (%u)\n", when, sb->mkfs_time);
	printf("Root inode:         block %llu offset %u\n",
	       (unsigned long long)SQFS_REF_BLOCK(sb->root_inode), SQFS_REF_OFFSET(sb->root_inode));
	printf("Inodes:             %u\nFragments:          %u\nIds:                %u\n"
	       "Xattr ids:          %u\n",
	       sb->inode_count, sb->fragment_count, sb->id_count, in->xattr_ids);
	printf("Flags:              0x%04x\n", sb->flags);
	printf("  %-24s%s\n", "xattrs", has_xattrs(sb) ? "yes" : "no");
	for (i = 0; flag_names[i].name; i++)
		printf("  %-24s%s\n", flag_names[i].name,
		       (sb->flags & flag_names[i].bit) ? "yes" : "no");
	printf("Table pointers:    ");
	for (i = 0; i < (int)(sizeof(pointers) / sizeof(pointers[0])); i++) {
		uint64_t v = pointer(sb, i);

		if (v == SQFS_INVALID_TABLE)
			printf(" %s=none", pointers[i].name);
		else
			printf(" %s=%llu", pointers[i].name, (unsigned long long)v);
	}
	fputc('\n', stdout);
	printf("Tables:             %12s %12s %8s %12s %12s\n", "start", "size", "blocks",
	       "uncompressed", "stored");
	printf("  %-18s%12llu %12llu\n", "data", (unsigned long long)in->data_start,
	       (unsigned long long)(sb->inode_table - in->data_start));
	for (i = 0; i < T_COUNT; i++) {
		const struct table *t = &in->t[i];

		if (!t->present) {
			printf("  %-18s%12s\n", table_names[i], "absent");
			continue;
		}
		printf("  %-18s%12llu %12llu %8llu %12llu %12llu\n", table_names[i],
		       (unsigned long long)t->start, (unsigned long long)t->size,
		       (unsigned long long)t->blocks, (unsigned long long)t->uncompressed,
		       (unsigned long long)t->stored);
	}
	printf("Counts:\n");
	for (i = 1; i < 8; i++)
		printf("  %-18s%llu\n", count_names[i], (unsigned long long)c->type[i]);
	printf("  %-18s%llu\n  %-18s%llu\n", "extended", (unsigned long long)c->extended,
	       "hard_links", (unsigned long long)c->hard_links);
	printf("Data:               %llu bytes in files, %llu stored",
	       (unsigned long long)c->file_bytes, (unsigned long long)stored);
	print_percent(stored, c->file_bytes);
	meta_totals(in, &mblocks, &munc, &mst);
	printf("Metadata:           %llu bytes in %llu blocks, %llu stored",
	       (unsigned long long)munc, (unsigned long long)mblocks, (unsigned long long)mst);
	print_percent(mst, munc);
	printf("Dedup savings:      %llu bytes (%llu blocks, %llu tails; %llu stored bytes)\n",
	       (unsigned long long)(c->dedup_bytes + c->dedup_tail_bytes),
	       (unsigned long long)c->dedup_blocks, (unsigned long long)c->dedup_tails,
	       (unsigned long long)c->dedup_stored);
	printf("Sparse savings:     %llu bytes (%llu blocks)\n",
	       (unsigned long long)c->sparse_bytes, (unsigned long long)c->sparse_blocks);
	printf("Fragment fill:      %llu tail bytes in %u fragments",
	       (unsigned long long)c->tail_bytes, sb->fragment_count);
	print_percent(c->tail_bytes, (uint64_t)sb->fragment_count * sb->block_size);
}

static int run(struct inspect *in, int json)
{
	struct sqk_walk w;
	int err;

	in->sb = sqk_image_super(in->img);
	err = find_tables(in);
	if (!err)
		err = count_fragments(in);
	if (err) {
		if (!in->err_path[0])
			snprintf(in->err_path, sizeof(in->err_path), "superblock");
		sqk_error(in->image, "%s: %s", in->err_path, sqk_strerror(err));
		return EXIT_FAIL;
	}
	in->sink.dir_begin = sink_dir;
	in->sink.dir_end = sink_dir_end;
	in->sink.node = sink_node;
	memset(&w, 0, sizeof(w));
	w.img = in->img;
	w.sink = &in->sink;
	err = sqk_walk(&w);
	if (err) {
		sqk_show_path_code(in->image, w.err_path, err);
		return EXIT_FAIL;
	}
	if (json)
		print_json(in);
	else
		print_text(in);
	return EXIT_OK;
}

int cmd_inspect(int argc, char **argv)
{
	struct sqk_image_opts io;
	struct inspect *in;
	int c, json = 0, stats = 0, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_STATS:
			stats = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return sqk_show_bad_option(argv);
		}
	}
	if (optind >= argc)
		return sqk_usage_error("missing IMAGE operand");
	if (argc - optind > 1)
		return sqk_usage_error("too many operands");
	in = calloc(1, sizeof(*in));
	if (!in) {
		sqk_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	signal(SIGPIPE, SIG_IGN);
	in->image = argv[optind];
	sqk_image_opts_default(&io);
	in->img = sqk_open_image(in->image, &io);
	if (!in->img) {
		free(in);
		return EXIT_FAIL;
	}
	ret = run(in, json);
	if (sqk_show_flush() != 0)
		ret = EXIT_FAIL;
	if (stats)
		sqk_print_stats(stderr, in->img, 0);
	sqk_u64set_free(&in->c.blocks);
	sqk_u64set_free(&in->c.tail_set);
	sqk_image_close(in->img);
	free(in);
	return ret;
}
