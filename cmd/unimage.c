// SPDX-License-Identifier: GPL-2.0-or-later
/* squashkit unimage: extract an image to a directory or an archive. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attropt.h"
#include "cmd.h"
#include "imageopt.h"
#include "progress.h"
#include "read/image.h"
#include "util/error.h"
#include "util/outfile.h"
#include "util/pool.h"
#include "util/signals.h"
#include "walk/archive_sink.h"
#include "walk/describe.h"
#include "walk/extract.h"
#include "walk/walk.h"

static const char usage_text[] =
	"Usage: squashkit unimage [OPTIONS] IMAGE [PATH...]\n"
	"Extract IMAGE (or only PATH... and their parents) to a directory or an archive,\n"
	"or describe it as pseudo definitions that mkimage --pseudo-file builds it from.\n\n"
	"  -d, --dest DIR            extract into DIR (default squashfs-root; must not exist)\n"
	"  -f, --force               extract into an existing DIR, replacing what is in the way\n"
	"  -o, --tar FILE            write an archive to FILE instead ('-' = stdout)\n"
	"  -k, --keep-going          extract every entry that can be read, name each one\n"
	"                            that cannot, keep what was made; exit 1 if any\n"
	"      --format FMT          archive format: pax (default), gnu, ustar, cpio, zip\n"
	"      --describe[=FILE]     write a pseudo file (mksquashfs syntax, file data\n"
	"                            included) to FILE instead ('-', the default: stdout)\n"
	"      --no-xattrs           do not restore extended attributes\n"
	"      --xattrs-include REGEX\n"
	"                            restore only the attributes whose names match REGEX\n"
	"      --xattrs-exclude REGEX\n"
	"                            do not restore the attributes whose names match\n"
	"      --no-owner            do not restore owners (never restored unless root)\n"
	"  -j, --threads N           worker threads (default: online CPUs)\n"
	"      --offset N|auto       the image starts N bytes into IMAGE (K/M suffixes);\n"
	"                            auto looks for it and says where it found it\n"
	"      --cache-policy P      block cache wait policy: herd, exclusive, keyed (default)\n"
	"      --cache SPEC          cache entries, e.g. meta=8,frag=3,data=4,comp=16\n"
	"      --stats               print cache and decompression counters at the end\n"
	"      --json                with --stats: the counters as one JSON object\n"
	"  -q, --quiet               no progress output\n"
	"  -h, --help                show this help\n";

enum {
	OPT_FORMAT = 256,
	OPT_NO_XATTRS,
	OPT_NO_OWNER,
	OPT_POLICY,
	OPT_CACHE,
	OPT_STATS,
	OPT_JSON,
	OPT_DESCRIBE,
	OPT_OFFSET,
};

static const struct option longopts[] = {
	{"dest", required_argument, NULL, 'd'},
	{"force", no_argument, NULL, 'f'},
	{"tar", required_argument, NULL, 'o'},
	{"keep-going", no_argument, NULL, 'k'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"describe", optional_argument, NULL, OPT_DESCRIBE},
	{"no-xattrs", no_argument, NULL, OPT_NO_XATTRS},
	{"xattrs-include", required_argument, NULL, OPT_XATTRS_INCLUDE},
	{"xattrs-exclude", required_argument, NULL, OPT_XATTRS_EXCLUDE},
	{"no-owner", no_argument, NULL, OPT_NO_OWNER},
	{"threads", required_argument, NULL, 'j'},
	{"offset", required_argument, NULL, OPT_OFFSET},
	{"cache-policy", required_argument, NULL, OPT_POLICY},
	{"cache", required_argument, NULL, OPT_CACHE},
	{"stats", no_argument, NULL, OPT_STATS},
	{"json", no_argument, NULL, OPT_JSON},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct unimage {
	const char *dest, *tar, *format, *image, *describe;
	int force, no_xattrs, no_owner, stats, json, quiet, dest_set, keep_going;
	unsigned lost; /* entries left out (--keep-going) */
	struct sqk_image *img;
	unsigned threads;
	struct sqk_image_opts io;
	int cache_set;
	struct sqk_progress *bar; /* NULL unless stderr is a terminal */
	struct sqk_attropt attr;  /* the xattr filter */
};

/* A problem with an image entry that does not stop the run (a socket an archive cannot hold). */
static void warn_entry(void *ctx, const char *path, const char *what)
{
	struct unimage *u = ctx;

	cli_progress_clear(u->bar);
	fprintf(stderr, "squashkit %s: %s: /", cli_cmd_name, u->image);
	cli_print_escaped(stderr, path);
	fprintf(stderr, ": %s\n", what);
}

/* The same about an entry made in the destination (an owner or time it refused). */
static void warn_made(void *ctx, const char *path, const char *what)
{
	struct unimage *u = ctx;
	size_t len = strlen(u->dest);

	while (len > 1 && u->dest[len - 1] == '/')
		len--;
	cli_progress_clear(u->bar);
	fprintf(stderr, "squashkit %s: %.*s/", cli_cmd_name, (int)len, u->dest);
	cli_print_escaped(stderr, path);
	fprintf(stderr, ": %s\n", what);
}

/* --keep-going: an entry that cannot be read, left out. */
static int lost_entry(void *ctx, const struct sqk_fault *f)
{
	struct unimage *u = ctx;

	cli_progress_clear(u->bar);
	cli_report_fault(u->image, u->img, NULL, 0, f);
	u->lost++;
	return 0;
}

/* The line for a failed run; a signal's needs none (the command dies of it). */
static void report(struct unimage *u, const char *out, int out_is_dir, const struct sqk_fault *f)
{
	if (f->err == SQK_ERR_INTR)
		return;
	cli_progress_clear(u->bar);
	cli_report_fault(u->image, u->img, out, out_is_dir, f);
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int normalise_selection(char **paths, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char *p = paths[i], *q;
		size_t len;

		while (*p == '/')
			p++;
		len = strlen(p);
		while (len > 0 && p[len - 1] == '/')
			p[--len] = '\0';
		for (q = p; *q; q++)
			if (q[0] == '/' && q[1] == '/')
				return -1;
		paths[i] = p;
	}
	return 0;
}

static int check_selection(struct sqk_image *img, const char *image, char **paths, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct sqk_inode ino;
		int err = sqk_resolve(img, paths[i], &ino);

		if (err) {
			fprintf(stderr, "squashkit %s: %s: /", cli_cmd_name, image);
			cli_print_escaped(stderr, paths[i]);
			fprintf(stderr, ": %s\n", sqk_strerror(err));
			return -1;
		}
		sqk_inode_free(&ino);
	}
	return 0;
}

/*
 * Standard output for "-"; else a temporary file beside out, renamed into
 * place by close_output (and removed by a signal until then).
 */
static int open_output(struct unimage *u, const char *out, struct sqk_outfile **of)
{
	int err;

	*of = NULL;
	if (strcmp(out, "-") == 0)
		return STDOUT_FILENO;
	err = sqk_outfile_create(out, u->force, of);
	if (!err)
		return sqk_file_fd(sqk_outfile_file(*of));
	if (err == SQK_ERR_EXIST)
		cli_error(out, "file exists (use --force to overwrite)");
	else if (err == SQK_ERR_ARG)
		cli_error(out, "is a directory");
	else
		cli_error_code(out, err);
	return -1;
}

/* Put a finished output file in place or, after an error, remove it. */
static int close_output(struct unimage *u, const char *out, struct sqk_outfile *of, int err)
{
	if (!of)
		return err ? EXIT_FAIL : EXIT_OK;
	if (err) {
		sqk_outfile_abort(of);
		return EXIT_FAIL;
	}
	err = sqk_outfile_commit(of);
	if (err) {
		int e = errno;

		cli_progress_clear(u->bar);
		cli_error_errno(out, err, e);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* The exit status of a run that went through: entries left out or warned about fail it. */
static int outcome(struct unimage *u, unsigned warnings)
{
	return u->lost || warnings ? EXIT_FAIL : EXIT_OK;
}

static int to_archive(struct unimage *u, struct sqk_image *img, struct sqk_walk *w)
{
	struct sqk_archive_sink *s = NULL;
	struct sqk_outfile *of;
	const struct sqk_fault *f = &w->fault;
	int fd, err, ret;

	fd = open_output(u, u->tar, &of);
	if (fd < 0)
		return EXIT_FAIL;
	err = sqk_archive_sink_create(img, fd, u->format, u->no_xattrs, warn_entry, u, &s);
	if (!err) {
		sqk_archive_sink_set_filter(s, cli_attropt_filter(&u->attr));
		w->sink = sqk_archive_sink_sink(s);
		err = sqk_walk(w);
		if (!err && (err = sqk_archive_sink_finish(s)) != 0)
			f = &w->sink->fault;
		if (err)
			report(u, u->tar, 0, f);
	} else {
		cli_error_code(u->tar, err);
	}
	sqk_archive_sink_destroy(s);
	ret = close_output(u, u->tar, of, err);
	return ret ? ret : outcome(u, 0);
}

static int describe(struct unimage *u, struct sqk_image *img, struct sqk_walk *w)
{
	struct sqk_describe *d = NULL;
	struct sqk_outfile *of;
	const struct sqk_fault *f = &w->fault;
	int fd, err;

	fd = open_output(u, u->describe, &of);
	if (fd < 0)
		return EXIT_FAIL;
	err = sqk_describe_create(img, fd, &d);
	if (!err) {
		w->sink = sqk_describe_sink(d);
		err = sqk_walk(w);
		if (!err && (err = sqk_describe_finish(d)) != 0)
			f = &w->sink->fault;
		if (err)
			report(u, u->describe, 0, f);
	} else {
		cli_error_code(u->describe, err);
	}
	if (!err && !u->no_xattrs && sqk_describe_xattrs_left(d)) {
		cli_progress_clear(u->bar);
		cli_error(u->image,
			  "the extended attributes of %llu entries cannot be held in a pseudo file "
			  "(--no-xattrs describes the image without them)",
			  (unsigned long long)sqk_describe_xattrs_left(d));
		err = SQK_ERR_UNSUPPORTED;
	}
	sqk_describe_destroy(d);
	return close_output(u, u->describe, of, err);
}

/* The walk into the directory sink, for sqk_xdir_run. */
struct dir_walk {
	struct sqk_walk *w;
};

static int walk_into(void *ctx, struct sqk_extract *x)
{
	struct sqk_walk *w = ((struct dir_walk *)ctx)->w;

	w->sink = sqk_extract_sink(x);
	return sqk_walk(w);
}

/*
 * A tree under DEST. Signals are held meanwhile: one stops the walk and
 * the workers, and what was made goes, as after an error, before the
 * command dies of it. With --keep-going what was made stays.
 */
static int to_directory(struct unimage *u, struct sqk_image *img, struct sqk_walk *w)
{
	struct sqk_extract_conf xo = {
		u->force, u->no_xattrs, u->no_owner, warn_made, u, cli_attropt_filter(&u->attr), 0};
	struct dir_walk dw = {w};
	struct sqk_xdir d = {
		.dest = u->dest,
		.may_exist = u->force,
		.undo = !u->keep_going,
		.threads = u->threads,
		.opts = &xo,
		.walk = walk_into,
		.ctx = &dw,
	};
	int err;

	sqk_sig_hold();
	err = sqk_xdir_run(img, &d);
	if (err && d.stage == SQK_XDIR_DEST)
		cli_error(u->dest, "%s",
			  err == SQK_ERR_EXIST ? "destination exists (use --force)"
					       : strerror(errno));
	else if (err && d.stage == SQK_XDIR_START)
		cli_error_code(u->dest, err);
	else if (err)
		report(u, u->dest, 1, d.stage == SQK_XDIR_WALK ? &w->fault : &d.fault);
	sqk_sig_release();
	return err ? EXIT_FAIL : outcome(u, d.warnings);
}

static int run(struct unimage *u, int argc, char **argv)
{
	struct sqk_walk w;
	struct sqk_image *img;
	int c, ret;

	sqk_image_opts_default(&u->io);
	u->threads = sqk_online_cpus();
	while ((c = cli_getopt(argc, argv, "d:fo:kj:qh", longopts)) != -1) {
		switch (c) {
		case 'd':
			u->dest = optarg;
			u->dest_set = 1;
			break;
		case 'f':
			u->force = 1;
			break;
		case 'o':
			u->tar = optarg;
			break;
		case 'k':
			u->keep_going = 1;
			break;
		case OPT_FORMAT:
			if (!sqk_archive_format_known(optarg))
				return cli_usage_error("unknown archive format '%s'", optarg);
			u->format = optarg;
			break;
		case OPT_DESCRIBE:
			u->describe = optarg ? optarg : "-";
			break;
		case OPT_NO_XATTRS:
			u->no_xattrs = 1;
			break;
		case OPT_NO_OWNER:
			u->no_owner = 1;
			break;
		case OPT_XATTRS_INCLUDE:
		case OPT_XATTRS_EXCLUDE:
			if ((c = cli_attropt_take(&u->attr, c, optarg)) != 0)
				return c;
			break;
		case 'j':
			if (cli_threads_option(optarg, &u->threads) != 0)
				return EXIT_USAGE;
			break;
		case OPT_POLICY:
			if (cli_policy_option(optarg, &u->io) != 0)
				return EXIT_USAGE;
			break;
		case OPT_CACHE:
			if (cli_cache_option(optarg, &u->io) != 0)
				return EXIT_USAGE;
			u->cache_set = 1;
			break;
		case OPT_STATS:
			u->stats = 1;
			break;
		case OPT_JSON:
			u->json = 1;
			break;
		case OPT_OFFSET:
			if (cli_offset_option(optarg) != 0)
				return EXIT_USAGE;
			break;
		case 'q':
			u->quiet = 1;
			cli_offset_quiet(1);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error("missing IMAGE operand");
	if (u->describe && (u->tar || u->dest_set))
		return cli_usage_error("--describe writes a description instead of %s; not both",
				       u->tar ? "an archive (--tar)" : "a directory (--dest)");
	if (u->describe && u->keep_going)
		return cli_usage_error("--keep-going extracts what can be read; --describe "
				       "describes the whole image: not both");
	if (u->describe && !*u->describe)
		return cli_usage_error("--describe= needs a FILE (or no '=')");
	if (u->tar && strcmp(u->tar, "-") == 0 && cli_refuse_terminal("an archive", u->force))
		return EXIT_FAIL;
	u->image = argv[optind++];
	if (normalise_selection(argv + optind, argc - optind) != 0)
		return cli_usage_error("invalid PATH operand");
	if (!u->cache_set)
		cli_extract_cache_sizes(&u->io, u->threads);
	u->io.decompressors = u->threads + 1;
	raise_fd_limit();
	if (!cli_die_of_sigpipe)
		signal(SIGPIPE, SIG_IGN);

	img = cli_open_image(u->image, &u->io);
	if (!img)
		return EXIT_FAIL;
	u->img = img;
	if (check_selection(img, u->image, argv + optind, argc - optind) != 0) {
		sqk_image_close(img);
		return EXIT_FAIL;
	}
	memset(&w, 0, sizeof(w));
	w.img = img;
	w.select = argv + optind;
	w.nselect = (unsigned)(argc - optind);
	if (u->keep_going) {
		w.lost = lost_entry;
		w.lost_ctx = u;
	}
	/*
	 * The bar measures the image's bytes read (data and metadata, counted
	 * by the file at no cost) against bytes_used: cheap, and honest about
	 * the work, which is mostly reading and decompressing. A block read
	 * twice counts twice, so the bar holds at 99% until the end. Only
	 * some PATHs read only part of the image: then no total, no ETA.
	 */
	u->bar = cli_progress_start(w.nselect ? 0 : sqk_image_super(img)->bytes_used,
				    &sqk_image_file(img)->bytes_read, u->quiet);
	ret = u->describe ? describe(u, img, &w)
	      : u->tar	  ? to_archive(u, img, &w)
			  : to_directory(u, img, &w);
	cli_progress_finish(u->bar, ret == EXIT_OK);
	u->bar = NULL;
	if (u->stats)
		cli_print_stats_as(((u->tar && !strcmp(u->tar, "-")) ||
				    (u->describe && !strcmp(u->describe, "-")))
					   ? stderr
					   : stdout,
				   img, u->json);
	sqk_image_close(img);
	return ret;
}

int cli_unimage(int argc, char **argv)
{
	struct unimage u = {.dest = "squashfs-root", .format = "pax"};
	int ret = run(&u, argc, argv);

	cli_attropt_release(&u.attr);
	return ret;
}
