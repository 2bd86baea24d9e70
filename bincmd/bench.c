// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit bench: run workloads against the shared block cache under each
 * wait policy and thread count, and report what the caches did. Every run
 * opens the image afresh, so every run starts with cold caches. With
 * --against, the same workloads run beside the model through the kernel's
 * squashfs and squashkit mount (bench_run.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cmd.h"
#include "cmd.h"
#include "reader.h"
#include "remoteopt.h"
#include "read/image.h"
#include "util/error.h"
#include "util/pool.h"
#include "walk/extract.h"

static const char usage_text[] =
	"Usage: squashkit bench [OPTIONS] [IMAGE]\n"
	"Run workloads through the shared block cache under each wait policy and thread\n"
	"count. Without IMAGE, an embedded default image is generated and built first.\n\n"
	"  -w, --workload LIST   stat, read, mixed, random, seq, randread (default mixed)\n"
	"  -t, --threads LIST    thread counts (default 1,16,64)\n"
	"  -p, --policy LIST     herd, exclusive, keyed (default all three)\n"
	"      --cache SPEC      entries per cache: meta=8,frag=3,data=N (data: threads),\n"
	"                        comp=N adds a cache of compressed blocks (default none)\n"
	"      --decomp MODEL    single (one decompressor behind a lock, the kernel's\n"
	"                        default) or percpu (one per thread); default single\n"
	"      --lookup KIND     scan (linear, as the kernel; default) or hash\n"
	"      --cold            drop the image from the page cache before each run\n"
	"      --against PLACES  also run the workloads through the VFS: kernel (a loop\n"
	"                        mount of the image), mount (squashkit mount, each policy)\n"
	"      --slow-device IOPS[,BYTES]\n"
	"                        put the image on a loop device throttled to IOPS reads\n"
	"                        (and BYTES per second, K/M/G suffixes) and read it there\n"
	"                        with O_DIRECT; --against and this need root\n"
	"      --offset N|auto   the image starts N bytes into IMAGE (K/M suffixes);\n"
	"                        auto looks for it and says where it found it\n"
	"  -d, --duration TIME   time per run: seconds, or with ms/s suffix (default 1s)\n"
	"  -r, --runs N          runs per cell; medians are reported (default 3)\n"
	"  -f, --format FMT      table (default), json or csv\n"
	"      --wide            every column in the table, not the few most need\n"
	"      --plot FILE.svg   draw throughput and wakeups per release against threads\n"
	"      --seed N          seed of the random choices (default 1)\n"
	"  -q, --quiet           no progress lines\n"
	"  -h, --help            show this help\n" SQK_HELP_REMOTE;

enum {
	OPT_CACHE = 256,
	OPT_DECOMP,
	OPT_LOOKUP,
	OPT_COLD,
	OPT_PLOT,
	OPT_SEED,
	OPT_OFFSET,
	OPT_AGAINST,
	OPT_SLOW,
	OPT_WIDE,
	OPT_REMOTE,
};

static const struct option longopts[] = {
	{"workload", required_argument, NULL, 'w'},
	{"threads", required_argument, NULL, 't'},
	{"policy", required_argument, NULL, 'p'},
	{"cache", required_argument, NULL, OPT_CACHE},
	{"decomp", required_argument, NULL, OPT_DECOMP},
	{"lookup", required_argument, NULL, OPT_LOOKUP},
	{"cold", no_argument, NULL, OPT_COLD},
	{"against", required_argument, NULL, OPT_AGAINST},
	{"slow-device", required_argument, NULL, OPT_SLOW},
	{"duration", required_argument, NULL, 'd'},
	{"runs", required_argument, NULL, 'r'},
	{"format", required_argument, NULL, 'f'},
	{"wide", no_argument, NULL, OPT_WIDE},
	{"plot", required_argument, NULL, OPT_PLOT},
	{"seed", required_argument, NULL, OPT_SEED},
	{"offset", required_argument, NULL, OPT_OFFSET},
	CLI_REMOTE_OPTIONS(OPT_REMOTE),
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Split a comma list; each item through parse. Returns the count or -1. */
static int parse_list(const char *s, int (*parse)(const char *, void *, unsigned), void *out)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int n = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == BENCH_MAX_LIST || parse(tok, out, (unsigned)n) != 0) {
			n = -1;
			break;
		}
		n++;
	}
	free(copy);
	return n > 0 ? n : -1;
}

static int parse_wl(const char *s, void *out, unsigned i)
{
	return sqk_workload_parse(s, (enum sqk_workload *)out + i);
}

static int parse_pol(const char *s, void *out, unsigned i)
{
	return i >= 3 ? -1 : sqk_policy_parse(s, (enum sqk_wait_policy *)out + i);
}

static int parse_thr(const char *s, void *out, unsigned i)
{
	uint64_t v;

	if (sqk_parse_uint(s, 1024, &v) != 0 || v == 0)
		return -1;
	((unsigned *)out)[i] = (unsigned)v;
	return 0;
}

static int parse_duration(const char *s, unsigned *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -1;
	if (strcmp(end, "ms") == 0)
		v /= 1000.0;
	else if (*end && strcmp(end, "s") != 0)
		return -1;
	if (v > 3600)
		return -1;
	*ms = (unsigned)(v * 1000.0 + 0.5);
	return *ms ? 0 : -1;
}

static int parse_where(const char *s, void *out, unsigned i)
{
	int *against = out;

	if (strcmp(s, "kernel") == 0)
		against[WHERE_KERNEL] = 1;
	else if (strcmp(s, "mount") == 0)
		against[WHERE_MOUNT] = 1;
	else
		return -1;
	return 0;
}

/* IOPS[,BYTES]: the slow device's read limits. */
static int parse_slow(const char *s, struct bench *b)
{
	char *copy = strdup(s), *comma;
	int ret = -1;

	if (!copy)
		return -1;
	comma = strchr(copy, ',');
	if (comma)
		*comma = '\0';
	if (sqk_parse_uint(copy, UINT32_MAX, &b->slow_iops) == 0 && b->slow_iops > 0 &&
	    (!comma || (sqk_parse_size(comma + 1, &b->slow_bps) == 0 && b->slow_bps > 0)))
		ret = 0;
	free(copy);
	b->slow = 1;
	return ret;
}

static int parse_args(struct bench *b, int argc, char **argv)
{
	uint64_t v;
	int c, n, offset_given = 0;

	while ((c = cli_getopt(argc, argv, "w:t:p:d:r:f:qh", longopts)) != -1) {
		switch (c) {
		case 'w':
			if ((n = parse_list(optarg, parse_wl, b->wl)) < 0)
				return cli_usage_error("invalid workload list '%s'", optarg);
			b->nwl = (unsigned)n;
			break;
		case 't':
			if ((n = parse_list(optarg, parse_thr, b->threads)) < 0)
				return cli_usage_error("invalid thread list '%s'", optarg);
			b->nthreads = (unsigned)n;
			break;
		case 'p':
			if ((n = parse_list(optarg, parse_pol, b->pol)) < 0)
				return cli_usage_error("invalid policy list '%s'", optarg);
			b->npol = (unsigned)n;
			break;
		case OPT_CACHE: {
			unsigned data = b->io.data_entries;

			b->io.data_entries = 0;
			if (cli_reader_cache_option(optarg, &b->io) != 0)
				return EXIT_USAGE;
			b->data_set = b->io.data_entries != 0;
			if (!b->data_set)
				b->io.data_entries = data;
			break;
		}
		case OPT_DECOMP:
			if (strcmp(optarg, "single") && strcmp(optarg, "percpu"))
				return cli_usage_error("unknown decompressor model '%s'", optarg);
			b->percpu = strcmp(optarg, "percpu") == 0;
			break;
		case OPT_LOOKUP:
			if (strcmp(optarg, "scan") && strcmp(optarg, "hash"))
				return cli_usage_error("unknown lookup '%s'", optarg);
			b->io.lookup = strcmp(optarg, "hash") ? SQK_LOOKUP_SCAN : SQK_LOOKUP_HASH;
			break;
		case OPT_COLD:
			b->cold = 1;
			break;
		case OPT_WIDE:
			b->wide = 1;
			break;
		case OPT_AGAINST:
			memset(b->against, 0, sizeof(b->against));
			if (parse_list(optarg, parse_where, b->against) < 0)
				return cli_usage_error("invalid place list '%s' (kernel, mount)",
						       optarg);
			break;
		case OPT_SLOW:
			if (parse_slow(optarg, b) != 0)
				return cli_usage_error("invalid device limits '%s' (IOPS[,BYTES])",
						       optarg);
			break;
		case 'd':
			if (parse_duration(optarg, &b->duration_ms) != 0)
				return cli_usage_error("invalid duration '%s'", optarg);
			break;
		case 'r':
			if (sqk_parse_uint(optarg, 64, &v) != 0 || v == 0)
				return cli_usage_error("invalid run count '%s' (1..64)", optarg);
			b->runs = (unsigned)v;
			break;
		case 'f':
			if (!strcmp(optarg, "table"))
				b->fmt = FMT_TABLE;
			else if (!strcmp(optarg, "json"))
				b->fmt = FMT_JSON;
			else if (!strcmp(optarg, "csv"))
				b->fmt = FMT_CSV;
			else
				return cli_usage_error("unknown format '%s'", optarg);
			break;
		case OPT_PLOT:
			b->plot = optarg;
			break;
		case OPT_SEED:
			if (sqk_parse_uint(optarg, UINT64_MAX, &b->seed) != 0)
				return cli_usage_error("invalid seed '%s'", optarg);
			break;
		case OPT_OFFSET:
			if (cli_offset_option(optarg) != 0)
				return EXIT_USAGE;
			offset_given = 1;
			break;
		case 'q':
			b->quiet = 1;
			cli_offset_quiet(1);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1; /* done: the caller exits 0 */
		default:
			if (cli_remote_take(c, OPT_REMOTE, optarg) != 0)
				return EXIT_USAGE;
			break;
		}
	}
	if (argc - optind > 1)
		return cli_usage_error("too many operands");
	/* The embedded default image starts at 0: an offset needs an IMAGE. */
	if (offset_given && optind >= argc)
		return cli_usage_error("--offset needs an IMAGE operand");
	/* The daemon reads the image through the page cache: it would not be slow. */
	if (b->slow && b->against[WHERE_MOUNT])
		return cli_usage_error("--slow-device: the mount reads through the page cache; "
				       "use --against kernel");
	return 0;
}

/* The cells: per workload and thread count, the model's policies, the kernel, the mount's. */
static unsigned make_cells(const struct bench *b, struct bench_cell *cells)
{
	unsigned n = 0, w, t, p, where;

	for (w = 0; w < b->nwl; w++) {
		for (t = 0; t < b->nthreads; t++) {
			for (where = 0; where < WHERE_COUNT; where++) {
				if (where != WHERE_MODEL && !b->against[where])
					continue;
				for (p = 0; p < (where == WHERE_KERNEL ? 1 : b->npol); p++) {
					struct bench_cell *c = &cells[n++];

					c->workload = b->wl[w];
					c->where = (enum bench_where)where;
					c->threads = b->threads[t];
					c->policy = b->pol[p];
					c->decomp = b->percpu ? "percpu" : "single";
					c->meta = b->io.meta_entries;
					c->frag = b->io.frag_entries;
					c->data = b->data_set ? b->io.data_entries : c->threads;
					c->comp = b->io.comp_entries;
					c->runs = b->runs;
					if (where == WHERE_KERNEL)
						c->decomp = NULL;
				}
			}
		}
	}
	return n;
}

/* The same series (workload, place, policy) at another thread count, or NULL. */
static const struct bench_cell *series_at(const struct bench_cell *cells, unsigned n,
					  const struct bench_cell *c, enum bench_where where,
					  unsigned threads)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (cells[i].workload == c->workload && cells[i].where == where &&
		    cells[i].threads == threads &&
		    (where == WHERE_KERNEL || cells[i].policy == c->policy))
			return &cells[i];
	return NULL;
}

/*
 * The shape: each cell's throughput over its series' at the next smaller
 * thread count (64 threads over 16, say), and that ratio over the kernel's
 * for the same step, which is 1 where the model scales as the kernel does.
 */
static void shape(const struct bench *b, struct bench_cell *cells, unsigned n)
{
	unsigned i, t, prev;

	for (i = 0; i < n; i++) {
		const struct bench_cell *p, *k, *kp;

		cells[i].step = cells[i].step_vs_kernel = NAN;
		for (prev = 0, t = 0; t < b->nthreads; t++)
			if (b->threads[t] < cells[i].threads && b->threads[t] > prev)
				prev = b->threads[t];
		p = prev ? series_at(cells, n, &cells[i], cells[i].where, prev) : NULL;
		if (p && p->ops_per_s > 0)
			cells[i].step = cells[i].ops_per_s / p->ops_per_s;
		k = series_at(cells, n, &cells[i], WHERE_KERNEL, cells[i].threads);
		kp = prev ? series_at(cells, n, &cells[i], WHERE_KERNEL, prev) : NULL;
		if (cells[i].where != WHERE_KERNEL && k && kp && kp->ops_per_s > 0 &&
		    k->ops_per_s > 0)
			cells[i].step_vs_kernel = cells[i].step / (k->ops_per_s / kp->ops_per_s);
	}
}

/*
 * The machine as the bench starts: how busy it was says how far to trust
 * the figures. shown names the image when path is bench's own (NULL: path).
 */
static void machine_info(const struct bench *b, struct bench_info *info, const char *path,
			 const char *shown)
{
	memset(info, 0, sizeof(*info));
	info->image = shown ? shown : path;
	info->default_image = shown != NULL;
	info->cold = b->cold;
	info->wide = b->wide;
	info->cpus = sqk_online_cpus();
	if (getloadavg(info->load, 3) != 3)
		info->load[0] = info->load[1] = info->load[2] = NAN;
}

static int run_all(struct bench *b, const char *path, const char *shown)
{
	unsigned places =
		1 + (unsigned)b->against[WHERE_KERNEL] + (b->against[WHERE_MOUNT] ? b->npol : 0);
	unsigned ncells = b->nwl * b->nthreads * (b->npol + places - 1);
	struct bench_cell *cells = calloc(ncells, sizeof(*cells));
	struct bench_info info;
	int ret = EXIT_FAIL;

	if (!cells)
		return EXIT_FAIL;
	machine_info(b, &info, path, shown);
	info.remote = cli_is_url(path);
	if (cli_bench_setup(b, path) == 0 && (ncells = make_cells(b, cells)) > 0 &&
	    cli_bench_measure(b, cells, ncells) == 0) {
		if (b->slow) {
			info.device = b->loop.dev;
			info.slow_iops = b->slow_iops;
			info.slow_bps = b->slow_bps;
		}
		shape(b, cells, ncells);
		cli_bench_print(stdout, b->fmt, &info, cells, ncells);
		ret = EXIT_OK;
		if (b->plot && cli_bench_plot(b->plot, cells, ncells) != 0) {
			cli_error(b->plot, "%s", strerror(errno));
			ret = EXIT_FAIL;
		}
	}
	cli_bench_teardown(b);
	free(cells);
	return ret;
}

/* A signal ends the runs; what bench set up comes down, then the signal takes its course. */
static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
	sqk_lab_stop();
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	unsigned i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static int finish(int ret)
{
	if (caught) {
		fflush(stdout);
		signal(caught, SIG_DFL);
		raise(caught);
	}
	return ret;
}

int cli_bench(int argc, char **argv)
{
	struct bench b = {
		.wl = {SQK_WL_MIXED},
		.nwl = 1,
		.threads = {1, 16, 64},
		.nthreads = 3,
		.pol = {SQK_WAIT_HERD, SQK_WAIT_EXCLUSIVE, SQK_WAIT_KEYED},
		.npol = 3,
		.duration_ms = 1000,
		.runs = 3,
		.seed = 1,
		.fmt = FMT_TABLE,
	};
	char tmp[1024], img[2200];
	int ret;

	sqk_image_opts_default(&b.io);
	b.loop.fd = -1;
	ret = parse_args(&b, argc, argv);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if ((b.against[WHERE_KERNEL] || b.against[WHERE_MOUNT] || b.slow) && geteuid() != 0) {
		cli_error(NULL, "%s needs root: it sets up loop devices%s",
			  b.slow ? "--slow-device" : "--against",
			  b.slow ? " and throttles them" : " and mounts");
		return EXIT_FAIL;
	}
	catch_signals();
	/* What earlier runs that were killed left behind goes first. */
	sqk_lab_sweep(cli_bench_scratch_base());
	if (optind < argc)
		return finish(run_all(&b, argv[optind], NULL));

	/* No IMAGE: build the default one in a scratch directory, and remove it after. */
	snprintf(tmp, sizeof(tmp), "%s/%s.%d.XXXXXX", cli_bench_scratch_base(), SQK_LAB_TAG,
		 (int)getpid());
	if (!mkdtemp(tmp)) {
		cli_error(tmp, "%s", strerror(errno));
		return EXIT_FAIL;
	}
	ret = cli_bench_default_image(cli_bench_self(), tmp, img, sizeof(img), b.quiet) == 0
		      ? run_all(&b, img, cli_bench_default_name())
		      : EXIT_FAIL;
	sqk_remove_tree(AT_FDCWD, tmp);
	return finish(ret);
}
