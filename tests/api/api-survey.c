// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-survey IMAGE: the survey of IMAGE through the public API
 * (sqk_image_superblock, sqk_superblock_flag, sqk_image_survey and its
 * getters), printed for api-survey.t to compare with the tree the image was
 * built from. What the image alone can vouch for is checked here: the
 * tables lie where the superblock points, one after another from the end
 * of the data area, their metadata blocks add up to the totals, the inodes
 * counted are the superblock's. Exits 1 when a call fails or a check does
 * not hold.
 *
 * api-survey --fail IMAGE: the survey must fail; prints where and why.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

static int failed;

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "api-survey: %s\n", what);
		failed = 1;
	}
}

static void die(const char *what)
{
	fprintf(stderr, "api-survey: %s: %s\n", what, sqk_error_message());
	exit(1);
}

static const char *const table_names[] = {"inode",  "directory", "fragment",
					  "export", "id",	 "xattr"};

static void tables(const struct sqk_survey *s, const struct sqk_superblock *sb,
		   const struct sqk_survey_figures *f)
{
	const uint64_t pointer[] = {sb->inode_table,  sb->dir_table, sb->fragment_table,
				    sb->export_table, sb->id_table,  sb->xattr_table};
	uint64_t blocks = 0, unc = 0, st = 0, end = f->data_start + f->data_size;
	unsigned k;

	check(f->data_start == 96 + f->options_size, "the data area starts after the options");
	check(end == sb->inode_table, "the data area ends where the inode table starts");
	for (k = SQK_TABLE_INODE; k <= SQK_TABLE_XATTR; k++) {
		const struct sqk_survey_table *t = sqk_survey_table(s, (enum sqk_table_kind)k);

		if (!t) {
			printf("table %s absent\n", table_names[k]);
			continue;
		}
		printf("table %s blocks %llu\n", table_names[k],
		       (unsigned long long)t->metadata_blocks);
		check(t->start == end, "a table starts where the one before it ends");
		end = t->start + t->size;
		if (k <= SQK_TABLE_DIR)
			check(t->start == pointer[k] && !t->lookup, "inode or directory table");
		else
			check(t->lookup == pointer[k] && t->lookup_blocks >= 1 &&
				      t->lookup + 8 * t->lookup_blocks <= end,
			      "a lookup table's list is the superblock's pointer, inside it");
		check(t->metadata_blocks >= 1 && t->stored > 2 * t->metadata_blocks,
		      "a table's blocks have headers and bytes");
		blocks += t->metadata_blocks;
		unc += t->uncompressed;
		st += t->stored;
	}
	check(end == sb->bytes_used, "the last table ends at bytes_used");
	check(blocks == f->metadata_blocks && unc == f->metadata_uncompressed &&
		      st == f->metadata_stored,
	      "the metadata totals are the tables' sums");
	check(sqk_survey_table(s, (enum sqk_table_kind)6) == NULL, "no seventh table");
}

static void flags(const struct sqk_superblock *sb, struct sqk_image *img)
{
	struct sqk_image_info info;
	const char *name;
	unsigned i, nset = 0;
	int set;

	sqk_image_info(img, &info);
	printf("flags");
	for (i = 0; (set = sqk_superblock_flag(sb, i, &name)) >= 0; i++) {
		if (set)
			printf(" %s", name);
		nset += (unsigned)set;
		if (!strcmp(name, "exportable"))
			check(set == info.exportable, "exportable is the info's");
	}
	printf("\n");
	check(set == SQK_ERR_ARG && *sqk_error_message(), "past the last flag: SQK_ERR_ARG, said");
	check(i == 12 && nset == (unsigned)__builtin_popcount(sb->flags),
	      "twelve flags, those set the flag word's bits");
}

int main(int argc, char **argv)
{
	const struct sqk_survey_figures *f;
	struct sqk_superblock sb;
	struct sqk_survey *s;
	struct sqk_image *img;
	int fail = argc == 3 && !strcmp(argv[1], "--fail"), err;
	unsigned i;

	if (argc != 2 + fail) {
		fprintf(stderr, "usage: api-survey [--fail] IMAGE\n");
		return 2;
	}
	if (sqk_image_open_path(argv[1 + fail], NULL, &img))
		die(argv[1 + fail]);
	s = sqk_survey_create();
	if (!s)
		die("sqk_survey_create");
	check(*sqk_survey_failed_at(s) == '\0', "a new survey has not failed");
	err = sqk_image_survey(img, s);
	if (fail) {
		if (!err)
			die("the survey of a damaged image succeeded");
		printf("failed at %s: %s\n", sqk_survey_failed_at(s), sqk_error_message());
		sqk_survey_destroy(s);
		sqk_image_destroy(img);
		return 0;
	}
	if (err)
		die("sqk_image_survey");
	if (sqk_image_superblock(img, &sb))
		die("sqk_image_superblock");
	f = sqk_survey_figures(s);
	check(sb.magic == 0x73717368 && sb.version_major == 4 &&
		      sb.block_size == 1u << sb.block_log,
	      "magic, version, block size");
	check(sb.root_block == sb.root_inode >> 16 && sb.root_offset == (sb.root_inode & 0xffff),
	      "the root inode's block and offset");
	check(f->inodes == sb.inode_count, "the inodes counted are the superblock's");
	check(sqk_survey_type_name(0) == NULL && sqk_survey_type_name(8) == NULL,
	      "no type names outside 1..7");
	printf("types");
	for (i = 1; sqk_survey_type_name(i); i++)
		printf(" %s %llu", sqk_survey_type_name(i), (unsigned long long)f->types[i]);
	printf("\ninodes %llu hard_links %llu file_bytes %llu\n", (unsigned long long)f->inodes,
	       (unsigned long long)f->hard_links, (unsigned long long)f->file_bytes);
	printf("sparse %llu blocks %llu bytes\n", (unsigned long long)f->sparse_blocks,
	       (unsigned long long)f->sparse_bytes);
	printf("dedup %llu blocks %llu bytes %llu tails\n", (unsigned long long)f->dedup_blocks,
	       (unsigned long long)f->dedup_bytes, (unsigned long long)f->dedup_tails);
	printf("xattrs %d ids %llu\n", f->has_xattrs, (unsigned long long)f->xattr_ids);
	check(f->stored == f->data_stored + f->fragment_stored, "stored is data and fragments");
	check(f->file_bytes && f->data_ratio == (double)f->stored / (double)f->file_bytes,
	      "the data ratio");
	check(f->file_size >= sb.bytes_used, "the file holds the image");
	tables(s, &sb, f);
	flags(&sb, img);
	sqk_survey_destroy(s);
	sqk_survey_destroy(NULL);
	sqk_image_destroy(img);
	return failed;
}
