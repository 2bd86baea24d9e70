// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit mount: serve an image as a read-only file system through
 * FUSE; squashkit umount: take it down again.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "reader.h"
#include "mount/fs.h"
#include "mount/serve.h"
#include "read/image.h"
#include "util/error.h"
#include "util/json.h"
#include "util/pool.h"
#include "verity/verity_read.h"
#include "verityopt.h"
#include "remoteopt.h"

static const char usage_text[] =
	"Usage: squashkit mount [OPTIONS] IMAGE MOUNTPOINT\n"
	"Mount IMAGE read-only at MOUNTPOINT through FUSE. Without -f, a daemon serves it\n"
	"once it is mounted, until 'squashkit umount MOUNTPOINT' (or fusermount3 -u).\n\n"
	"  -f, --foreground          stay in the foreground; Ctrl-C unmounts\n"
	"  -j, --threads N           at most N threads serving requests; they start as\n"
	"                            readers wait and go when idle (default: 64)\n"
	"      --offset N|auto       the image starts N bytes into IMAGE (K/M suffixes);\n"
	"                            auto looks for it and says where it found it\n"
	"      --root-hash HEX       read through the image's dm-verity hash tree: each\n"
	"                            block read is checked before use; one that does not\n"
	"                            match is EIO for that read, and a line in the "
	"log\n" SQK_HELP_VERITY_MORE
	"      --cache-policy P      block cache wait policy: herd, exclusive, keyed (default)\n"
	"      --cache SPEC          cache entries, e.g. meta=8,frag=3,data=1,comp=16\n"
	"      --decomp MODEL        single (one decompressor behind a lock, the kernel's\n"
	"                            default) or percpu (one per CPU; default)\n"
	"      --stats[=FILE]        write the counters of the caches, of the requests by\n"
	"                            kind and of the serving threads to FILE when the\n"
	"                            file system is unmounted (to stderr with -f; without\n"
	"                            -f, the daemon has no terminal: FILE is needed), and\n"
	"                            the counters so far on SIGUSR1 (FILE holds the last)\n"
	"      --json                with --stats: the counters as one JSON object\n"
	"  -h, --help                show this help\n" SQK_HELP_REMOTE;

/*
 * Threads start as readers wait on blocks, up to this many, and go when
 * idle: a bound for memory, not a pool size.
 */
#define DEFAULT_THREADS 64

enum { OPT_OFFSET = 256, OPT_POLICY, OPT_CACHE, OPT_DECOMP, OPT_STATS, OPT_JSON, OPT_VERITY };

static const struct option longopts[] = {
	{"foreground", no_argument, NULL, 'f'},
	{"threads", required_argument, NULL, 'j'},
	{"offset", required_argument, NULL, OPT_OFFSET},
	CLI_VERITY_OPTIONS(OPT_VERITY),
	CLI_REMOTE_OPTIONS(OPT_VERITY + CLI_VERITY_NOPTS),
	{"cache-policy", required_argument, NULL, OPT_POLICY},
	{"cache", required_argument, NULL, OPT_CACHE},
	{"decomp", required_argument, NULL, OPT_DECOMP},
	{"stats", optional_argument, NULL, OPT_STATS},
	{"json", no_argument, NULL, OPT_JSON},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct mount {
	const char *image, *mountpoint, *stats_path;
	int foreground, stats, json, percpu, cache_set;
	unsigned threads;
	struct sqk_image_opts io;
};

/* libfuse's messages, in the one-line form of every other error. */
static const char *log_path;
static int logged;

static void log_line(const char *line)
{
	if (strncmp(line, "fuse: ", 6) == 0)
		line += 6;
	cli_error(log_path, "%s", line);
	logged = 1;
}

/* A block read through the image's tree that does not match it. */
static const char *bad_image;

static void log_bad(void *ctx, const struct sqk_verity_bad *b)
{
	char what[200];

	sqk_verity_bad_text(b, what, sizeof(what));
	cli_error(bad_image, "dm-verity: %s", what);
	syslog(LOG_ERR, "%s: dm-verity: %s", bad_image, what);
}

static int parse_args(struct mount *m, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, "fj:h", longopts)) != -1) {
		switch (c) {
		case 'f':
			m->foreground = 1;
			break;
		case 'j':
			if (cli_threads_option(optarg, &m->threads) != 0)
				return EXIT_USAGE;
			break;
		case OPT_OFFSET:
			if (cli_offset_option(optarg) != 0)
				return EXIT_USAGE;
			break;
		case OPT_POLICY:
			if (cli_reader_policy_option(optarg, &m->io) != 0)
				return EXIT_USAGE;
			break;
		case OPT_CACHE:
			if (cli_reader_cache_option(optarg, &m->io) != 0)
				return EXIT_USAGE;
			m->cache_set = 1;
			break;
		case OPT_DECOMP:
			if (strcmp(optarg, "single") && strcmp(optarg, "percpu"))
				return cli_usage_error("unknown decompressor model '%s'", optarg);
			m->percpu = strcmp(optarg, "percpu") == 0;
			break;
		case OPT_STATS:
			m->stats = 1;
			m->stats_path = optarg;
			break;
		case OPT_JSON:
			m->json = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		default:
			if ((c = cli_image_option_default(c, OPT_VERITY, optarg)) != 0)
				return c;
			break;
		}
	}
	if (cli_verity_options_check())
		return EXIT_USAGE;
	if (argc - optind < 2)
		return cli_usage_error("missing %s operand",
				       optind < argc ? "MOUNTPOINT" : "IMAGE");
	if (argc - optind > 2)
		return cli_usage_error("extra operand '%s'", argv[optind + 2]);
	m->image = argv[optind];
	m->mountpoint = argv[optind + 1];
	if (m->stats && !m->stats_path && !m->foreground)
		return cli_usage_error("--stats without -f needs a FILE (--stats=FILE): the daemon "
				       "has no terminal to print the counters on");
	return EXIT_OK;
}

/* The image's full path names the mount, as the loop device names a kernel mount. */
static char *source_name(const char *image)
{
	char *full = realpath(image, NULL);

	return full ? full : strdup(image);
}

/*
 * The counters of serving in three groups, each as names and values: the
 * requests by kind and their total, the threads, the pushes into the page
 * cache. The number of counters of group g.
 */
#define GROUPS	  3
#define GROUP_MAX (SQK_SERVE_KINDS + 1)
static const char *const group_key[GROUPS] = {"requests", "threads", "pushes"};
static const char *const group_title[GROUPS] = {"requests", "serving threads", "page cache pushes"};

static unsigned group(const struct sqk_serve_stats *st, int g, const char **name, uint64_t *v)
{
	static const char *const threads[] = {"max", "peak", "started", "retired"};
	static const char *const pushes[] = {"pushed", "skipped", "dropped"};
	unsigned n = 0;

	if (g == 0) {
		uint64_t total = 0;

		for (; (name[n] = sqk_serve_kind_name(n)) != NULL; n++)
			total += v[n] = st->requests[n];
		name[n] = "total";
		v[n++] = total;
		return n;
	}
	if (g == 1) {
		memcpy(name, threads, sizeof(threads));
		v[0] = st->threads_max;
		v[1] = st->threads_peak;
		v[2] = st->threads_started;
		v[3] = st->threads_retired;
		return 4;
	}
	memcpy(name, pushes, sizeof(pushes));
	v[0] = st->pushed;
	v[1] = st->push_skipped;
	v[2] = st->push_dropped;
	return 3;
}

static void print_serve_stats(FILE *out, const struct sqk_serve_stats *st)
{
	const char *name[GROUP_MAX];
	uint64_t v[GROUP_MAX];
	unsigned i, n;
	int g;

	for (g = 0; g < GROUPS; g++) {
		fprintf(out, "%s:\n", group_title[g]);
		n = group(st, g, name, v);
		for (i = 0; i < n; i++)
			fprintf(out, "  %-20s %llu\n", name[i], (unsigned long long)v[i]);
	}
}

static void serve_stats_json(struct sqk_json *j, const struct sqk_serve_stats *st)
{
	const char *name[GROUP_MAX];
	uint64_t v[GROUP_MAX];
	unsigned i, n;
	int g;

	for (g = 0; g < GROUPS; g++) {
		sqk_json_key(j, group_key[g]);
		sqk_json_begin_object(j, 0);
		n = group(st, g, name, v);
		for (i = 0; i < n; i++)
			sqk_json_key_uint(j, name[i], v[i]);
		sqk_json_end_object(j);
	}
}

/* Where --stats goes, and what it reads. */
struct stats_out {
	FILE *out;
	struct sqk_image *img;
	int json;
};

/*
 * The image's counters and the serving's, as text or as one JSON object.
 * A file holds the last ones written: each report replaces the one before.
 */
static void print_stats(struct stats_out *o, const struct sqk_serve_stats *st)
{
	struct sqk_json j;

	if (o->out != stderr) {
		rewind(o->out);
		if (ftruncate(fileno(o->out), 0) != 0)
			return;
	}
	if (!o->json) {
		cli_print_stats(o->out, o->img);
		print_serve_stats(o->out, st);
	} else {
		sqk_json_init_file(&j, o->out);
		sqk_json_begin_object(&j, 0);
		cli_print_stats_members(&j, o->img);
		serve_stats_json(&j, st);
		sqk_json_end_object(&j);
		sqk_json_finish(&j);
	}
	fflush(o->out);
}

/* SIGUSR1: the counters so far. */
static void report(struct sqk_serve *s, void *arg)
{
	struct sqk_serve_stats st;

	sqk_serve_stats(s, &st);
	print_stats(arg, &st);
}

static int serve(struct mount *m, struct sqk_image *img, struct sqk_fs *fs, FILE *stats)
{
	struct sqk_serve_opts so = {m->threads, 86400.0, geteuid() == 0, NULL, NULL, NULL};
	struct stats_out out = {stats, img, m->json};
	struct sqk_serve_stats st;
	struct sqk_serve *s;
	int err;

	so.fsname = source_name(m->image);
	if (stats) {
		so.report = report;
		so.report_arg = &out;
	}
	log_path = m->mountpoint;
	sqk_serve_log(log_line);
	errno = 0;
	err = sqk_serve_mount(fs, m->mountpoint, &so, &s);
	free((char *)so.fsname);
	if (err) {
		if (!logged)
			cli_error_code(m->mountpoint, err);
		return EXIT_FAIL;
	}
	if (sqk_serve_daemonize(m->foreground) != 0) {
		cli_error(m->mountpoint, "cannot start the daemon");
		sqk_serve_destroy(s);
		return EXIT_FAIL;
	}
	err = sqk_serve_run(s);
	sqk_serve_stats(s, &st);
	sqk_serve_destroy(s);
	if (stats)
		print_stats(&out, &st);
	if (err)
		cli_error_code(m->mountpoint, err);
	return err ? EXIT_FAIL : EXIT_OK;
}

/*
 * A second mount over a squashkit mount hides the first, whose daemon
 * then serves nobody until both are unmounted: a mistake far more often
 * than a wish. 0, or -1 after saying why.
 */
static int refuse_stacking(const char *mountpoint)
{
	char *full = realpath(mountpoint, NULL);
	int on;

	if (!full) {
		cli_error(mountpoint, "%s", strerror(errno));
		return -1;
	}
	on = sqk_serve_is_mounted(full);
	free(full);
	if (on > 0)
		cli_error(mountpoint,
			  "already a squashkit mount point (squashkit umount it first)");
	return on > 0 ? -1 : 0;
}

int cli_mount(int argc, char **argv)
{
	struct mount m;
	struct sqk_image *img;
	struct sqk_fs *fs;
	FILE *stats = NULL;
	struct stat st;
	int ret, err;

	memset(&m, 0, sizeof(m));
	sqk_image_opts_default(&m.io);
	m.percpu = 1;
	m.threads = DEFAULT_THREADS;
	ret = parse_args(&m, argc, argv);
	if (ret != EXIT_OK)
		return ret;
	/* However many threads wait, decompressions at once are bounded by the model. */
	m.io.decompressors = m.percpu ? sqk_online_cpus() : 1;
	if (!m.cache_set) {
		/*
		 * The inode and directory tables of most images; the fragment
		 * blocks of the files many readers are reading at once; the
		 * blocks being decompressed, shared, and held while the page
		 * cache takes them whole. Under 8 MiB each for large blocks.
		 */
		m.io.meta_entries = 64;
		m.io.frag_entries = 64;
		m.io.data_entries = 32;
		m.io.block_cache_max = 8 << 20;
	}

	if (stat(m.mountpoint, &st) != 0) {
		cli_error(m.mountpoint, "%s", strerror(errno));
		return EXIT_FAIL;
	}
	if (!S_ISDIR(st.st_mode)) {
		cli_error(m.mountpoint, "not a directory");
		return EXIT_FAIL;
	}
	if (refuse_stacking(m.mountpoint) != 0)
		return EXIT_FAIL;
	img = cli_open_image_reader(m.image, &m.io);
	if (!img)
		return EXIT_FAIL;
	/* Each block that fails its hash: one line, on stderr and (a daemon has none) in syslog. */
	bad_image = m.image;
	sqk_verity_reader_on_bad(sqk_image_file(img), log_bad, NULL);
	ret = EXIT_FAIL;
	err = sqk_fs_create(img, &fs);
	if (err) {
		cli_error_code(m.image, err);
		sqk_image_destroy(img);
		return EXIT_FAIL;
	}
	if (m.stats) {
		/* Opened now, so that a bad path fails the mount rather than the unmount. */
		stats = m.stats_path ? fopen(m.stats_path, "w") : stderr;
		if (!stats)
			cli_error(m.stats_path, "%s", strerror(errno));
	}
	if (stats || !m.stats)
		ret = serve(&m, img, fs, stats);
	sqk_fs_destroy(fs);
	sqk_image_destroy(img);
	if (stats && stats != stderr)
		fclose(stats);
	return ret;
}
