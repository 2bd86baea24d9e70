// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit unsquashfs: the text unsquashfs prints (listings and -s), which
 * scripts parse, and its extract/exclude name matching. The entries and the
 * superblock come from the native reader, the matching from util/pattern.c;
 * only the formatting is here.
 */
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "compat_unsq.h"
#include "compressors/compressor.h"
#include "format/format.h"
#include "read/image.h"
#include "read/inode.h"
#include "show.h"
#include "util/error.h"

static enum sqk_pattern_style style(const struct usq_filter *f)
{
	if (f->regex)
		return SQK_PATTERN_REGEX;
	return f->no_wildcards ? SQK_PATTERN_LITERAL : SQK_PATTERN_WILDCARDS;
}

int cli_usq_filter_add(struct usq_filter *f, int exclude, const char *name)
{
	struct usq_pattern *list = exclude ? f->exclude : f->extract;
	unsigned n = exclude ? f->nexclude : f->nextract;
	struct usq_pattern *p;
	char msg[200];

	list = realloc(list, (n + 1) * sizeof(*list));
	if (!list)
		return -1;
	if (exclude)
		f->exclude = list;
	else
		f->extract = list;
	p = &list[n];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	if (!p->name)
		return -1;
	if (sqk_pattern_compile(&p->p, name, style(f), msg, sizeof(msg)) != 0) {
		free(p->name);
		return -1;
	}
	if (exclude)
		f->nexclude++;
	else
		f->nextract++;
	return 0;
}

static int restyle_list(struct usq_pattern *list, unsigned n, enum sqk_pattern_style st,
			const char **bad)
{
	char msg[200];
	unsigned i;

	for (i = 0; i < n; i++) {
		if (list[i].p.style == st)
			continue;
		sqk_pattern_free(&list[i].p);
		if (sqk_pattern_compile(&list[i].p, list[i].name, st, msg, sizeof(msg)) != 0) {
			*bad = list[i].name;
			return -1;
		}
	}
	return 0;
}

int cli_usq_filter_restyle(struct usq_filter *f, const char **bad)
{
	if (restyle_list(f->extract, f->nextract, style(f), bad) != 0)
		return -1;
	return restyle_list(f->exclude, f->nexclude, style(f), bad);
}

/* How far path's components match p: -1 no, 0 partly (path is shorter), 1 whole. */
static int pattern_match(const struct usq_pattern *p, const char *path)
{
	switch (sqk_pattern_match(&p->p, path)) {
	case SQK_PATTERN_WHOLE:
		return 1;
	case SQK_PATTERN_BELOW:
		return p->dir_only ? -1 : 1;
	case SQK_PATTERN_LEADS:
		return 0;
	default:
		return -1;
	}
}

int cli_usq_filter_match(const struct usq_filter *f, const char *path)
{
	const char *s;
	unsigned i, depth = 0;
	int r = USQ_IN;

	if (*path) {
		depth = 1;
		for (s = path; *s; s++)
			depth += *s == '/';
	}
	if (f->max_depth >= 0 && depth > (unsigned)f->max_depth)
		return USQ_OUT;
	for (i = 0; i < f->nexclude; i++)
		if (f->exclude[i].p.n && pattern_match(&f->exclude[i], path) == 1)
			return USQ_OUT;
	if (f->nextract) {
		r = USQ_OUT;
		for (i = 0; i < f->nextract && r != USQ_IN; i++) {
			int m = f->extract[i].p.n || f->extract[i].dir_only
					? pattern_match(&f->extract[i], path)
					: 1;

			if (m == 1)
				r = USQ_IN;
			else if (m == 0)
				r = USQ_ON_THE_WAY;
		}
	}
	return r;
}

int cli_usq_filter_add_dir(struct usq_filter *f, const char *name)
{
	if (cli_usq_filter_add(f, 0, name) != 0)
		return -1;
	f->extract[f->nextract - 1].dir_only = 1;
	return 0;
}

static void release_list(struct usq_pattern *list, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		sqk_pattern_free(&list[i].p);
		free(list[i].name);
	}
	free(list);
}

void cli_usq_filter_release(struct usq_filter *f)
{
	release_list(f->extract, f->nextract);
	release_list(f->exclude, f->nexclude);
	f->extract = f->exclude = NULL;
	f->nextract = f->nexclude = 0;
}

const char *cli_usq_links_substitute(struct usq_links *u, const char *link_to, const char *path,
				     int *err)
{
	char **g, **f;
	size_t i;

	for (i = 0; i < u->nsubst; i++)
		if (strcmp(u->gone[i], link_to) == 0)
			return u->first[i];
	g = realloc(u->gone, (u->nsubst + 1) * sizeof(*g));
	if (g)
		u->gone = g;
	f = realloc(u->first, (u->nsubst + 1) * sizeof(*f));
	if (f)
		u->first = f;
	if (!g || !f || !(u->gone[u->nsubst] = strdup(link_to))) {
		*err = SQK_ERR_NOMEM;
		return NULL;
	}
	if (!(u->first[u->nsubst] = strdup(path))) {
		free(u->gone[u->nsubst]);
		*err = SQK_ERR_NOMEM;
		return NULL;
	}
	u->nsubst++;
	return NULL;
}

void cli_usq_links_release(struct usq_links *u)
{
	size_t i;

	for (i = 0; i < u->nsubst; i++) {
		free(u->gone[i]);
		free(u->first[i]);
	}
	free(u->gone);
	free(u->first);
	u->gone = u->first = NULL;
	u->nsubst = 0;
}

/* The width unsquashfs gives owner and size together. */
#define OWNER_SIZE_WIDTH 25

void cli_usq_print_entry(FILE *out, const struct usq_format *fmt, const char *path,
			 const struct sqk_inode *ino)
{
	char mode[11], ubuf[12], gbuf[12], when[40];
	const char *user = NULL, *group = NULL;
	time_t t = ino->mtime;
	struct tm tm;
	int pad;

	if (fmt->lng) {
		if (!fmt->numeric) {
			struct passwd *pw = getpwuid(ino->uid);
			struct group *gr = getgrgid(ino->gid);

			user = pw ? pw->pw_name : NULL;
			group = gr ? gr->gr_name : NULL;
		}
		if (!user) {
			snprintf(ubuf, sizeof(ubuf), "%u", ino->uid);
			user = ubuf;
		}
		if (!group) {
			snprintf(gbuf, sizeof(gbuf), "%u", ino->gid);
			group = gbuf;
		}
		cli_mode_string(ino->mode, mode);
		fprintf(out, "%s %s/%s ", mode, user, group);
		pad = OWNER_SIZE_WIDTH - (int)strlen(user) - (int)strlen(group);
		if (S_ISBLK(ino->mode) || S_ISCHR(ino->mode)) {
			/* The old 8-bit-minor split of the stored number, as the peer shows it. */
			pad -= 7;
			fprintf(out, "%*s%3d,%3d ", pad > 0 ? pad : 0, " ", (int)ino->rdev >> 8,
				(int)ino->rdev & 0xff);
		} else {
			uint64_t size =
				S_ISREG(ino->mode) || S_ISDIR(ino->mode) || S_ISLNK(ino->mode)
					? cli_show_size(ino)
					: 0;

			fprintf(out, "%*llu ", pad > 0 ? pad : 0, (unsigned long long)size);
		}
		if (fmt->utc)
			gmtime_r(&t, &tm);
		else
			localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
		fprintf(out, "%s ", when);
	}
	fputs(fmt->dest, out);
	if (*path) {
		fputc('/', out);
		fputs(path, out);
	}
	if (fmt->lng && S_ISLNK(ino->mode) && ino->target)
		fprintf(out, " -> %s", ino->target);
	fputc('\n', out);
}

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
