// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit mkimage: build an image from directories, archives or a
 * listing. The image is written to a temporary file beside IMAGE and
 * renamed into place only when complete; on any failure or signal the
 * temporary file is removed and an existing IMAGE is left untouched.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "attropt.h"
#include "cmd.h"
#include "compressor.h"
#include "error.h"
#include "file.h"
#include "format.h"
#include "mkfs.h"
#include "outfile.h"
#include "pool.h"
#include "progress.h"
#include "pseudo.h"

static const char usage_text[] =
	"Usage: squashkit mkimage [OPTIONS] SOURCE... IMAGE\n"
	"Build a SquashFS 4.0 image from directories (merged into one root), archives\n"
	"(--archive), a listing (--listing) or pseudo definitions (--pseudo).\n"
	"\n"
	"Compression:\n"
	"  -c, --compressor NAME    gzip, lzma, lzo, xz, lz4 or zstd (default zstd)\n"
	"  -L, --level N            compression level (gzip 9, xz 6, zstd 15, lz4 0, lzo 8)\n"
	"  -X, --comp-opt KEY=VAL   codec option, e.g. dict-size=1M, bcj=x86,arm, window=15\n"
	"  -b, --block-size SIZE    data block size, a power of two from 4K to 1M (128K)\n"
	"\n"
	"Layout:\n"
	"      --no-fragments       store small files and tails as short blocks\n"
	"      --tail-ends          pack the tail ends of large files into fragments too\n"
	"      --no-dedup           do not look for duplicate files and fragments\n"
	"      --no-sparse          store all-zero blocks as data, not as sparse blocks\n"
	"      --no-xattrs          leave extended attributes out\n"
	"      --no-hardlinks       give every hard link its own inode\n"
	"      --no-export          write no NFS export table\n"
	"      --sort FILE          place file data as mksquashfs's sort file FILE says\n"
	"                           (\"PATH PRIORITY\" a line, highest priority first)\n"
	"\n"
	"Extended attributes:\n"
	"      --xattrs-include REGEX\n"
	"                           keep only the attributes whose names match REGEX\n"
	"      --xattrs-exclude REGEX\n"
	"                           leave out the attributes whose names match REGEX\n"
	"      --xattrs-add NAME=VALUE\n"
	"                           give every inode this attribute (repeatable; VALUE\n"
	"                           may start with 0s for base64, 0x hex or 0t text)\n"
	"\n"
	"Owners, modes and times:\n"
	"      --all-root           make every file owned by root (uid and gid 0)\n"
	"      --uid N              make every file owned by uid N\n"
	"      --gid N              make every file owned by gid N\n"
	"      --file-mode MODE     set the mode of every file that is not a directory\n"
	"                           (octal, or symbolic as chmod takes it: u+rwX,go-w)\n"
	"      --dir-mode MODE      set the mode of every directory\n"
	"      --root-mode MODE     set the mode of the root directory\n"
	"      --root-uid N         make the root directory owned by uid N\n"
	"      --root-gid N         make the root directory owned by gid N\n"
	"                           (the --root-* options win for the root)\n"
	"      --mtime T            set every inode time to T (seconds since 1970)\n"
	"      --fstime T           set the superblock time to T\n"
	"                           (default: SOURCE_DATE_EPOCH, else the newest inode time;\n"
	"                           SOURCE_DATE_EPOCH also clamps newer inode times)\n"
	"\n"
	"Sources:\n"
	"  -e, --exclude GLOB       leave out paths matching GLOB (repeatable)\n"
	"      --exclude-from FILE  read GLOBs from FILE, one a line\n"
	"      --listing FILE       add the entries of a gen_init_cpio style listing\n"
	"      --archive[=FILE]     SOURCEs are archives (tar, pax, cpio, zip, compressed\n"
	"                           or not; - is stdin); with =FILE, add that archive\n"
	"      --pseudo DEF         add a pseudo definition in mksquashfs's syntax, e.g.\n"
	"                           'dev/console c 600 0 0 5 1' (repeatable)\n"
	"      --pseudo-file FILE   add the pseudo definitions of FILE (- is stdin)\n"
	"\n"
	"Running:\n"
	"  -j, --threads N          compression threads (default: online CPUs)\n"
	"  -f, --force              overwrite an existing IMAGE\n"
	"  -q, --quiet              no progress bar\n"
	"      --stats              print a summary of sizes, counts and savings\n"
	"      --json               print the summary as one JSON object on stdout\n"
	"  -h, --help               show this help\n";

enum {
	OPT_NO_FRAGMENTS = 256,
	OPT_TAIL_ENDS,
	OPT_NO_DEDUP,
	OPT_NO_SPARSE,
	OPT_NO_XATTRS,
	OPT_NO_HARDLINKS,
	OPT_NO_EXPORT,
	OPT_ALL_ROOT,
	OPT_UID,
	OPT_GID,
	OPT_MTIME,
	OPT_FSTIME,
	OPT_EXCLUDE_FROM,
	OPT_LISTING,
	OPT_ARCHIVE,
	OPT_PSEUDO,
	OPT_PSEUDO_FILE,
	OPT_STATS,
	OPT_JSON,
};

static const struct option long_opts[] = {
	{"compressor", required_argument, NULL, 'c'},
	{"level", required_argument, NULL, 'L'},
	{"comp-opt", required_argument, NULL, 'X'},
	{"block-size", required_argument, NULL, 'b'},
	{"no-fragments", no_argument, NULL, OPT_NO_FRAGMENTS},
	{"tail-ends", no_argument, NULL, OPT_TAIL_ENDS},
	{"no-dedup", no_argument, NULL, OPT_NO_DEDUP},
	{"no-sparse", no_argument, NULL, OPT_NO_SPARSE},
	{"no-xattrs", no_argument, NULL, OPT_NO_XATTRS},
	{"no-hardlinks", no_argument, NULL, OPT_NO_HARDLINKS},
	{"no-export", no_argument, NULL, OPT_NO_EXPORT},
	{"all-root", no_argument, NULL, OPT_ALL_ROOT},
	{"uid", required_argument, NULL, OPT_UID},
	{"gid", required_argument, NULL, OPT_GID},
	{"mtime", required_argument, NULL, OPT_MTIME},
	{"fstime", required_argument, NULL, OPT_FSTIME},
	{"file-mode", required_argument, NULL, OPT_FILE_MODE},
	{"dir-mode", required_argument, NULL, OPT_DIR_MODE},
	{"root-mode", required_argument, NULL, OPT_ROOT_MODE},
	{"root-uid", required_argument, NULL, OPT_ROOT_UID},
	{"root-gid", required_argument, NULL, OPT_ROOT_GID},
	{"xattrs-include", required_argument, NULL, OPT_XATTRS_INCLUDE},
	{"xattrs-exclude", required_argument, NULL, OPT_XATTRS_EXCLUDE},
	{"xattrs-add", required_argument, NULL, OPT_XATTRS_ADD},
	{"sort", required_argument, NULL, OPT_SORT},
	{"exclude", required_argument, NULL, 'e'},
	{"exclude-from", required_argument, NULL, OPT_EXCLUDE_FROM},
	{"listing", required_argument, NULL, OPT_LISTING},
	{"archive", optional_argument, NULL, OPT_ARCHIVE},
	{"pseudo", required_argument, NULL, OPT_PSEUDO},
	{"pseudo-file", required_argument, NULL, OPT_PSEUDO_FILE},
	{"threads", required_argument, NULL, 'j'},
	{"force", no_argument, NULL, 'f'},
	{"quiet", no_argument, NULL, 'q'},
	{"stats", no_argument, NULL, OPT_STATS},
	{"json", no_argument, NULL, OPT_JSON},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* A growing list of strings (patterns, listings, archives, comp options). */
struct strv {
	char **v;
	size_t n, cap;
};

static int strv_add(struct strv *s, const char *str)
{
	if (SQK_ARRAY_GROW(s->v, s->cap, s->n + 1))
		return -1;
	s->v[s->n] = strdup(str);
	return s->v[s->n] ? (int)s->n++ : -1;
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/*
 * The bar first shows the image bytes written (all there is to show while
 * sources are read, and for archives, whose data is stored as they are
 * read); once mkfs places the data of files it has scanned, it reports the
 * bytes placed after each file, and the bar shows them against the total.
 */
static int progress_polling;

static uint64_t image_bytes(void *arg)
{
	struct stat st;

	return fstat((int)(intptr_t)arg, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	if (progress_polling) {
		sqk_progress_poll(ctx, NULL, NULL);
		progress_polling = 0;
	}
	sqk_progress_set_total(ctx, total);
	sqk_progress_set(ctx, done);
}

static int parse_u32(const char *what, const char *s, uint32_t *out)
{
	uint64_t v;

	if (sqk_parse_uint(s, 0xffffffffu, &v))
		return sqk_usage_error("invalid %s '%s'", what, s);
	*out = (uint32_t)v;
	return 0;
}

static int read_patterns(const char *file, struct strv *out)
{
	FILE *fp = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!fp) {
		sqk_error(file, "%s", strerror(errno));
		return EXIT_FAIL;
	}
	while ((n = getline(&line, &cap, fp)) >= 0) {
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		if (strv_add(out, line) < 0) {
			sqk_error(NULL, "out of memory");
			break;
		}
	}
	free(line);
	fclose(fp);
	return 0;
}

static void print_stats(const struct sqk_mkfs_stats *st, const struct sqk_mkfs_opts *o,
			const char *image, int json)
{
	double ratio = st->uncompressed ? (double)st->bytes_used / (double)st->uncompressed : 0;

	if (json) {
		sqk_mkimage_stats_json(st, o, image, ratio);
		return;
	}
	printf("image            %s\n", image);
	printf("compression      %s, block size %u, %u threads\n", o->codec->name, o->block_size,
	       o->threads);
	printf("size             %" PRIu64 " bytes used, %" PRIu64 " on disk\n", st->bytes_used,
	       st->image_size);
	printf("uncompressed     %" PRIu64 " bytes of file data (ratio %.2f%%)\n", st->uncompressed,
	       ratio * 100);
	printf("tables           data %" PRIu64 ", inodes %" PRIu64 ", directories %" PRIu64
	       " bytes\n",
	       st->data_bytes, st->inode_table_bytes, st->dir_table_bytes);
	printf("inodes           %" PRIu64 ": %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64
	       " symlinks, %" PRIu64 " devices, %" PRIu64 " fifos, %" PRIu64 " sockets\n",
	       st->inodes, st->files, st->dirs, st->symlinks, st->blkdevs + st->chrdevs, st->fifos,
	       st->sockets);
	printf("hard links       %" PRIu64 "\n", st->hardlinks);
	printf("blocks           %" PRIu64 " (%" PRIu64 " stored raw), %" PRIu64 " fragments\n",
	       st->blocks, st->raw_blocks, st->fragments);
	printf("ids              %" PRIu64 " owner ids, %" PRIu64 " xattr sets\n", st->ids,
	       st->xattr_ids);
	printf("dedup            %" PRIu64 " files (%" PRIu64 " bytes), %" PRIu64 " tails (%" PRIu64
	       " bytes)\n",
	       st->dedup_files, st->dedup_bytes, st->dedup_tails, st->dedup_tail_bytes);
	printf("sparse           %" PRIu64 " blocks (%" PRIu64 " bytes)\n", st->sparse_blocks,
	       st->sparse_bytes);
	printf("lseeks           %" PRIu64 "\n", st->lseeks);
}

struct args {
	struct sqk_mkfs_opts o;
	const char *comp_name;
	int level;
	struct strv comp_opts, excludes, listings, archives;
	int archive_mode, force, quiet, stats, json;
	struct sqk_attropt attr;
	/* Read whole while the options are, before anything is written. */
	struct sqk_pseudo *pseudo;
};

/* Pseudo definitions are read where they stand among the options (L links to earlier ones). */
static int add_pseudo(struct args *a, int file, const char *arg)
{
	int err = a->pseudo ? 0 : sqk_pseudo_create(0, &a->pseudo);

	if (!err && file)
		err = sqk_pseudo_add_file(a->pseudo, arg);
	else if (!err)
		err = sqk_pseudo_add_def(a->pseudo, arg);
	if (err == SQK_ERR_ARG)
		return sqk_usage_error("%s: %s", sqk_pseudo_err_where(a->pseudo),
				       sqk_pseudo_err_msg(a->pseudo));
	if (err == SQK_ERR_IO) {
		sqk_error(sqk_pseudo_err_where(a->pseudo), "%s", sqk_pseudo_err_msg(a->pseudo));
		return EXIT_FAIL;
	}
	if (err) {
		sqk_error_code(arg, err);
		return EXIT_FAIL;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	uint64_t v;
	int c;

	a->comp_name = "zstd";
	a->level = -1;
	a->o.block_size = 128 * 1024;
	a->o.threads = sqk_online_cpus();
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:L:X:b:e:j:fqh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->comp_name = optarg;
			break;
		case 'L':
			if (sqk_parse_uint(optarg, 1000, &v))
				return sqk_usage_error("invalid level '%s'", optarg);
			a->level = (int)v;
			break;
		case 'X':
			if (!strchr(optarg, '='))
				return sqk_usage_error("invalid codec option '%s' (want KEY=VALUE)",
						       optarg);
			if (strv_add(&a->comp_opts, optarg) < 0)
				return EXIT_FAIL;
			break;
		case 'b':
			if (sqk_parse_size(optarg, &v) || v < SQFS_BLOCK_MIN ||
			    v > SQFS_BLOCK_MAX || (v & (v - 1)))
				return sqk_usage_error("invalid block size '%s' (a power of two "
						       "from 4K to 1M)",
						       optarg);
			a->o.block_size = (uint32_t)v;
			break;
		case OPT_NO_FRAGMENTS:
			a->o.no_fragments = 1;
			break;
		case OPT_TAIL_ENDS:
			a->o.tail_ends = 1;
			break;
		case OPT_NO_DEDUP:
			a->o.no_dedup = 1;
			break;
		case OPT_NO_SPARSE:
			a->o.no_sparse = 1;
			break;
		case OPT_NO_XATTRS:
			a->o.no_xattrs = 1;
			break;
		case OPT_NO_HARDLINKS:
			a->o.no_hardlinks = 1;
			break;
		case OPT_NO_EXPORT:
			a->o.no_export = 1;
			break;
		case OPT_ALL_ROOT:
			a->o.force_uid = a->o.force_gid = 1;
			a->o.uid = a->o.gid = 0;
			break;
		case OPT_UID:
			if (parse_u32("uid", optarg, &a->o.uid))
				return EXIT_USAGE;
			a->o.force_uid = 1;
			break;
		case OPT_GID:
			if (parse_u32("gid", optarg, &a->o.gid))
				return EXIT_USAGE;
			a->o.force_gid = 1;
			break;
		case OPT_MTIME:
			if (parse_u32("time", optarg, &a->o.mtime))
				return EXIT_USAGE;
			a->o.set_mtime = 1;
			break;
		case OPT_FSTIME:
			if (parse_u32("time", optarg, &a->o.fstime))
				return EXIT_USAGE;
			a->o.set_fstime = 1;
			break;
		case 'e':
			if (strv_add(&a->excludes, optarg) < 0)
				return EXIT_FAIL;
			break;
		case OPT_EXCLUDE_FROM:
			if (read_patterns(optarg, &a->excludes))
				return EXIT_FAIL;
			break;
		case OPT_LISTING:
			if (strv_add(&a->listings, optarg) < 0)
				return EXIT_FAIL;
			break;
		case OPT_ARCHIVE:
			if (optarg) {
				if (strv_add(&a->archives, optarg) < 0)
					return EXIT_FAIL;
			} else {
				a->archive_mode = 1;
			}
			break;
		case OPT_PSEUDO:
		case OPT_PSEUDO_FILE:
			c = add_pseudo(a, c == OPT_PSEUDO_FILE, optarg);
			if (c)
				return c;
			break;
		case 'j':
			if (sqk_parse_uint(optarg, 1024, &v) || v == 0)
				return sqk_usage_error("invalid thread count '%s'", optarg);
			a->o.threads = (unsigned)v;
			break;
		case OPT_XATTRS_INCLUDE:
		case OPT_XATTRS_EXCLUDE:
		case OPT_XATTRS_ADD:
		case OPT_ROOT_MODE:
		case OPT_ROOT_UID:
		case OPT_ROOT_GID:
		case OPT_FILE_MODE:
		case OPT_DIR_MODE:
		case OPT_SORT:
			if ((c = sqk_attropt_take(&a->attr, c, optarg)) != 0)
				return c;
			break;
		case 'f':
			a->force = 1;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case OPT_STATS:
			a->stats = 1;
			break;
		case OPT_JSON:
			a->json = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case ':':
			return sqk_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return sqk_usage_error("unknown option '-%c'", optopt);
			return sqk_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

/* Codec, level and -X options, once the block size is known. */
static int setup_codec(struct args *a)
{
	const struct sqk_codec *codec = sqk_codec_by_name(a->comp_name);

	if (!codec)
		return sqk_usage_error("unknown compressor '%s' (gzip, lzma, lzo, xz, lz4, zstd)",
				       a->comp_name);
	a->o.codec = codec;
	memset(&a->o.comp, 0, sizeof(a->o.comp));
	codec->defaults(&a->o.comp, a->o.block_size);
	if (a->level >= 0) {
		if (a->level < codec->level_min || a->level > codec->level_max)
			return sqk_usage_error("level %d is out of range for %s (%d..%d)", a->level,
					       codec->name, codec->level_min, codec->level_max);
		a->o.comp.level = a->level;
	}
	for (size_t i = 0; i < a->comp_opts.n; i++) {
		char *kv = a->comp_opts.v[i], *eq = strchr(kv, '=');

		*eq = '\0';
		if (codec->set_option(&a->o.comp, kv, eq + 1)) {
			*eq = '=';
			return sqk_usage_error("invalid option '%s' for %s", kv, codec->name);
		}
		*eq = '=';
	}
	return 0;
}

static void report(struct sqk_mkfs *m, const char *image, int err)
{
	const char *path = m ? sqk_mkfs_err_path(m) : "";
	const char *msg = m ? sqk_mkfs_err_msg(m) : "";

	if (err == SQK_ERR_NOSPACE) {
		sqk_error(image, "%s", sqk_strerror(err));
		return;
	}
	if (!*path)
		path = image;
	if (*msg)
		sqk_error(path, "%s", msg);
	else
		sqk_error_code(path, err);
}

/* The output file; the logic is core/util/outfile's, the messages are these. */
static int open_output(const char *image, int force, struct sqk_mkfs_opts *o,
		       struct sqk_outfile **of)
{
	uint64_t dev[2], ino[2];
	unsigned n, i;
	int err = sqk_outfile_create(image, force, of);

	switch (err) {
	case 0:
		break;
	case SQK_ERR_EXIST:
		sqk_error(image, "file exists (use --force to overwrite it)");
		return EXIT_FAIL;
	case SQK_ERR_ARG:
		sqk_error(image, "is a directory");
		return EXIT_FAIL;
	case SQK_ERR_OVERFLOW:
		sqk_error(image, "path too long");
		return EXIT_FAIL;
	case SQK_ERR_IO:
		sqk_error(image, "cannot create a temporary file beside it: %s", strerror(errno));
		return EXIT_FAIL;
	default:
		report(NULL, image, err);
		return EXIT_FAIL;
	}
	/* Never read the image being written, nor the one it replaces. */
	n = sqk_outfile_ids(*of, dev, ino);
	for (i = 0; i < n; i++) {
		o->skip_dev[o->nskip] = dev[i];
		o->skip_ino[o->nskip++] = ino[i];
	}
	return 0;
}

int cmd_mkimage(int argc, char **argv)
{
	struct args a;
	struct sqk_mkfs *m = NULL;
	struct sqk_mkfs_stats st;
	struct sqk_outfile *of = NULL;
	struct sqk_file *out;
	struct sqk_progress *bar = NULL;
	const char *image, *epoch;
	int rc, err = 0, nsrc, e, usage = 0;

	memset(&a, 0, sizeof(a));
	rc = parse_args(argc, argv, &a);
	if (rc) {
		rc = rc < 0 ? EXIT_OK : rc;
		goto done;
	}
	nsrc = argc - optind - 1;
	if (argc - optind < 1) {
		rc = sqk_usage_error("missing IMAGE");
		goto done;
	}
	if (nsrc < 1 && !a.listings.n && !a.archives.n && !a.pseudo) {
		rc = sqk_usage_error("missing SOURCE");
		goto done;
	}
	image = argv[argc - 1];
	rc = setup_codec(&a);
	if (rc)
		goto done;
	if (a.o.tail_ends && a.o.no_fragments) {
		rc = sqk_usage_error("--tail-ends and --no-fragments exclude each other");
		goto done;
	}
	if (a.attr.nadds && a.o.no_xattrs) {
		rc = sqk_usage_error("--xattrs-add and --no-xattrs exclude each other");
		goto done;
	}
	sqk_attropt_apply(&a.attr, &a.o);
	epoch = getenv("SOURCE_DATE_EPOCH");
	if (epoch && *epoch) {
		if (parse_u32("SOURCE_DATE_EPOCH", epoch, &a.o.epoch)) {
			rc = EXIT_USAGE;
			goto done;
		}
		a.o.have_epoch = 1;
	}
	a.o.excludes = (const char *const *)a.excludes.v;
	a.o.nexcludes = a.excludes.n;

	rc = open_output(image, a.force, &a.o, &of);
	if (rc)
		goto done;
	out = sqk_outfile_file(of);
	bar = sqk_progress_start(0, NULL, a.quiet);
	if (bar) {
		progress_polling = 1;
		sqk_progress_poll(bar, image_bytes, (void *)(intptr_t)sqk_file_fd(out));
		a.o.progress = progress_cb;
		a.o.progress_ctx = bar;
		a.o.warn_ctx = bar;
	}
	err = sqk_mkfs_create(&a.o, out, &m);
	if (err)
		goto fail;
	for (int i = optind; i < argc - 1 && !err; i++)
		err = a.archive_mode ? sqk_mkfs_add_archive(m, argv[i])
				     : sqk_mkfs_add_dir(m, argv[i]);
	for (size_t i = 0; i < a.archives.n && !err; i++)
		err = sqk_mkfs_add_archive(m, a.archives.v[i]);
	for (size_t i = 0; i < a.listings.n && !err; i++)
		err = sqk_mkfs_add_listing(m, a.listings.v[i]);
	if (!err && a.pseudo) {
		err = sqk_mkfs_add_pseudo(m, a.pseudo);
		usage = err == SQK_ERR_ARG; /* a definition that clashes with the sources */
	}
	if (!err)
		err = sqk_mkfs_finish(m, &st);
	if (err)
		goto fail;
	/* The bar completes once the image is in place; the commit's errno outlives it. */
	err = sqk_outfile_commit(of);
	of = NULL;
	e = errno;
	sqk_progress_finish(bar, !err);
	bar = NULL;
	errno = e;
	if (err) {
		sqk_error_code(image, err);
		rc = EXIT_FAIL;
		goto done;
	}
	if (a.stats || a.json)
		print_stats(&st, &a.o, image, a.json);
	rc = EXIT_OK;
	goto done;
fail:
	sqk_progress_finish(bar, 0);
	bar = NULL;
	if (err == SQK_ERR_EXIST || usage) {
		rc = sqk_usage_error("%s: %s", sqk_mkfs_err_path(m), sqk_mkfs_err_msg(m));
	} else {
		report(m, image, err);
		rc = EXIT_FAIL;
	}
done:
	sqk_outfile_abort(of);
	sqk_mkfs_destroy(m);
	strv_free(&a.comp_opts);
	strv_free(&a.excludes);
	strv_free(&a.listings);
	strv_free(&a.archives);
	sqk_attropt_release(&a.attr);
	sqk_pseudo_destroy(a.pseudo);
	return rc;
}
