// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit unsquashfs -s: the superblock as unsquashfs describes it, which
 * scripts parse. Everything comes from the public API: the superblock as
 * stored and its flags by name, the xattr id table's count, and the
 * compressor's settings as the library names them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat_unsq.h"

/* Is the superblock flag of that name set? */
static int flag(const struct sqk_superblock *sb, const char *name)
{
	const char *n;
	unsigned i;
	int set;

	for (i = 0; (set = sqk_superblock_flag(sb, i, &n)) >= 0; i++)
		if (!strcmp(n, name))
			return set;
	return 0;
}

/* The setting of that name of the compressor, as text; "" when it has none. */
static const char *setting(const struct sqk_comp_option *o, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(o[i].key, key))
			return o[i].value;
	return "";
}

/* "a, b, c" of a list of names "a,b,c", leaving out skip; how many were printed. */
static unsigned print_names(FILE *out, const char *list, const char *skip)
{
	char copy[64], *tok, *save = NULL;
	unsigned n = 0;

	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "none") || (skip && !strcmp(tok, skip)))
			continue;
		fprintf(out, "%s%s", n++ ? ", " : "", tok);
	}
	return n;
}

/* The options block, when the image has one, as the peer's codecs print it. */
static void print_comp_options(FILE *out, struct sqk_image *img, const char *codec)
{
	struct sqk_comp_option o[16];
	int n = sqk_image_compressor_options(img, o, 16);
	const char *v;

	if (n > 16)
		n = 16;
	if (!strcmp(codec, "gzip")) {
		fprintf(out, "\tcompression-level %s\n\twindow-size %s\n\tStrategies selected: ",
			setting(o, n, "compression_level"), setting(o, n, "window_size"));
		if (!print_names(out, setting(o, n, "strategies"), "default"))
			fputs("default", out);
		fputc('\n', out);
	} else if (!strcmp(codec, "xz")) {
		fprintf(out, "\tDictionary size %s\n", setting(o, n, "dict_size"));
		v = setting(o, n, "filters");
		if (*v && strcmp(v, "none")) {
			fputs("\tFilters selected: ", out);
			print_names(out, v, NULL);
			fputc('\n', out);
		} else {
			fputs("\tNo filters specified\n", out);
		}
	} else if (!strcmp(codec, "lz4")) {
		v = setting(o, n, "hc");
		if (*v && strcmp(v, "0"))
			fputs("\tHigh Compression option specified (-Xhc)\n", out);
	} else if (!strcmp(codec, "lzo")) {
		v = setting(o, n, "algorithm");
		if (*v && strcmp(v, "unknown"))
			fprintf(out, "\talgorithm %s\n", v);
		if (!strcmp(v, "lzo1x_999"))
			fprintf(out, "\tcompression level %s\n",
				setting(o, n, "compression_level"));
	} else if (!strcmp(codec, "zstd")) {
		fprintf(out, "\tcompression-level %s\n", setting(o, n, "compression_level"));
	}
}

int cli_usq_print_stat(FILE *out, struct sqk_image *img, const char *image, int utc)
{
	struct sqk_superblock sb;
	struct sqk_image_info info;
	uint64_t nx = 0;
	time_t t;
	char when[64];
	struct tm tm;

	if (sqk_image_superblock(img, &sb) || sqk_image_info(img, &info))
		return -1;
	t = sb.mkfs_time;
	if (utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
	fprintf(out, "Found a valid SQUASHFS %u:%u superblock on %s.\n", sb.version_major,
		sb.version_minor, image);
	fprintf(out, "Creation or last append time %s\n", when);
	fprintf(out, "Filesystem size %llu bytes (%.2f Kbytes / %.2f Mbytes)\n",
		(unsigned long long)sb.bytes_used, sb.bytes_used / 1024.0,
		sb.bytes_used / (1024.0 * 1024.0));
	fprintf(out, "Compression %s\n", info.compressor);
	if (flag(&sb, "compressor_options"))
		print_comp_options(out, img, info.compressor);
	fprintf(out, "Block size %u\n", sb.block_size);
	fprintf(out, "Filesystem is %sexportable via NFS\n", flag(&sb, "exportable") ? "" : "not ");
	fprintf(out, "Inodes are %scompressed\n", flag(&sb, "uncompressed_inodes") ? "un" : "");
	fprintf(out, "Data is %scompressed\n", flag(&sb, "uncompressed_data") ? "un" : "");
	/* The peer reads the id table's compression from the inode flag. */
	fprintf(out, "Uids/Gids (Id table) are %scompressed\n",
		flag(&sb, "uncompressed_inodes") ? "un" : "");
	if (flag(&sb, "no_fragments")) {
		fputs("Fragments are not stored\n", out);
	} else {
		fprintf(out, "Fragments are %scompressed\n",
			flag(&sb, "uncompressed_fragments") ? "un" : "");
		fprintf(out, "Always-use-fragments option is %sspecified\n",
			flag(&sb, "always_fragments") ? "" : "not ");
	}
	if (flag(&sb, "no_xattrs"))
		fputs("Xattrs are not stored\n", out);
	else
		fprintf(out, "Xattrs are %scompressed\n",
			flag(&sb, "uncompressed_xattrs") ? "un" : "");
	fprintf(out, "Duplicates are %sremoved\n", flag(&sb, "duplicates") ? "" : "not ");
	fprintf(out, "Number of fragments %u\n", sb.fragment_count);
	fprintf(out, "Number of inodes %u\n", sb.inode_count);
	fprintf(out, "Number of ids %u\n", sb.id_count);
	/* Without an xattr table the count is 0. */
	if (!flag(&sb, "no_xattrs"))
		fprintf(out, "Number of xattr ids %llu\n",
			sqk_image_table_entries(img, SQK_TABLE_XATTR, &nx)
				? 0ull
				: (unsigned long long)nx);
	return 0;
}
