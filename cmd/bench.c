// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit bench: run workloads against the shared block cache under each
 * wait policy and thread count, and report what the caches did. Every run
 * opens the image afresh, so every run starts with cold caches.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cmd.h"
#include "cmd.h"
#include "error.h"
#include "extract.h"
#include "image.h"
#include "imageopt.h"
#include "pool.h"

static const char usage_text[] =
	"Usage: squashkit bench [OPTIONS] [IMAGE]\n"
	"Run workloads through the shared block cache under each wait policy and thread\n"
	"count. Without IMAGE, an embedded default image is generated and built first.\n\n"
	"  -w, --workload LIST   stat, read, mixed, random, seq (default mixed)\n"
	"  -t, --threads LIST    thread counts (default 1,16,64)\n"
	"  -p, --policy LIST     herd, exclusive, keyed (default all three)\n"
	"      --cache SPEC      entries per cache: meta=8,frag=3,data=N (data: threads),\n"
	"                        comp=N adds a cache of compressed blocks (default none)\n"
	"      --decomp MODEL    single (one decompressor behind a lock, the kernel's\n"
	"                        default) or percpu (one per thread); default single\n"
	"      --lookup KIND     scan (linear, as the kernel; default) or hash\n"
	"      --cold            drop the image from the page cache before each run\n"
	"      --offset N|auto   the image starts N bytes into IMAGE (K/M suffixes);\n"
	"                        auto looks for it and says where it found it\n"
	"  -d, --duration TIME   time per run: seconds, or with ms/s suffix (default 1s)\n"
	"  -r, --runs N          runs per cell; medians are reported (default 3)\n"
	"  -f, --format FMT      table (default), json or csv\n"
	"      --plot FILE.svg   draw throughput and wakeups per release against threads\n"
	"      --seed N          seed of the random choices (default 1)\n"
	"  -q, --quiet           no progress lines\n"
	"  -h, --help            show this help\n";

enum { OPT_CACHE = 256, OPT_DECOMP, OPT_LOOKUP, OPT_COLD, OPT_PLOT, OPT_SEED, OPT_OFFSET };

static const struct option longopts[] = {
	{"workload", required_argument, NULL, 'w'},
	{"threads", required_argument, NULL, 't'},
	{"policy", required_argument, NULL, 'p'},
	{"cache", required_argument, NULL, OPT_CACHE},
	{"decomp", required_argument, NULL, OPT_DECOMP},
	{"lookup", required_argument, NULL, OPT_LOOKUP},
	{"cold", no_argument, NULL, OPT_COLD},
	{"duration", required_argument, NULL, 'd'},
	{"runs", required_argument, NULL, 'r'},
	{"format", required_argument, NULL, 'f'},
	{"plot", required_argument, NULL, OPT_PLOT},
	{"seed", required_argument, NULL, OPT_SEED},
	{"offset", required_argument, NULL, OPT_OFFSET},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

#define MAX_LIST 16

struct bench {
	enum sqk_workload wl[MAX_LIST];
	unsigned nwl;
	unsigned threads[MAX_LIST];
	unsigned nthreads;
	enum sqk_wait_policy pol[3];
	unsigned npol;
	struct sqk_image_opts io;
	int data_set, percpu, cold, quiet;
	unsigned duration_ms, runs;
	uint64_t seed;
	enum bench_format fmt;
	const char *plot;
};

/* Split a comma list; each item through parse. Returns the count or -1. */
static int parse_list(const char *s, int (*parse)(const char *, void *, unsigned), void *out)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int n = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_LIST || parse(tok, out, (unsigned)n) != 0) {
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Per-run figures of one cell; medians go into the cell. */
// clang-format off
#define RUN_FIELDS(X)                                                                              \
	X(ops_per_s) X(mib_per_s) X(p50_us) X(p99_us) X(max_us) X(releases) X(release_wakes)      \
	X(wake_calls) X(wakeups) X(wakeups_per_release) X(spurious) X(handoffs) X(stalls)          \
	X(unclaimed_free_ms) X(vcsw) X(ivcsw) X(fills) X(refills) X(decompressions_per_block)      \
	X(meta_dpb) X(frag_dpb) X(hit_ratio) X(errors)
// clang-format on

struct run_values {
#define DECL(k) double k[64];
	RUN_FIELDS(DECL)
};

static int run_once(struct bench *b, const char *path, const struct sqk_lab_files *files,
		    struct bench_cell *cell, unsigned run, struct run_values *rv)
{
	struct sqk_image_opts io = b->io;
	struct sqk_lab_result r;
	struct sqk_image *img;
	double lookups = 0, hits = 0, distinct = 0;
	int i, err;

	io.policy = cell->policy;
	io.data_entries = cell->data;
	io.decompressors = b->percpu ? cell->threads : 1;
	if (b->cold) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
	}
	img = sqk_open_image(path, &io);
	if (!img)
		return -1;
	err = sqk_lab_run(img, files, cell->workload, cell->threads, b->duration_ms, b->seed + run,
			  &r);
	if (err) {
		sqk_error_code(path, err);
		sqk_image_close(img);
		return -1;
	}
#define ZERO(k) rv->k[run] = 0;
	RUN_FIELDS(ZERO)
	for (i = 0; i < SQK_CACHE_COUNT; i++) {
		struct sqk_cache_stats s;

		if (!sqk_image_cache(img, i))
			continue;
		sqk_cache_stats(sqk_image_cache(img, i), &s);
		rv->releases[run] += (double)s.releases;
		rv->release_wakes[run] += (double)s.release_wakes;
		rv->wake_calls[run] += (double)s.wake_calls;
		rv->wakeups[run] +=
			(double)(s.wakeups_capacity + s.wakeups_publish + s.wakeups_handoff);
		rv->spurious[run] += (double)s.spurious;
		rv->handoffs[run] += (double)s.handoffs;
		rv->stalls[run] += (double)s.stalls;
		rv->unclaimed_free_ms[run] += (double)s.unclaimed_ns / 1e6;
		rv->fills[run] += (double)s.fills;
		rv->refills[run] += (double)s.refills;
		if (i == SQK_CACHE_META)
			rv->meta_dpb[run] = s.distinct ? (double)s.fills / (double)s.distinct : 0;
		if (i == SQK_CACHE_FRAG)
			rv->frag_dpb[run] = s.distinct ? (double)s.fills / (double)s.distinct : 0;
		lookups += (double)s.lookups;
		hits += (double)(s.hits + s.shares);
		distinct += (double)s.distinct;
	}
	sqk_image_close(img);
	rv->ops_per_s[run] = (double)r.ops * 1e9 / (double)(r.elapsed_ns ? r.elapsed_ns : 1);
	rv->mib_per_s[run] =
		(double)r.bytes / 1048576.0 * 1e9 / (double)(r.elapsed_ns ? r.elapsed_ns : 1);
	rv->p50_us[run] = r.p50_us;
	rv->p99_us[run] = r.p99_us;
	rv->max_us[run] = r.max_us;
	rv->vcsw[run] = (double)r.vcsw;
	rv->ivcsw[run] = (double)r.ivcsw;
	rv->errors[run] = (double)r.errors;
	/*
	 * As the background's trace counts it: wakeups delivered per release
	 * that woke anyone. A release with nobody asleep costs no wakeup.
	 */
	rv->wakeups_per_release[run] =
		rv->release_wakes[run] ? rv->wakeups[run] / rv->release_wakes[run] : 0;
	rv->decompressions_per_block[run] = distinct ? rv->fills[run] / distinct : 0;
	rv->hit_ratio[run] = lookups ? hits / lookups : 0;
	return 0;
}

static int run_cell(struct bench *b, const char *path, const struct sqk_lab_files *files,
		    struct bench_cell *cell)
{
	struct run_values *rv = calloc(1, sizeof(*rv));
	unsigned run;

	if (!rv)
		return -1;
	for (run = 0; run < b->runs; run++) {
		if (run_once(b, path, files, cell, run, rv) != 0) {
			free(rv);
			return -1;
		}
	}
#define MEDIAN(k) cell->k = median(rv->k, b->runs);
	RUN_FIELDS(MEDIAN)
	free(rv);
	return 0;
}

static int parse_args(struct bench *b, int argc, char **argv)
{
	uint64_t v;
	int c, n, offset_given = 0;

	while ((c = sqk_getopt(argc, argv, "w:t:p:d:r:f:qh", longopts)) != -1) {
		switch (c) {
		case 'w':
			if ((n = parse_list(optarg, parse_wl, b->wl)) < 0)
				return sqk_usage_error("invalid workload list '%s'", optarg);
			b->nwl = (unsigned)n;
			break;
		case 't':
			if ((n = parse_list(optarg, parse_thr, b->threads)) < 0)
				return sqk_usage_error("invalid thread list '%s'", optarg);
			b->nthreads = (unsigned)n;
			break;
		case 'p':
			if ((n = parse_list(optarg, parse_pol, b->pol)) < 0)
				return sqk_usage_error("invalid policy list '%s'", optarg);
			b->npol = (unsigned)n;
			break;
		case OPT_CACHE: {
			unsigned data = b->io.data_entries;

			b->io.data_entries = 0;
			if (sqk_cache_option(optarg, &b->io) != 0)
				return EXIT_USAGE;
			b->data_set = b->io.data_entries != 0;
			if (!b->data_set)
				b->io.data_entries = data;
			break;
		}
		case OPT_DECOMP:
			if (strcmp(optarg, "single") && strcmp(optarg, "percpu"))
				return sqk_usage_error("unknown decompressor model '%s'", optarg);
			b->percpu = strcmp(optarg, "percpu") == 0;
			break;
		case OPT_LOOKUP:
			if (strcmp(optarg, "scan") && strcmp(optarg, "hash"))
				return sqk_usage_error("unknown lookup '%s'", optarg);
			b->io.lookup = strcmp(optarg, "hash") ? SQK_LOOKUP_SCAN : SQK_LOOKUP_HASH;
			break;
		case OPT_COLD:
			b->cold = 1;
			break;
		case 'd':
			if (parse_duration(optarg, &b->duration_ms) != 0)
				return sqk_usage_error("invalid duration '%s'", optarg);
			break;
		case 'r':
			if (sqk_parse_uint(optarg, 64, &v) != 0 || v == 0)
				return sqk_usage_error("invalid run count '%s' (1..64)", optarg);
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
				return sqk_usage_error("unknown format '%s'", optarg);
			break;
		case OPT_PLOT:
			b->plot = optarg;
			break;
		case OPT_SEED:
			if (sqk_parse_uint(optarg, UINT64_MAX, &b->seed) != 0)
				return sqk_usage_error("invalid seed '%s'", optarg);
			break;
		case OPT_OFFSET:
			if (sqk_offset_option(optarg) != 0)
				return EXIT_USAGE;
			offset_given = 1;
			break;
		case 'q':
			b->quiet = 1;
			sqk_offset_quiet(1);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1; /* done: the caller exits 0 */
		default:
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1)
		return sqk_usage_error("too many operands");
	/* The embedded default image starts at 0: an offset needs an IMAGE. */
	if (offset_given && optind >= argc)
		return sqk_usage_error("--offset needs an IMAGE operand");
	return 0;
}

static int run_all(struct bench *b, const char *path)
{
	unsigned ncells = b->nwl * b->nthreads * b->npol, i = 0, w, t, p;
	struct sqk_lab_files files;
	struct bench_cell *cells;
	struct sqk_image *img;
	int err, ret = EXIT_OK;

	img = sqk_open_image(path, &b->io);
	if (!img)
		return EXIT_FAIL;
	err = sqk_lab_index(img, &files);
	sqk_image_close(img);
	if (err || files.count == 0) {
		sqk_error(path, "%s", err ? sqk_strerror(err) : "the image holds no files");
		sqk_lab_files_free(&files);
		return EXIT_FAIL;
	}
	cells = calloc(ncells, sizeof(*cells));
	if (!cells)
		return EXIT_FAIL;
	for (w = 0; w < b->nwl; w++) {
		for (t = 0; t < b->nthreads; t++) {
			for (p = 0; p < b->npol; p++, i++) {
				struct bench_cell *c = &cells[i];

				c->workload = b->wl[w];
				c->threads = b->threads[t];
				c->policy = b->pol[p];
				c->decomp = b->percpu ? "percpu" : "single";
				c->meta = b->io.meta_entries;
				c->frag = b->io.frag_entries;
				c->data = b->data_set ? b->io.data_entries : c->threads;
				c->runs = b->runs;
				if (!b->quiet)
					fprintf(stderr, "bench: [%u/%u] %s %s %u threads ...",
						i + 1, ncells, sqk_workload_name(c->workload),
						sqk_policy_name(c->policy), c->threads);
				if (run_cell(b, path, &files, c) != 0) {
					ret = EXIT_FAIL;
					goto out;
				}
				if (!b->quiet)
					fprintf(stderr, " %.0f ops/s, %.2f wakeups/release\n",
						c->ops_per_s, c->wakeups_per_release);
			}
		}
	}
	bench_print(stdout, b->fmt, path, sqk_online_cpus(), cells, ncells);
	if (b->plot && bench_plot(b->plot, cells, ncells) != 0) {
		sqk_error(b->plot, "%s", strerror(errno));
		ret = EXIT_FAIL;
	}
out:
	free(cells);
	sqk_lab_files_free(&files);
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	struct bench b = {
		.wl = {SQK_WL_MIXED},
		.nwl = 1,
		.threads = {1, 16, 64},
		.nthreads = 3,
		.pol = {SQK_POLICY_HERD, SQK_POLICY_EXCLUSIVE, SQK_POLICY_KEYED},
		.npol = 3,
		.duration_ms = 1000,
		.runs = 3,
		.seed = 1,
		.fmt = FMT_TABLE,
	};
	char tmp[1024], img[2200];
	const char *base = getenv("TMPDIR");
	int ret;

	sqk_image_opts_default(&b.io);
	ret = parse_args(&b, argc, argv);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (optind < argc)
		return run_all(&b, argv[optind]);

	/* No IMAGE: build the default one in a scratch directory, and remove it after. */
	if (!base && access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	snprintf(tmp, sizeof(tmp), "%s/squashkit-bench.XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		sqk_error(tmp, "%s", strerror(errno));
		return EXIT_FAIL;
	}
	ret = bench_default_image("/proc/self/exe", tmp, img, sizeof(img), b.quiet) == 0
		      ? run_all(&b, img)
		      : EXIT_FAIL;
	sqk_remove_tree(AT_FDCWD, tmp);
	return ret;
}
