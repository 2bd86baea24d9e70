// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit unimage: extract an image to a directory or an archive.
 *
 * Past the opening of the image (cmd/imageopt.c: --offset, --cache,
 * --cache-policy) and its --stats, this uses the public API alone
 * (<squashkit/extract.h>), as a program linking libsquashkit would.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "imageopt.h"
#include "verityopt.h"
#include "remoteopt.h"
#include "progress.h"
#include "fe.h"

static const char usage_text[] =
	"Usage: squashkit unimage [OPTIONS] IMAGE [PATH...]\n"
	"Extract IMAGE (or only PATH... and their parents) to a directory or an archive,\n"
	"or describe it as pseudo definitions that mkimage --pseudo-file builds it from.\n\n"
	"  -d, --dest DIR            extract into DIR (default squashfs-root; must not exist)\n"
	"  -f, --force               extract into an existing DIR, replacing what is in the way;\n"
	"                            with -o, write over FILE (as mkimage --force writes IMAGE)\n"
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
	"      --memory SIZE         memory for what is kept about the whole image\n"
	"                            (K/M/G; default a quarter of RAM, at most 256M);\n"
	"                            the rest goes to unnamed temporary files\n"
	"      --tmpdir DIR          where those go (default $TMPDIR, else /tmp)\n"
	"      --offset N|auto       the image starts N bytes into IMAGE (K/M suffixes);\n"
	"                            auto looks for it and says where it found it\n"
	"      --root-hash HEX       read through the image's dm-verity hash tree: a\n"
	"                            block that does not match fails what reads it, and\n"
	"                            nothing is left behind (with -k: left out, "
	"named)\n" SQK_HELP_VERITY_MORE
	"      --cache-policy P      block cache wait policy: herd, exclusive, keyed (default)\n"
	"      --cache SPEC          cache entries, e.g. meta=8,frag=3,data=4,comp=16\n"
	"      --stats               print cache and decompression counters at the end\n"
	"      --json                with --stats: the counters as one JSON object\n"
	"  -q, --quiet               no progress output\n"
	"  -h, --help                show this help\n" SQK_HELP_REMOTE;

enum {
	OPT_FORMAT = 256,
	OPT_NO_XATTRS,
	OPT_XATTRS_INCLUDE,
	OPT_XATTRS_EXCLUDE,
	OPT_NO_OWNER,
	OPT_POLICY,
	OPT_CACHE,
	OPT_STATS,
	OPT_JSON,
	OPT_DESCRIBE,
	OPT_OFFSET,
	OPT_VERITY, /* and the CLI_VERITY_NOPTS - 1 values after it */
	OPT_MEMORY = OPT_VERITY + CLI_VERITY_NOPTS + CLI_REMOTE_NOPTS,
	OPT_TMPDIR,
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
	CLI_VERITY_OPTIONS(OPT_VERITY),
	CLI_REMOTE_OPTIONS(OPT_VERITY + CLI_VERITY_NOPTS),
	{"memory", required_argument, NULL, OPT_MEMORY},
	{"tmpdir", required_argument, NULL, OPT_TMPDIR},
	{"cache-policy", required_argument, NULL, OPT_POLICY},
	{"cache", required_argument, NULL, OPT_CACHE},
	{"stats", no_argument, NULL, OPT_STATS},
	{"json", no_argument, NULL, OPT_JSON},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct unimage {
	const char *dest, *tar, *image, *describe;
	int force, no_xattrs, no_owner, stats, json, quiet, dest_set, keep_going;
	unsigned warnings; /* entries made with a problem (a directory's): exit 1 */
	const char *out;   /* where the run writes: DIR, FILE or "-" */
	int out_is_dir;
	struct sqk_image *img;
	unsigned threads;
	struct cli_image_opts io;
	struct sqk_progress *bar; /* NULL unless stderr is a terminal */
	struct sqk_extract_opts *xo;
};

/* "IMAGE: /path: what" (path "a/b", or "" for the image as a whole). */
static void image_line(struct unimage *u, const char *path, const char *what)
{
	fprintf(stderr, "squashkit %s: %s", cli_cmd_name, u->image);
	if (*path) {
		fputs(": /", stderr);
		cli_print_escaped(stderr, path);
	}
	fprintf(stderr, ": %s\n", what);
}

/* "DIR/path: what" for an entry inside the destination directory. */
static void dest_line(struct unimage *u, const char *path, const char *what)
{
	size_t len = strlen(u->dest);

	while (len > 1 && u->dest[len - 1] == '/')
		len--;
	fprintf(stderr, "squashkit %s: %.*s/", cli_cmd_name, (int)len, u->dest);
	cli_print_escaped(stderr, path);
	fprintf(stderr, ": %s\n", what);
}

/*
 * An entry left out (--keep-going: err), or one made or written with a
 * problem that does not stop the run: an owner or time the destination
 * refused, a socket an archive cannot hold.
 */
static void problem(void *ctx, const char *path, int err, const char *what)
{
	struct unimage *u = ctx;

	path = cli_relpath(path);
	cli_progress_clear(u->bar);
	if (err) {
		image_line(u, path, what);
	} else if (u->out_is_dir) {
		u->warnings++;
		dest_line(u, path, what);
	} else {
		image_line(u, path, what);
	}
}

/* A notice about the output itself: a stale temporary file of the archive's, removed. */
static void notice(void *ctx, const char *path, const char *what)
{
	struct unimage *u = ctx;

	cli_progress_clear(u->bar);
	cli_error(path, "%s", what);
}

/* The one line for a failed run, worded as each stage's has always been. */
static void failure(void *ctx, const struct sqk_extract_failure *f)
{
	struct unimage *u = ctx;
	const char *out = strcmp(u->out, "-") ? u->out : "stdout";

	cli_progress_clear(u->bar);
	switch (f->stage) {
	case SQK_EXTRACT_DEST:
		if (f->err == SQK_ERR_EXIST)
			cli_error(out, "%s",
				  u->out_is_dir ? "destination exists (use --force)"
						: "file exists (use --force to overwrite)");
		else
			cli_error(out, "%s", f->what);
		break;
	case SQK_EXTRACT_XATTRS:
		cli_error(u->image,
			  "the extended attributes of %llu entries cannot be held in a pseudo file "
			  "(--no-xattrs describes the image without them)",
			  (unsigned long long)f->count);
		break;
	case SQK_EXTRACT_ENTRY:
		if (!f->output)
			image_line(u, cli_relpath(f->path), f->what);
		else if (u->out_is_dir && *f->path)
			dest_line(u, cli_relpath(f->path), f->what);
		else
			cli_error(out, "%s", f->what);
		break;
	default: /* could not start, or put the file in place */
		cli_error(out, "%s", f->what);
	}
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * The extraction the options ask for. A directory's holds the signals
 * meanwhile ("signals"): one stops the walk and the workers, and what was
 * made goes, as after an error, before the command dies of it; with
 * --keep-going what was made stays. A file's goes on a signal, "-" is
 * written as it comes.
 */
static int extract(struct unimage *u)
{
	int to_stdout = !strcmp(u->out, "-");

	if (u->out_is_dir)
		return sqk_extract_dir(u->img, u->dest, u->xo, problem, u);
	if (u->describe)
		return to_stdout ? sqk_extract_describe_fd(u->img, STDOUT_FILENO, u->xo, problem, u)
				 : sqk_extract_describe(u->img, u->out, u->xo, problem, u);
	return to_stdout ? sqk_extract_archive_fd(u->img, STDOUT_FILENO, u->xo, problem, u)
			 : sqk_extract_archive(u->img, u->out, u->xo, problem, u);
}

/* What the bar shows done: the image's bytes read so far. */
static uint64_t bytes_read(void *img)
{
	return sqk_image_bytes_read(img);
}

/* The options that go to the extraction, in the library's names. */
static int extract_options(struct unimage *u)
{
	char threads[16];
	int err = 0;

	snprintf(threads, sizeof(threads), "%u", u->threads);
	err |= sqk_extract_opts_set(u->xo, "threads", threads);
	err |= sqk_extract_opts_set_failure(u->xo, failure, u);
	err |= sqk_extract_opts_set_notice(u->xo, notice, u);
	if (u->out_is_dir)
		err |= sqk_extract_opts_set(u->xo, "signals", NULL);
	if (u->force)
		err |= sqk_extract_opts_set(u->xo, "force", NULL);
	if (u->keep_going)
		err |= sqk_extract_opts_set(u->xo, "keep-going", NULL);
	if (u->no_xattrs)
		err |= sqk_extract_opts_set(u->xo, "no-xattrs", NULL);
	if (u->no_owner)
		err |= sqk_extract_opts_set(u->xo, "no-owner", NULL);
	return err;
}

static int run(struct unimage *u, int argc, char **argv)
{
	struct sqk_image_info info;
	unsigned npaths;
	int c, ret;

	u->xo = sqk_extract_opts_create();
	if (!u->xo) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	u->threads = cli_online_cpus();
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
			if (sqk_extract_opts_set(u->xo, "format", optarg) != 0)
				return cli_usage_error("unknown archive format '%s'", optarg);
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
		case OPT_XATTRS_EXCLUDE: {
			const char *name =
				c == OPT_XATTRS_INCLUDE ? "xattrs-include" : "xattrs-exclude";

			/* The library checks the pattern; its words, the option as given. */
			if (sqk_extract_opts_set(u->xo, name, optarg) != 0)
				return cli_refused(name);
			break;
		}
		case 'j':
			if (cli_threads_option(optarg, &u->threads) != 0)
				return EXIT_USAGE;
			break;
		case OPT_MEMORY:
			if (cli_memory_option(optarg, &u->io) != 0)
				return EXIT_USAGE;
			break;
		case OPT_TMPDIR:
			if (cli_tmpdir_option(optarg, &u->io) != 0)
				return EXIT_USAGE;
			break;
		case OPT_POLICY:
			if (cli_policy_option(optarg, &u->io) != 0)
				return EXIT_USAGE;
			break;
		case OPT_CACHE:
			if (cli_cache_option(optarg, &u->io) != 0)
				return EXIT_USAGE;
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
			if ((c = cli_image_option_default(c, OPT_VERITY, optarg)) != 0)
				return c;
			break;
		}
	}
	if (cli_verity_options_check())
		return EXIT_USAGE;
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
	for (npaths = 0; optind < argc; optind++, npaths++)
		if (sqk_extract_opts_add_path(u->xo, argv[optind]) != 0)
			return cli_usage_error("invalid PATH operand");
	u->out = u->describe ? u->describe : u->tar ? u->tar : u->dest;
	u->out_is_dir = !u->describe && !u->tar;
	if (extract_options(u) != 0) {
		cli_error(NULL, "%s", sqk_error_message());
		return EXIT_FAIL;
	}
	u->io.threads = u->threads;
	u->io.extract = 1;
	raise_fd_limit();

	u->img = cli_open_image(u->image, &u->io);
	if (!u->img)
		return EXIT_FAIL;
	sqk_image_info(u->img, &info);
	/*
	 * The bar measures the image's bytes read (data and metadata, counted
	 * by the file at no cost) against bytes_used: cheap, and honest about
	 * the work, which is mostly reading and decompressing. A block read
	 * twice counts twice, so the bar holds at 99% until the end. Only
	 * some PATHs read only part of the image: then no total, no ETA.
	 */
	u->bar = cli_progress_start(npaths ? 0 : info.bytes_used, NULL, u->quiet);
	cli_progress_poll(u->bar, bytes_read, u->img);
	ret = extract(u) ? EXIT_FAIL : u->warnings ? EXIT_FAIL : EXIT_OK;
	cli_progress_finish(u->bar, ret == EXIT_OK);
	u->bar = NULL;
	cli_verity_failures(u->image, u->img);
	if (u->stats)
		cli_print_stats_as(!u->out_is_dir && !strcmp(u->out, "-") ? stderr : stdout, u->img,
				   u->json);
	sqk_image_destroy(u->img);
	return ret;
}

int cli_unimage(int argc, char **argv)
{
	struct unimage u = {.dest = "squashfs-root"};
	int ret = run(&u, argc, argv);

	sqk_extract_opts_destroy(u.xo);
	return ret;
}
