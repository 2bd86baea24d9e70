// SPDX-License-Identifier: BSD-2-Clause
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
 * Every figure comes from the library's survey (squashkit/survey.h), the
 * superblock and the compressor's settings from the public API.
 */
#include <squashkit/squashkit.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "show.h"
#include "fe.h"
#include "verityopt.h"

static const char usage_text[] =
	"Usage: squashkit inspect [OPTIONS] IMAGE\n"
	"Show the superblock of IMAGE, its flags, the compressor and its options,\n"
	"where each table lies and how large it is, counts of inodes by type, data\n"
	"and metadata compression ratios, dedup and sparse savings, fragment fill.\n\n"
	"      --json        one JSON object\n" SQK_HELP_INSPECTOR_TAIL;

/* The tables as inspect names them, in the order they follow the data. */
static const struct {
	const char *name;
	enum sqk_table_kind kind;
} tables[] = {
	{"inode", SQK_TABLE_INODE},   {"directory", SQK_TABLE_DIR}, {"fragment", SQK_TABLE_FRAG},
	{"export", SQK_TABLE_EXPORT}, {"id", SQK_TABLE_ID},	    {"xattr", SQK_TABLE_XATTR},
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/* The compressor's settings: more than any codec has. */
#define MAX_OPTIONS 16

struct inspect {
	const char *image;
	struct sqk_superblock sb;
	const char *compression;
	struct sqk_survey *survey;
	const struct sqk_survey_figures *f;
	struct sqk_comp_option opt[MAX_OPTIONS];
	int nopt;
	int has_verity; /* a dm-verity hash area read through, or found after the image */
	struct sqk_verity_info verity;
};

static void json_table(struct sqk_json *j, const struct sqk_survey_table *t)
{
	if (!t) {
		sqk_json_null(j);
		return;
	}
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "start", t->start);
	sqk_json_key_uint(j, "size", t->size);
	sqk_json_key_uint(j, "metadata_blocks", t->metadata_blocks);
	sqk_json_key_uint(j, "uncompressed", t->uncompressed);
	sqk_json_key_uint(j, "stored", t->stored);
	if (t->lookup) {
		sqk_json_key_uint(j, "lookup", t->lookup);
		sqk_json_key_uint(j, "lookup_blocks", t->lookup_blocks);
	}
	sqk_json_end_object(j);
}

/* The superblock's six table pointers, as stored (UINT64_MAX = none). */
static const struct {
	const char *name;
	size_t off;
} pointers[] = {
	{"inode_table", offsetof(struct sqk_superblock, inode_table)},
	{"dir_table", offsetof(struct sqk_superblock, dir_table)},
	{"fragment_table", offsetof(struct sqk_superblock, fragment_table)},
	{"export_table", offsetof(struct sqk_superblock, export_table)},
	{"id_table", offsetof(struct sqk_superblock, id_table)},
	{"xattr_table", offsetof(struct sqk_superblock, xattr_table)},
};

static uint64_t pointer(const struct sqk_superblock *sb, int i)
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
static void json_super(struct sqk_json *j, const struct sqk_superblock *sb)
{
	size_t i;

	sqk_json_begin_object(j, 0);
#define SUPER_JSON(f) sqk_json_key_uint(j, #f, sb->f);
	SUPER_FIELDS(SUPER_JSON)
	for (i = 0; i < sizeof(pointers) / sizeof(pointers[0]); i++) {
		uint64_t v = pointer(sb, (int)i);

		if (v == UINT64_MAX)
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

/* The codec's options: numbers as numbers, the rest (names, lists) as strings. */
static void json_options(struct sqk_json *j, const struct inspect *in)
{
	int i;

	sqk_json_begin_object(j, 0);
	for (i = 0; i < in->nopt; i++) {
		uint64_t v;

		if (sqk_parse_uint(in->opt[i].value, UINT64_MAX, &v) == 0)
			sqk_json_key_uint(j, in->opt[i].key, v);
		else
			sqk_json_key_string(j, in->opt[i].key, in->opt[i].value);
	}
	sqk_json_end_object(j);
}

static void json_counts(struct sqk_json *j, const struct inspect *in)
{
	const struct sqk_survey_figures *f = in->f;
	const char *name;
	unsigned i;

	sqk_json_begin_object(j, 0);
	for (i = 1; (name = sqk_survey_type_name(i)); i++)
		sqk_json_key_uint(j, name, f->types[i]);
	sqk_json_key_uint(j, "extended", f->extended);
	sqk_json_key_uint(j, "hard_links", f->hard_links);
	sqk_json_key_uint(j, "inodes", f->inodes);
	sqk_json_key_uint(j, "fragments", in->sb.fragment_count);
	sqk_json_key_uint(j, "ids", in->sb.id_count);
	sqk_json_key_uint(j, "xattr_ids", f->xattr_ids);
	sqk_json_end_object(j);
}

/* What the survey found: data, metadata, dedup, sparse, fragment fill. */
static void json_survey(struct sqk_json *j, const struct inspect *in)
{
	const struct sqk_survey_figures *f = in->f;

	sqk_json_key(j, "data");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "uncompressed", f->file_bytes);
	sqk_json_key_uint(j, "stored", f->stored);
	sqk_json_key_double(j, "ratio", f->data_ratio, 6);
	sqk_json_key_uint(j, "blocks", f->data_blocks);
	sqk_json_key_uint(j, "block_bytes", f->data_stored);
	sqk_json_key_uint(j, "fragment_bytes", f->fragment_stored);
	sqk_json_key_uint(j, "tails", f->tails);
	sqk_json_key_uint(j, "tail_bytes", f->tail_bytes);
	sqk_json_end_object(j);
	sqk_json_key(j, "metadata");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "uncompressed", f->metadata_uncompressed);
	sqk_json_key_uint(j, "stored", f->metadata_stored);
	sqk_json_key_double(j, "ratio", f->metadata_ratio, 6);
	sqk_json_key_uint(j, "blocks", f->metadata_blocks);
	sqk_json_end_object(j);
	sqk_json_key(j, "dedup");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "blocks", f->dedup_blocks);
	sqk_json_key_uint(j, "tails", f->dedup_tails);
	sqk_json_key_uint(j, "bytes", f->dedup_bytes + f->dedup_tail_bytes);
	sqk_json_key_uint(j, "stored_bytes", f->dedup_stored);
	sqk_json_end_object(j);
	sqk_json_key(j, "sparse");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "blocks", f->sparse_blocks);
	sqk_json_key_uint(j, "bytes", f->sparse_bytes);
	sqk_json_end_object(j);
	sqk_json_key_double(j, "fragment_fill", f->fragment_fill, 6);
}

static void print_json(struct sqk_json *j, const struct inspect *in)
{
	const struct sqk_superblock *sb = &in->sb;
	const struct sqk_survey_figures *f = in->f;
	const char *name;
	char version[24];
	unsigned i;
	int set;

	snprintf(version, sizeof(version), "%u.%u", sb->version_major, sb->version_minor);
	sqk_json_begin_object(j, 0);
	sqk_json_key_string(j, "image", in->image);
	sqk_json_key_string(j, "version", version);
	sqk_json_key_string(j, "compression", in->compression);
	sqk_json_key_uint(j, "compressor_id", sb->compressor);
	sqk_json_key_uint(j, "block_size", sb->block_size);
	sqk_json_key_uint(j, "block_log", sb->block_log);
	sqk_json_key_uint(j, "bytes_used", sb->bytes_used);
	sqk_json_key_uint(j, "image_size", f->file_size);
	sqk_json_key_uint(j, "mkfs_time", sb->mkfs_time);
	sqk_json_key_uint(j, "inodes", sb->inode_count);
	sqk_json_key_uint(j, "fragments", sb->fragment_count);
	sqk_json_key_uint(j, "ids", sb->id_count);
	sqk_json_key_uint(j, "xattr_ids", f->xattr_ids);
	sqk_json_key(j, "root_inode");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "block", sb->root_block);
	sqk_json_key_uint(j, "offset", sb->root_offset);
	sqk_json_end_object(j);
	sqk_json_key_uint(j, "flags_value", sb->flags);
	sqk_json_key(j, "superblock");
	json_super(j, sb);
	sqk_json_key(j, "flags");
	sqk_json_begin_object(j, 0);
	sqk_json_key_bool(j, "xattrs", f->has_xattrs);
	for (i = 0; (set = sqk_superblock_flag(sb, i, &name)) >= 0; i++)
		sqk_json_key_bool(j, name, set);
	sqk_json_end_object(j);
	sqk_json_key(j, "compressor_options");
	json_options(j, in);
	sqk_json_key(j, "options_block");
	if (f->options_size)
		json_extent(j, f->options_start, f->options_size);
	else
		sqk_json_null(j);
	sqk_json_key(j, "tables");
	sqk_json_begin_object(j, 0);
	sqk_json_key(j, "data");
	json_extent(j, f->data_start, f->data_size);
	for (i = 0; i < NTABLES; i++) {
		sqk_json_key(j, tables[i].name);
		json_table(j, sqk_survey_table(in->survey, tables[i].kind));
	}
	sqk_json_end_object(j);
	sqk_json_key(j, "counts");
	json_counts(j, in);
	json_survey(j, in);
	sqk_json_key(j, "verity");
	if (in->has_verity) {
		sqk_json_begin_object(j, 0);
		cli_verity_json_members(j, &in->verity);
		sqk_json_end_object(j);
	} else {
		sqk_json_null(j);
	}
	sqk_json_end_object(j);
	sqk_json_finish(j);
}

/* " (12.34%)" when there is a whole to take a part of, and the end of the line. */
static void print_percent(double ratio, int has_whole)
{
	if (has_whole)
		printf(" (%.2f%%)", 100.0 * ratio);
	fputc('\n', stdout);
}

static void print_text(const struct inspect *in)
{
	const struct sqk_superblock *sb = &in->sb;
	const struct sqk_survey_figures *c = in->f;
	const char *name;
	char when[32];
	unsigned i;
	int set;

	cli_time_string(sb->mkfs_time, 1, when, sizeof(when));
	fputs("Image:              ", stdout);
	cli_print_escaped(stdout, in->image);
	printf("\nMagic:              0x%08x\n", sb->magic);
	printf("Version:            %u.%u\n", sb->version_major, sb->version_minor);
	printf("Compression:        %s (id %u)\n", in->compression, sb->compressor);
	for (i = 0; i < (unsigned)in->nopt; i++)
		printf("  %-18s%s\n", in->opt[i].key, in->opt[i].value);
	if (c->options_size)
		printf("Options block:      %llu bytes at %llu\n",
		       (unsigned long long)c->options_size, (unsigned long long)c->options_start);
	else
		printf("Options block:      none (the codec's defaults apply)\n");
	printf("Block size:         %u (log %u)\n", sb->block_size, sb->block_log);
	printf("Bytes used:         %llu\n", (unsigned long long)sb->bytes_used);
	printf("Image size:         %llu\n", (unsigned long long)c->file_size);
	printf("Created:            %s UTC (%u)\n", when, sb->mkfs_time);
	printf("Root inode:         block %llu offset %u\n", (unsigned long long)sb->root_block,
	       sb->root_offset);
	printf("Inodes:             %u\nFragments:          %u\nIds:                %u\n"
	       "Xattr ids:          %llu\n",
	       sb->inode_count, sb->fragment_count, sb->id_count, (unsigned long long)c->xattr_ids);
	printf("Flags:              0x%04x\n", sb->flags);
	printf("  %-24s%s\n", "xattrs", c->has_xattrs ? "yes" : "no");
	for (i = 0; (set = sqk_superblock_flag(sb, i, &name)) >= 0; i++)
		printf("  %-24s%s\n", name, set ? "yes" : "no");
	printf("Table pointers:    ");
	for (i = 0; i < sizeof(pointers) / sizeof(pointers[0]); i++) {
		uint64_t v = pointer(sb, (int)i);

		if (v == UINT64_MAX)
			printf(" %s=none", pointers[i].name);
		else
			printf(" %s=%llu", pointers[i].name, (unsigned long long)v);
	}
	fputc('\n', stdout);
	printf("Tables:             %12s %12s %8s %12s %12s\n", "start", "size", "blocks",
	       "uncompressed", "stored");
	printf("  %-18s%12llu %12llu\n", "data", (unsigned long long)c->data_start,
	       (unsigned long long)c->data_size);
	for (i = 0; i < NTABLES; i++) {
		const struct sqk_survey_table *t = sqk_survey_table(in->survey, tables[i].kind);

		if (!t) {
			printf("  %-18s%12s\n", tables[i].name, "absent");
			continue;
		}
		printf("  %-18s%12llu %12llu %8llu %12llu %12llu\n", tables[i].name,
		       (unsigned long long)t->start, (unsigned long long)t->size,
		       (unsigned long long)t->metadata_blocks, (unsigned long long)t->uncompressed,
		       (unsigned long long)t->stored);
	}
	printf("Counts:\n");
	for (i = 1; (name = sqk_survey_type_name(i)); i++)
		printf("  %-18s%llu\n", name, (unsigned long long)c->types[i]);
	printf("  %-18s%llu\n  %-18s%llu\n", "extended", (unsigned long long)c->extended,
	       "hard_links", (unsigned long long)c->hard_links);
	printf("Data:               %llu bytes in files, %llu stored",
	       (unsigned long long)c->file_bytes, (unsigned long long)c->stored);
	print_percent(c->data_ratio, c->file_bytes != 0);
	printf("Metadata:           %llu bytes in %llu blocks, %llu stored",
	       (unsigned long long)c->metadata_uncompressed, (unsigned long long)c->metadata_blocks,
	       (unsigned long long)c->metadata_stored);
	print_percent(c->metadata_ratio, c->metadata_uncompressed != 0);
	printf("Dedup savings:      %llu bytes (%llu blocks, %llu tails; %llu stored bytes)\n",
	       (unsigned long long)(c->dedup_bytes + c->dedup_tail_bytes),
	       (unsigned long long)c->dedup_blocks, (unsigned long long)c->dedup_tails,
	       (unsigned long long)c->dedup_stored);
	printf("Sparse savings:     %llu bytes (%llu blocks)\n",
	       (unsigned long long)c->sparse_bytes, (unsigned long long)c->sparse_blocks);
	printf("Fragment fill:      %llu tail bytes in %u fragments",
	       (unsigned long long)c->tail_bytes, sb->fragment_count);
	print_percent(c->fragment_fill, sb->fragment_count != 0);
	if (in->has_verity) {
		printf("Verity:\n");
		cli_verity_text(stdout, "  ", &in->verity);
	} else {
		printf("Verity:             none after the image\n");
	}
}

/* The survey failed: "IMAGE: /path: what" for a path in the tree, else "IMAGE: where: what". */
static void survey_error(const struct inspect *in, int err)
{
	const char *where = sqk_survey_failed_at(in->survey);

	if (*where == '/')
		cli_show_path_error(in->image, where, cli_api_why(err));
	else
		cli_error(in->image, "%s: %s", where, cli_api_why(err));
}

static int run(struct sqk_show *s)
{
	struct inspect in;
	struct sqk_image_info info;
	int err, ret = EXIT_FAIL;

	memset(&in, 0, sizeof(in));
	in.image = s->image;
	sqk_image_superblock(s->img, &in.sb);
	sqk_image_info(s->img, &info);
	in.compression = info.compressor;
	in.nopt = sqk_image_compressor_options(s->img, in.opt, MAX_OPTIONS);
	/* The hash area it is read through, or one found after it. */
	in.has_verity = sqk_image_verity(s->img, &in.verity) == 0;
	if (in.nopt > MAX_OPTIONS)
		in.nopt = MAX_OPTIONS;
	in.survey = sqk_survey_create();
	if (!in.survey) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	err = sqk_image_survey(s->img, in.survey);
	if (err) {
		survey_error(&in, err);
	} else {
		in.f = sqk_survey_figures(in.survey);
		if (s->json)
			print_json(&s->out, &in);
		else
			print_text(&in);
		ret = EXIT_OK;
	}
	sqk_survey_destroy(in.survey);
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
