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
 * The counts, ratios, dedup and sparse savings and fragment fill come from
 * the library's survey (survey.h); the metadata ratio from the tables here.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compressors/compressor.h"
#include "format/fmt_super.h"
#include "format/fmt_type.h"
#include "format/format.h"
#include "imageopt.h"
#include "read/image.h"
#include "read/layout.h"
#include "read/meta.h"
#include "show.h"
#include "util/error.h"
#include "util/json.h"
#include "util/parse.h"
#include "walk/survey.h"

static const char usage_text[] =
	"Usage: squashkit inspect [OPTIONS] IMAGE\n"
	"Show the superblock of IMAGE, its flags, the compressor and its options,\n"
	"where each table lies and how large it is, counts of inodes by type, data\n"
	"and metadata compression ratios, dedup and sparse savings, fragment fill.\n\n"
	"      --json        one JSON object\n" SQK_HELP_INSPECTOR_TAIL;

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

struct inspect {
	struct sqk_image *img;
	const char *image;
	const struct sqk_super *sb;
	struct table t[T_COUNT];
	uint64_t options_size; /* the options block, header included; 0 = none */
	uint64_t data_start;
	uint32_t xattr_ids;
	struct sqk_survey sv;
	char err_path[4096 + 256 + 2];
};

/*
 * Each table's extent, as the library's layout places it, and its metadata
 * blocks. An export table counts only with the exportable flag: without it
 * nothing reads the table.
 */
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
		if (i == T_EXPORT && !(in->sb->flags & SQK_FLAG_EXPORTABLE))
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

static int has_xattrs(const struct sqk_super *sb)
{
	return !(sb->flags & SQK_FLAG_NO_XATTRS) && sb->xattr_table != SQK_INVALID_TABLE;
}

static const char *codec_name(const struct sqk_super *sb)
{
	const struct sqk_codec *codec = sqk_codec_by_id(sb->compressor);

	return codec ? codec->name : "unknown";
}

static int describe(const struct inspect *in, struct sqk_comp_kv *kv, int max)
{
	const struct sqk_codec *codec = sqk_codec_by_id(in->sb->compressor);

	return codec && codec->describe ? codec->describe(sqk_image_comp(in->img), kv, max) : 0;
}

static void json_table(struct sqk_json *j, const struct table *t)
{
	if (!t->present) {
		sqk_json_null(j);
		return;
	}
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "start", t->start);
	sqk_json_key_uint(j, "size", t->size);
	sqk_json_key_uint(j, "metadata_blocks", t->blocks);
	sqk_json_key_uint(j, "uncompressed", t->uncompressed);
	sqk_json_key_uint(j, "stored", t->stored);
	if (t->lookup) {
		sqk_json_key_uint(j, "lookup", t->lookup);
		sqk_json_key_uint(j, "lookup_blocks", t->nlookup);
	}
	sqk_json_end_object(j);
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
	{"inode_table", offsetof(struct sqk_super, inode_table)},
	{"dir_table", offsetof(struct sqk_super, dir_table)},
	{"fragment_table", offsetof(struct sqk_super, fragment_table)},
	{"export_table", offsetof(struct sqk_super, export_table)},
	{"id_table", offsetof(struct sqk_super, id_table)},
	{"xattr_table", offsetof(struct sqk_super, xattr_table)},
};

static uint64_t pointer(const struct sqk_super *sb, int i)
{
	uint64_t v;

	memcpy(&v, (const char *)sb + pointers[i].off, sizeof(v));
	return v;
}

/* The superblock's fields other than the table pointers, by their names. */
// clang-format off
#define SUPER_FIELDS(X)                                                                            \
	X(magic) X(inode_count) X(mkfs_time) X(block_size) X(fragment_count) X(compressor)         \
	X(block_log) X(flags) X(id_count) X(version_major) X(version_minor) X(root_inode)          \
	X(bytes_used)
// clang-format on

/* Every superblock field as stored; a missing table's pointer is null. */
static void json_super(struct sqk_json *j, const struct sqk_super *sb)
{
	size_t i;

	sqk_json_begin_object(j, 0);
#define SUPER_JSON(f) sqk_json_key_uint(j, #f, sb->f);
	SUPER_FIELDS(SUPER_JSON)
	for (i = 0; i < sizeof(pointers) / sizeof(pointers[0]); i++) {
		uint64_t v = pointer(sb, (int)i);

		if (v == SQK_INVALID_TABLE)
			sqk_json_key_null(j, pointers[i].name);
		else
			sqk_json_key_uint(j, pointers[i].name, v);
	}
	sqk_json_end_object(j);
}

/* {"start":N,"size":N} */
static void json_extent(struct sqk_json *j, uint64_t start, uint64_t size)
{
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "start", start);
	sqk_json_key_uint(j, "size", size);
	sqk_json_end_object(j);
}

/* The codec's options: numbers as numbers, the rest as strings. */
static void json_options(struct sqk_json *j, const struct inspect *in)
{
	struct sqk_comp_kv kv[16];
	int i, n = describe(in, kv, 16);

	sqk_json_begin_object(j, 0);
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (kv[i].is_number && sqk_parse_uint(kv[i].value, UINT64_MAX, &v) == 0)
			sqk_json_key_uint(j, kv[i].key, v);
		else
			sqk_json_key_string(j, kv[i].key, kv[i].value);
	}
	sqk_json_end_object(j);
}

static void json_counts(struct sqk_json *j, const struct inspect *in)
{
	const struct sqk_super *sb = in->sb;
	const struct sqk_survey *sv = &in->sv;
	int i;

	sqk_json_begin_object(j, 0);
	for (i = SQK_DIR; i < SQK_FMT_BASIC_TYPES; i++)
		sqk_json_key_uint(j, sqk_fmt_type_plural(i), sv->type[i]);
	sqk_json_key_uint(j, "extended", sv->extended);
	sqk_json_key_uint(j, "hard_links", sv->hard_links);
	sqk_json_key_uint(j, "inodes", sv->inodes);
	sqk_json_key_uint(j, "fragments", sb->fragment_count);
	sqk_json_key_uint(j, "ids", sb->id_count);
	sqk_json_key_uint(j, "xattr_ids", in->xattr_ids);
	sqk_json_end_object(j);
}

/* What the survey found: data, metadata, dedup, sparse, fragment fill. */
static void json_survey(struct sqk_json *j, const struct inspect *in)
{
	const struct sqk_survey *sv = &in->sv;
	uint64_t mblocks, munc, mst;

	sqk_json_key(j, "data");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "uncompressed", sv->file_bytes);
	sqk_json_key_uint(j, "stored", sv->stored);
	sqk_json_key_double(j, "ratio", sv->data_ratio, 6);
	sqk_json_key_uint(j, "blocks", sv->data_blocks);
	sqk_json_key_uint(j, "block_bytes", sv->data_stored);
	sqk_json_key_uint(j, "fragment_bytes", sv->frag_stored);
	sqk_json_key_uint(j, "tails", sv->tails);
	sqk_json_key_uint(j, "tail_bytes", sv->tail_bytes);
	sqk_json_end_object(j);
	meta_totals(in, &mblocks, &munc, &mst);
	sqk_json_key(j, "metadata");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "uncompressed", munc);
	sqk_json_key_uint(j, "stored", mst);
	sqk_json_key_double(j, "ratio", sqk_ratio(mst, munc), 6);
	sqk_json_key_uint(j, "blocks", mblocks);
	sqk_json_end_object(j);
	sqk_json_key(j, "dedup");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "blocks", sv->dedup_blocks);
	sqk_json_key_uint(j, "tails", sv->dedup_tails);
	sqk_json_key_uint(j, "bytes", sv->dedup_bytes + sv->dedup_tail_bytes);
	sqk_json_key_uint(j, "stored_bytes", sv->dedup_stored);
	sqk_json_end_object(j);
	sqk_json_key(j, "sparse");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "blocks", sv->sparse_blocks);
	sqk_json_key_uint(j, "bytes", sv->sparse_bytes);
	sqk_json_end_object(j);
	sqk_json_key_double(j, "fragment_fill", sv->fragment_fill, 6);
}

static void print_json(struct sqk_json *j, const struct inspect *in)
{
	const struct sqk_super *sb = in->sb;
	char version[24];
	int i;

	snprintf(version, sizeof(version), "%u.%u", sb->version_major, sb->version_minor);
	sqk_json_begin_object(j, 0);
	sqk_json_key_string(j, "image", in->image);
	sqk_json_key_string(j, "version", version);
	sqk_json_key_string(j, "compression", codec_name(sb));
	sqk_json_key_uint(j, "compressor_id", sb->compressor);
	sqk_json_key_uint(j, "block_size", sb->block_size);
	sqk_json_key_uint(j, "block_log", sb->block_log);
	sqk_json_key_uint(j, "bytes_used", sb->bytes_used);
	sqk_json_key_uint(j, "image_size", sqk_image_file(in->img)->size(sqk_image_file(in->img)));
	sqk_json_key_uint(j, "mkfs_time", sb->mkfs_time);
	sqk_json_key_uint(j, "inodes", sb->inode_count);
	sqk_json_key_uint(j, "fragments", sb->fragment_count);
	sqk_json_key_uint(j, "ids", sb->id_count);
	sqk_json_key_uint(j, "xattr_ids", in->xattr_ids);
	sqk_json_key(j, "root_inode");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "block", SQK_REF_BLOCK(sb->root_inode));
	sqk_json_key_uint(j, "offset", SQK_REF_OFFSET(sb->root_inode));
	sqk_json_end_object(j);
	sqk_json_key_uint(j, "flags_value", sb->flags);
	sqk_json_key(j, "superblock");
	json_super(j, sb);
	sqk_json_key(j, "flags");
	sqk_json_begin_object(j, 0);
	sqk_json_key_bool(j, "xattrs", has_xattrs(sb));
	for (i = 0; sqk_fmt_super_flags[i].name; i++)
		sqk_json_key_bool(j, sqk_fmt_super_flags[i].name,
				  sb->flags & sqk_fmt_super_flags[i].bit);
	sqk_json_end_object(j);
	sqk_json_key(j, "compressor_options");
	json_options(j, in);
	sqk_json_key(j, "options_block");
	if (in->options_size)
		json_extent(j, SQK_SUPER_SIZE, in->options_size);
	else
		sqk_json_null(j);
	sqk_json_key(j, "tables");
	sqk_json_begin_object(j, 0);
	sqk_json_key(j, "data");
	json_extent(j, in->data_start, sb->inode_table - in->data_start);
	for (i = 0; i < T_COUNT; i++) {
		sqk_json_key(j, table_names[i]);
		json_table(j, &in->t[i]);
	}
	sqk_json_end_object(j);
	sqk_json_key(j, "counts");
	json_counts(j, in);
	json_survey(j, in);
	sqk_json_end_object(j);
	sqk_json_finish(j);
}

static void print_percent(uint64_t part, uint64_t whole)
{
	if (whole)
		printf(" (%.2f%%)", 100.0 * sqk_ratio(part, whole));
	fputc('\n', stdout);
}

static void print_text(const struct inspect *in)
{
	const struct sqk_super *sb = in->sb;
	const struct sqk_survey *c = &in->sv;
	struct sqk_comp_kv kv[16];
	uint64_t mblocks, munc, mst, stored = c->stored;
	char when[32];
	int i, n;

	cli_time_string(sb->mkfs_time, 1, when, sizeof(when));
	fputs("Image:              ", stdout);
	cli_print_escaped(stdout, in->image);
	printf("\nMagic:              0x%08x\n", sb->magic);
	printf("Version:            %u.%u\n", sb->version_major, sb->version_minor);
	printf("Compression:        %s (id %u)\n", codec_name(sb), sb->compressor);
	n = describe(in, kv, 16);
	for (i = 0; i < n; i++)
		printf("  %-18s%s\n", kv[i].key, kv[i].value);
	if (in->options_size)
		printf("Options block:      %llu bytes at %u\n",
		       (unsigned long long)in->options_size, SQK_SUPER_SIZE);
	else
		printf("Options block:      none (the codec's defaults apply)\n");
	printf("Block size:         %u (log %u)\n", sb->block_size, sb->block_log);
	printf("Bytes used:         %llu\n", (unsigned long long)sb->bytes_used);
	printf("Image size:         %llu\n",
	       (unsigned long long)sqk_image_file(in->img)->size(sqk_image_file(in->img)));
	printf("Created:            %s UTC (%u)\n", when, sb->mkfs_time);
	printf("Root inode:         block %llu offset %u\n",
	       (unsigned long long)SQK_REF_BLOCK(sb->root_inode), SQK_REF_OFFSET(sb->root_inode));
	printf("Inodes:             %u\nFragments:          %u\nIds:                %u\n"
	       "Xattr ids:          %u\n",
	       sb->inode_count, sb->fragment_count, sb->id_count, in->xattr_ids);
	printf("Flags:              0x%04x\n", sb->flags);
	printf("  %-24s%s\n", "xattrs", has_xattrs(sb) ? "yes" : "no");
	for (i = 0; sqk_fmt_super_flags[i].name; i++)
		printf("  %-24s%s\n", sqk_fmt_super_flags[i].name,
		       (sb->flags & sqk_fmt_super_flags[i].bit) ? "yes" : "no");
	printf("Table pointers:    ");
	for (i = 0; i < (int)(sizeof(pointers) / sizeof(pointers[0])); i++) {
		uint64_t v = pointer(sb, i);

		if (v == SQK_INVALID_TABLE)
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
	for (i = SQK_DIR; i < SQK_FMT_BASIC_TYPES; i++)
		printf("  %-18s%llu\n", sqk_fmt_type_plural(i), (unsigned long long)c->type[i]);
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

static int run(struct sqk_show *s)
{
	struct inspect *in = calloc(1, sizeof(*in));
	int err, ret = EXIT_FAIL;

	if (!in) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	in->img = s->img;
	in->image = s->image;
	in->sb = sqk_image_super(in->img);
	err = find_tables(in);
	if (err) {
		if (!in->err_path[0])
			snprintf(in->err_path, sizeof(in->err_path), "superblock");
		cli_error(in->image, "%s: %s", in->err_path, cli_image_err_text(in->img, err));
	} else if ((err = sqk_survey(in->img, &in->sv)) != 0) {
		if (in->sv.err_in_tree)
			cli_show_path_code(in->image, in->img, in->sv.err_where, err);
		else
			cli_error(in->image, "%s: %s", in->sv.err_where,
				  cli_image_err_text(in->img, err));
	} else {
		if (s->json)
			print_json(&s->out, in);
		else
			print_text(in);
		ret = EXIT_OK;
	}
	free(in);
	return ret;
}

int cli_inspect(int argc, char **argv)
{
	static const struct sqk_show_cmd inspect_cmd = {
		.usage = usage_text,
		.shortopts = "",
		.json = 1,
		.run = run,
	};

	return cli_show_main(argc, argv, &inspect_cmd, NULL);
}
