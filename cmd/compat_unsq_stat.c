// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit unsquashfs -s: the superblock as unsquashfs describes it, which
 * scripts parse. It reads the native reader's superblock and codec
 * settings: the public sqk_image_info() lacks the version, the xattr id
 * count and the compressor's settings as the peer's codecs print them.
 */
#include <stdio.h>
#include <time.h>

#include "compat_unsq.h"
#include "compressors/compressor.h"
#include "format/format.h"
#include "read/image.h"

static const char *const gzip_strategies[] = {"default", "filtered", "huffman_only",
					      "run_length_encoded", "fixed"};
static const char *const xz_filters[] = {"x86", "powerpc", "ia64", "arm", "armthumb", "sparc"};
static const char *const lzo_algorithms[] = {"lzo1x_1", "lzo1x_1_11", "lzo1x_1_12", "lzo1x_1_15",
					     "lzo1x_999"};

/* "a, b, c" of the names whose bits are set. */
static void print_names(FILE *out, unsigned bits, const char *const *names, unsigned n)
{
	const char *sep = "";
	unsigned i;

	for (i = 0; i < n; i++)
		if (bits & (1u << i)) {
			fprintf(out, "%s%s", sep, names[i]);
			sep = ", ";
		}
}

/* The options block, when the image has one, as the peer's codecs print it. */
static void print_comp_options(FILE *out, const struct sqk_comp_config *c)
{
	switch (c->id) {
	case SQK_COMP_GZIP:
		fprintf(out, "\tcompression-level %d\n\twindow-size %d\n\tStrategies selected: ",
			c->level, c->window);
		if (c->strategies & ~SQK_GZIP_DEFAULT)
			print_names(out, c->strategies & ~SQK_GZIP_DEFAULT, gzip_strategies, 5);
		else
			fputs("default", out);
		fputc('\n', out);
		break;
	case SQK_COMP_XZ:
		fprintf(out, "\tDictionary size %u\n", c->dict_size);
		if (c->filters) {
			fputs("\tFilters selected: ", out);
			print_names(out, c->filters, xz_filters, 6);
			fputc('\n', out);
		} else {
			fputs("\tNo filters specified\n", out);
		}
		break;
	case SQK_COMP_LZ4:
		if (c->level > 0)
			fputs("\tHigh Compression option specified (-Xhc)\n", out);
		break;
	case SQK_COMP_LZO:
		if (c->algorithm >= 0 && c->algorithm <= SQK_LZO1X_999)
			fprintf(out, "\talgorithm %s\n", lzo_algorithms[c->algorithm]);
		if (c->algorithm == SQK_LZO1X_999)
			fprintf(out, "\tcompression level %d\n", c->level);
		break;
	case SQK_COMP_ZSTD:
		fprintf(out, "\tcompression-level %d\n", c->level);
		break;
	}
}

/* The xattr id count (the image's layout read it from the table's header); -1 without one. */
static long long xattr_ids(struct sqk_image *img)
{
	if (sqk_image_super(img)->xattr_table == SQK_INVALID_TABLE)
		return -1;
	return (long long)sqk_image_table(img, SQK_TABLE_XATTR)->entries;
}

int cli_usq_print_stat(FILE *out, struct sqk_image *img, const char *image, int utc)
{
	const struct sqk_super *sb = sqk_image_super(img);
	const struct sqk_codec *codec = sqk_codec_by_id(sb->compressor);
	unsigned flags = sb->flags;
	time_t t = sb->mkfs_time;
	char when[64];
	struct tm tm;
	long long nx;

	if (utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
	fprintf(out, "Found a valid SQUASHFS %u:%u superblock on %s.\n", sb->version_major,
		sb->version_minor, image);
	fprintf(out, "Creation or last append time %s\n", when);
	fprintf(out, "Filesystem size %llu bytes (%.2f Kbytes / %.2f Mbytes)\n",
		(unsigned long long)sb->bytes_used, sb->bytes_used / 1024.0,
		sb->bytes_used / (1024.0 * 1024.0));
	fprintf(out, "Compression %s\n", codec ? codec->name : "unknown");
	if (flags & SQK_FLAG_COMPRESSOR_OPTIONS)
		print_comp_options(out, sqk_image_comp(img));
	fprintf(out, "Block size %u\n", sb->block_size);
	fprintf(out, "Filesystem is %sexportable via NFS\n",
		flags & SQK_FLAG_EXPORTABLE ? "" : "not ");
	fprintf(out, "Inodes are %scompressed\n", flags & SQK_FLAG_UNCOMPRESSED_INODES ? "un" : "");
	fprintf(out, "Data is %scompressed\n", flags & SQK_FLAG_UNCOMPRESSED_DATA ? "un" : "");
	/* The peer reads the id table's compression from the inode flag. */
	fprintf(out, "Uids/Gids (Id table) are %scompressed\n",
		flags & SQK_FLAG_UNCOMPRESSED_INODES ? "un" : "");
	if (flags & SQK_FLAG_NO_FRAGMENTS) {
		fputs("Fragments are not stored\n", out);
	} else {
		fprintf(out, "Fragments are %scompressed\n",
			flags & SQK_FLAG_UNCOMPRESSED_FRAGMENTS ? "un" : "");
		fprintf(out, "Always-use-fragments option is %sspecified\n",
			flags & SQK_FLAG_ALWAYS_FRAGMENTS ? "" : "not ");
	}
	nx = xattr_ids(img);
	if (flags & SQK_FLAG_NO_XATTRS)
		fputs("Xattrs are not stored\n", out);
	else
		fprintf(out, "Xattrs are %scompressed\n",
			flags & SQK_FLAG_UNCOMPRESSED_XATTRS ? "un" : "");
	fprintf(out, "Duplicates are %sremoved\n", flags & SQK_FLAG_DUPLICATES ? "" : "not ");
	fprintf(out, "Number of fragments %u\n", sb->fragment_count);
	fprintf(out, "Number of inodes %u\n", sb->inode_count);
	fprintf(out, "Number of ids %u\n", sb->id_count);
	if (!(flags & SQK_FLAG_NO_XATTRS))
		fprintf(out, "Number of xattr ids %lld\n", nx > 0 ? nx : 0);
	return 0;
}
