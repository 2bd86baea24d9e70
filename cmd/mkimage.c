// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit mkimage: build an image from directories, archives or a
 * listing. The image is written to a temporary file beside IMAGE and
 * renamed into place only when complete; on any failure or signal the
 * temporary file is removed and an existing IMAGE is left untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "compressor.h"
#include "error.h"
#include "file.h"
#include "format.h"
#include "mkfs.h"
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
	"\n"
	"Owners and times:\n"
	"      --all-root           make every file owned by root (uid and gid 0)\n"
	"      --uid N              make every file owned by uid N\n"
	"      --gid N              make every file owned by gid N\n"
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
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = strdup(str);
	return s->v[s->n] ? (int)s->n++ : -1;
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* The temporary image, for the signal handler: a fixed buffer, no allocation. */
static char tmp_path[PATH_MAX + 64];
static volatile sig_atomic_t tmp_live;

static void on_signal(int sig)
{
	if (tmp_live)
		unlink(tmp_path);
	tmp_live = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	struct sigaction sa;
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
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
		printf("{\"image\":\"");
		for (const char *p = image; *p; p++) {
			if (*p == '"' || *p == '\\')
				printf("\\%c", *p);
			else if ((unsigned char)*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
		printf("\",\"compression\":\"%s\",\"block_size\":%u,\"threads\":%u,"
		       "\"bytes_used\":%" PRIu64 ",\"image_size\":%" PRIu64
		       ",\"uncompressed\":%" PRIu64 ",\"data_bytes\":%" PRIu64
		       ",\"inode_table_bytes\":%" PRIu64 ",\"directory_table_bytes\":%" PRIu64
		       ",\"ratio\":%.4f,\"mkfs_time\":%u,"
		       "\"counts\":{\"inodes\":%" PRIu64 ",\"files\":%" PRIu64
		       ",\"directories\":%" PRIu64 ",\"symlinks\":%" PRIu64
		       ",\"block_devices\":%" PRIu64 ",\"char_devices\":%" PRIu64
		       ",\"fifos\":%" PRIu64 ",\"sockets\":%" PRIu64 ",\"hardlinks\":%" PRIu64
		       ",\"blocks\":%" PRIu64 ",\"raw_blocks\":%" PRIu64 ",\"fragments\":%" PRIu64
		       ",\"ids\":%" PRIu64 ",\"xattr_ids\":%" PRIu64 "},"
		       "\"dedup\":{\"files\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"tails\":%" PRIu64
		       ",\"tail_bytes\":%" PRIu64 "},"
		       "\"sparse\":{\"blocks\":%" PRIu64 ",\"bytes\":%" PRIu64 "},"
		       "\"lseeks\":%" PRIu64 ",\"xattrs_skipped\":%" PRIu64 "}\n",
		       o->codec->name, o->block_size, o->threads, st->bytes_used, st->image_size,
		       st->uncompressed, st->data_bytes, st->inode_table_bytes, st->dir_table_bytes,
		       ratio, st->mkfs_time, st->inodes, st->files, st->dirs, st->symlinks,
		       st->blkdevs, st->chrdevs, st->fifos, st->sockets, st->hardlinks, st->blocks,
		       st->raw_blocks, st->fragments, st->ids, st->xattr_ids, st->dedup_files,
		       st->dedup_bytes, st->dedup_tails, st->dedup_tail_bytes, st->sparse_blocks,
		       st->sparse_bytes, st->lseeks, st->xattrs_skipped);
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
			if (sqk_parse_size(optarg, &v) || v < SQFS_BLOCK_MIN || v > SQFS_BLOCK_MAX ||
			    (v & (v - 1)))
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

int cmd_mkimage(int argc, char **argv)
{
	struct args a;
	struct sqk_mkfs *m = NULL;
	struct sqk_mkfs_stats st;
	struct sqk_file *out = NULL;
	struct sqk_progress *bar = NULL;
	const char *image, *epoch;
	struct stat ist;
	int rc, err = 0, fd = -1, nsrc, image_exists, usage = 0;
	mode_t mask;
	char *slash;

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

	image_exists = stat(image, &ist) == 0;
	if (image_exists && !a.force) {
		sqk_error(image, "file exists (use --force to overwrite it)");
		rc = EXIT_FAIL;
		goto done;
	}
	if (image_exists && S_ISDIR(ist.st_mode)) {
		sqk_error(image, "is a directory");
		rc = EXIT_FAIL;
		goto done;
	}
	if (image_exists) {
		a.o.skip_dev[a.o.nskip] = ist.st_dev;
		a.o.skip_ino[a.o.nskip++] = ist.st_ino;
	}

	/* The temporary file sits beside IMAGE so the final rename stays in one filesystem. */
	slash = strrchr(image, '/');
	if (strlen(image) > PATH_MAX) {
		sqk_error(image, "path too long");
		rc = EXIT_FAIL;
		goto done;
	}
	if (slash)
		snprintf(tmp_path, sizeof(tmp_path), "%.*s/.%s.XXXXXX", (int)(slash - image), image,
			 slash + 1);
	else
		snprintf(tmp_path, sizeof(tmp_path), ".%s.XXXXXX", image);
	install_handlers();
	{
		sigset_t block, old;

		/* A signal between creating the file and noting it would leave it behind. */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigaddset(&block, SIGQUIT);
		sigprocmask(SIG_BLOCK, &block, &old);
		fd = mkostemp(tmp_path, O_CLOEXEC);
		if (fd >= 0)
			tmp_live = 1;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (fd < 0) {
		sqk_error(image, "cannot create a temporary file beside it: %s", strerror(errno));
		rc = EXIT_FAIL;
		goto done;
	}
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	{
		struct stat tst;

		if (fstat(fd, &tst) == 0) {
			a.o.skip_dev[a.o.nskip] = tst.st_dev;
			a.o.skip_ino[a.o.nskip++] = tst.st_ino;
		}
	}
	out = sqk_file_fdopen(fd, 1);
	if (!out) {
		close(fd);
		err = SQK_ERR_NOMEM;
		goto fail;
	}
	bar = sqk_progress_start(0, NULL, a.quiet);
	if (bar) {
		progress_polling = 1;
		sqk_progress_poll(bar, image_bytes, (void *)(intptr_t)fd);
		a.o.progress = progress_cb;
		a.o.progress_ctx = bar;
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
	sqk_progress_finish(bar, !err);
	bar = NULL;
	if (err)
		goto fail;
	sqk_file_destroy(out);
	out = NULL;
	if (a.force) {
		rc = rename(tmp_path, image);
	} else {
		/* Never replace an IMAGE that appeared while we were building. */
		rc = renameat2(AT_FDCWD, tmp_path, AT_FDCWD, image, RENAME_NOREPLACE);
		if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
			rc = link(tmp_path, image);
			if (rc == 0)
				unlink(tmp_path);
		}
	}
	if (rc != 0) {
		sqk_error(image, "%s", strerror(errno));
		unlink(tmp_path);
		tmp_live = 0;
		rc = EXIT_FAIL;
		goto done;
	}
	tmp_live = 0;
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
	sqk_file_destroy(out);
	out = NULL;
	unlink(tmp_path);
	tmp_live = 0;
done:
	sqk_mkfs_destroy(m);
	sqk_file_destroy(out);
	strv_free(&a.comp_opts);
	strv_free(&a.excludes);
	strv_free(&a.listings);
	strv_free(&a.archives);
	sqk_pseudo_destroy(a.pseudo);
	return rc;
}
