// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit bench's runs: one run of a cell in its place (the model, the
 * kernel's squashfs on a loop mount, or squashkit mount), the medians over
 * the runs, and the session that sets up and takes down what the places
 * need. The runs of the places are interleaved, so that noise on a shared
 * machine falls on all of them alike.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <squashkit/remote.h>

#include "bench_cmd.h"
#include "cmd.h"
#include "imageopt.h"
#include "util/error.h"

static const char *const where_names[WHERE_COUNT] = {"model", "kernel", "mount"};

const char *cli_bench_where_name(enum bench_where w)
{
	return (unsigned)w < WHERE_COUNT ? where_names[w] : "?";
}

/* Per-run figures of one cell; medians go into the cell. */
// clang-format off
#define RUN_FIELDS(X)                                                                              \
	X(ops_per_s) X(mib_per_s) X(p50_us) X(p99_us) X(max_us) X(releases) X(release_wakes)      \
	X(wake_calls) X(wakeups) X(wakeups_per_release) X(spurious) X(handoffs) X(stalls)          \
	X(unclaimed_free_ms) X(vcsw) X(ivcsw) X(sys_cs) X(fills) X(refills)                        \
	X(decompressions_per_block) X(meta_dpb) X(frag_dpb) X(hit_ratio) X(dev_reads_per_op)       \
	X(dev_mib_per_s) X(comp_cache_kib) X(errors) X(requests) X(fetched_mib)                   \
	X(fetches_saved) X(fetches_per_block)
// clang-format on

struct run_values {
#define DECL(k) double k[64];
	RUN_FIELDS(DECL)
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the measured values; NAN when none was measured. */
static double median(double *v, unsigned n)
{
	unsigned i, m = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	if (m == 0)
		return NAN;
	qsort(v, m, sizeof(*v), cmp_double);
	return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* The cache counters of a run, from the image or from the daemon. */
static void from_caches(struct run_values *rv, unsigned run, const struct sqk_cache_stats *s,
			const int *present)
{
	struct sqk_cache_stats sum;
	struct sqk_cache_rates r;
	int i;

#define ZERO(k) rv->k[run] = 0;
	RUN_FIELDS(ZERO)
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < SQK_CACHE_COUNT; i++, s++) {
		if (!present[i])
			continue;
		sqk_cache_stats_add(&sum, s);
		sqk_cache_rates(s, &r);
		if (i == SQK_CACHE_METADATA)
			rv->meta_dpb[run] = r.per_block;
		if (i == SQK_CACHE_FRAGMENT)
			rv->frag_dpb[run] = r.per_block;
		if (i == SQK_CACHE_COMPRESSED)
			rv->comp_cache_kib[run] = (double)s->held / 1024.0;
	}
	/*
	 * As the background's trace counts it: wakeups delivered per release
	 * that woke anyone. A release with nobody asleep costs no wakeup.
	 */
	sqk_cache_rates(&sum, &r);
	rv->releases[run] = (double)sum.releases;
	rv->release_wakes[run] = (double)sum.release_wakes;
	rv->wake_calls[run] = (double)sum.wake_calls;
	rv->wakeups[run] = (double)r.wakeups;
	rv->spurious[run] = (double)sum.spurious;
	rv->handoffs[run] = (double)sum.handoffs;
	rv->stalls[run] = (double)sum.stalls;
	rv->unclaimed_free_ms[run] = r.unclaimed_ms;
	rv->fills[run] = (double)sum.fills;
	rv->refills[run] = (double)sum.refills;
	rv->wakeups_per_release[run] = r.per_release;
	rv->decompressions_per_block[run] = r.per_block;
	rv->hit_ratio[run] = r.hit_ratio;
}

/* The kernel's caches are out of sight: every cache figure unknown. */
static void no_caches(struct run_values *rv, unsigned run)
{
#define UNKNOWN(k) rv->k[run] = NAN;
	RUN_FIELDS(UNKNOWN)
}

/* What the requests of an image read over HTTP came to (NAN for others: no such figures). */
static void remote_figures(struct run_values *rv, unsigned run, const struct sqk_image *img)
{
	uint64_t req, bytes, saved, blocks, distinct;

	if (!img || sqk_image_remote_counter(img, "requests", &req) ||
	    sqk_image_remote_counter(img, "bytes_fetched", &bytes) ||
	    sqk_image_remote_counter(img, "fetches_shared", &saved) ||
	    sqk_image_remote_counter(img, "blocks_fetched", &blocks) ||
	    sqk_image_remote_counter(img, "distinct_blocks", &distinct)) {
		rv->requests[run] = rv->fetched_mib[run] = rv->fetches_saved[run] = NAN;
		rv->fetches_per_block[run] = NAN;
		return;
	}
	rv->requests[run] = (double)req;
	rv->fetched_mib[run] = (double)bytes / 1048576.0;
	rv->fetches_saved[run] = (double)saved;
	rv->fetches_per_block[run] = distinct ? (double)blocks / (double)distinct : NAN;
}

static struct sqk_image *open_model(struct bench *b, const struct sqk_image_opts *io)
{
	struct sqk_image *img;
	struct sqk_file *f;
	int err = 0;

	if (!b->slow)
		return cli_open_image_reader(b->image, io);
	/* On the slow device the page cache may not stand in for the device. */
	f = sqk_file_open(b->loop.dev, SQK_FILE_DIRECT, &err);
	if (f)
		err = sqk_image_open(f, io, &img);
	if (err) {
		cli_error_code(b->loop.dev, err);
		return NULL;
	}
	return img;
}

static int run_model(struct bench *b, const struct bench_cell *cell, unsigned run,
		     struct run_values *rv, struct sqk_lab_result *r)
{
	struct sqk_image_opts io = b->io;
	struct sqk_lab_target t = {NULL, NULL, b->slow ? b->loop.dev : NULL};
	struct sqk_cache_stats s[SQK_CACHE_COUNT];
	int present[SQK_CACHE_COUNT] = {0}, i, err;

	io.policy = cell->policy;
	io.data_entries = cell->data;
	io.decompressors = b->percpu ? cell->threads : 1;
	if (b->cold && !b->slow)
		sqk_lab_drop_cache(b->image);
	t.img = open_model(b, &io);
	if (!t.img)
		return -1;
	err = sqk_lab_run(&t, &b->files, cell->workload, cell->threads, b->duration_ms,
			  b->seed + run, r);
	if (err) {
		cli_error_code(b->image, err);
		sqk_image_destroy(t.img);
		return -1;
	}
	for (i = 0; i < SQK_CACHE_COUNT; i++) {
		present[i] = sqk_image_cache(t.img, i) != NULL;
		if (present[i])
			sqk_cache_stats(sqk_image_cache(t.img, i), &s[i]);
	}
	from_caches(rv, run, s, present);
	remote_figures(rv, run, t.img);
	sqk_image_destroy(t.img);
	if (!present[SQK_CACHE_COMPRESSED])
		rv->comp_cache_kib[run] = 0;
	rv->vcsw[run] = (double)r->vcsw;
	rv->ivcsw[run] = (double)r->ivcsw;
	return 0;
}

/* A fresh mount per run, as the model opens the image afresh: the kernel's caches start empty. */
static int run_kernel(struct bench *b, const struct bench_cell *cell, unsigned run,
		      struct run_values *rv, struct sqk_lab_result *r)
{
	struct sqk_lab_target t = {NULL, b->kmnt, b->loop.dev};
	int err;

	if (b->cold) {
		sqk_lab_drop_cache(b->image);
		sqk_lab_loop_flush(&b->loop);
	}
	if (sqk_lab_mount(b->loop.dev, b->kmnt) != 0) {
		cli_error(b->loop.dev, "cannot mount it at %s: %s", b->kmnt, strerror(errno));
		return -1;
	}
	err = sqk_lab_run(&t, &b->files, cell->workload, cell->threads, b->duration_ms,
			  b->seed + run, r);
	if (sqk_lab_umount(b->kmnt) != 0) {
		cli_error(b->kmnt, "cannot unmount: %s", strerror(errno));
		return -1;
	}
	if (err) {
		cli_error_code(b->kmnt, err);
		return -1;
	}
	no_caches(rv, run);
	rv->vcsw[run] = (double)r->vcsw;
	rv->ivcsw[run] = (double)r->ivcsw;
	return 0;
}

/* A daemon per run; its own counters, and its context switches (where the cache waits). */
static int run_mount(struct bench *b, const struct bench_cell *cell, unsigned run,
		     struct run_values *rv, struct sqk_lab_result *r)
{
	struct sqk_lab_target t = {NULL, b->daemon.mnt, NULL};
	struct sqk_stats_read st;
	int err;

	if (b->cold)
		sqk_lab_drop_cache(b->image);
	if (cli_bench_daemon_start(&b->daemon, b->image, b->offset, cell) != 0)
		return -1;
	err = sqk_lab_run(&t, &b->files, cell->workload, cell->threads, b->duration_ms,
			  b->seed + run, r);
	if (cli_bench_daemon_stop(&b->daemon, &st) != 0)
		return -1;
	if (err) {
		cli_error_code(b->daemon.mnt, err);
		return -1;
	}
	from_caches(rv, run, st.cache, st.present);
	remote_figures(rv, run, NULL);
	rv->vcsw[run] = (double)st.vcsw;
	rv->ivcsw[run] = (double)st.ivcsw;
	return 0;
}

static int run_once(struct bench *b, const struct bench_cell *cell, unsigned run,
		    struct run_values *rv)
{
	static int (*const place[WHERE_COUNT])(struct bench *, const struct bench_cell *, unsigned,
					       struct run_values *, struct sqk_lab_result *) = {
		run_model, run_kernel, run_mount};
	struct sqk_lab_result r;
	double secs;

	if (place[cell->where](b, cell, run, rv, &r) != 0)
		return -1;
	secs = (double)(r.elapsed_ns ? r.elapsed_ns : 1) / 1e9;
	rv->ops_per_s[run] = (double)r.ops / secs;
	rv->mib_per_s[run] = (double)r.bytes / 1048576.0 / secs;
	rv->p50_us[run] = r.p50_us;
	rv->p99_us[run] = r.p99_us;
	rv->max_us[run] = r.max_us;
	rv->sys_cs[run] = (double)r.sys_cs;
	rv->errors[run] = (double)r.errors;
	rv->dev_reads_per_op[run] =
		r.dev_reads < 0 ? NAN : (double)r.dev_reads / (double)(r.ops ? r.ops : 1);
	rv->dev_mib_per_s[run] = r.dev_bytes < 0 ? NAN : (double)r.dev_bytes / 1048576.0 / secs;
	return 0;
}

/* "bench: [3/9] mixed mount/keyed 16 threads" */
static void cell_name(const struct bench_cell *c, unsigned i, unsigned n)
{
	fprintf(stderr, "bench: [%u/%u] %s ", i + 1, n, sqk_workload_name(c->workload));
	if (c->where == WHERE_KERNEL)
		fprintf(stderr, "kernel");
	else
		fprintf(stderr, "%s%s", c->where == WHERE_MOUNT ? "mount/" : "",
			sqk_policy_name(c->policy));
	fprintf(stderr, " %u thread%s", c->threads, c->threads == 1 ? "" : "s");
}

/* A run of a cell as it ends, when the cell has more than one: something to see early. */
static void run_line(const struct bench *b, const struct bench_cell *c, unsigned i, unsigned n,
		     unsigned run, const struct run_values *rv)
{
	if (b->quiet || b->runs < 2)
		return;
	cell_name(c, i, n);
	fprintf(stderr, ", run %u/%u: %.0f ops/s\n", run + 1, b->runs, rv->ops_per_s[run]);
}

/* A cell as soon as its last run ends: its medians. */
static void cell_line(const struct bench *b, const struct bench_cell *c, unsigned i, unsigned n)
{
	if (b->quiet)
		return;
	cell_name(c, i, n);
	fprintf(stderr, " ... %.0f ops/s", c->ops_per_s);
	if (!isnan(c->wakeups_per_release))
		fprintf(stderr, ", %.2f wakeups/release", c->wakeups_per_release);
	fputc('\n', stderr);
}

int cli_bench_measure(struct bench *b, struct bench_cell *cells, unsigned n)
{
	struct run_values *rv = calloc(n, sizeof(*rv));
	unsigned g, end, i, run;
	int ret = 0;

	if (!rv) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return -1;
	}
	/*
	 * A group: the cells of one workload and thread count, in every place,
	 * their runs interleaved. A cell is told of as each run ends, and with
	 * its medians once its last run has.
	 */
	for (g = 0; g < n && !ret; g = end) {
		for (end = g; end < n && cells[end].workload == cells[g].workload &&
			      cells[end].threads == cells[g].threads;
		     end++)
			;
		for (run = 0; run < b->runs && !ret; run++)
			for (i = g; i < end && !ret; i++) {
				if (run_once(b, &cells[i], run, &rv[i]) != 0 || sqk_lab_stopped()) {
					ret = -1;
					break;
				}
				run_line(b, &cells[i], i, n, run, &rv[i]);
				if (run + 1 < b->runs)
					continue;
#define MEDIAN(k) cells[i].k = median(rv[i].k, b->runs);
				RUN_FIELDS(MEDIAN)
				cell_line(b, &cells[i], i, n);
			}
	}
	free(rv);
	return ret;
}

/* ---- the session ---- */

static int make_dir(const char *path)
{
	if (mkdir(path, 0700) == 0)
		return 0;
	cli_error(path, "%s", strerror(errno));
	return -1;
}

const char *cli_bench_scratch_base(void)
{
	const char *base = getenv("TMPDIR");

	if (!base && access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	return base ? base : "/tmp";
}

int cli_bench_setup(struct bench *b, const char *image)
{
	char full[PATH_MAX];
	struct sqk_image *img;
	int err;

	b->image = image;
	b->loop.fd = -1;
	img = cli_open_image_reader(image, &b->io);
	if (!img)
		return -1;
	err = sqk_lab_index(img, &b->files);
	if (err || b->files.count == 0) {
		/* An I/O error in the words of the image's errno, while it is open. */
		cli_error(image, "%s",
			  err ? cli_image_err_text(img, err) : "the image holds no files");
		sqk_image_destroy(img);
		return -1;
	}
	sqk_image_destroy(img);
	/* Where --offset auto found it, now that it has been found. */
	b->offset = cli_offset_value();
	if (!b->against[WHERE_KERNEL] && !b->against[WHERE_MOUNT] && !b->slow)
		return 0;

	snprintf(b->scratch, sizeof(b->scratch), "%s/%s.%d.XXXXXX", cli_bench_scratch_base(),
		 SQK_LAB_TAG, (int)getpid());
	if (!mkdtemp(b->scratch)) {
		cli_error(b->scratch, "%s", strerror(errno));
		b->scratch[0] = '\0';
		return -1;
	}
	/* The mount table names mount points by their real paths. */
	errno = 0;
	if (!realpath(b->scratch, full) || strlen(full) >= sizeof(b->scratch)) {
		cli_error(b->scratch, "%s", errno ? strerror(errno) : "path too long");
		rmdir(b->scratch);
		b->scratch[0] = '\0';
		return -1;
	}
	memcpy(b->scratch, full, strlen(full) + 1);
	snprintf(b->kmnt, sizeof(b->kmnt), "%s/kernel", b->scratch);
	snprintf(b->daemon.mnt, sizeof(b->daemon.mnt), "%s/mount", b->scratch);
	snprintf(b->daemon.stats, sizeof(b->daemon.stats), "%s/mount.stats", b->scratch);
	snprintf(b->daemon.err, sizeof(b->daemon.err), "%s/mount.err", b->scratch);
	if ((b->against[WHERE_KERNEL] && make_dir(b->kmnt) != 0) ||
	    (b->against[WHERE_MOUNT] && make_dir(b->daemon.mnt) != 0))
		return -1;
	if (b->against[WHERE_KERNEL] || b->slow) {
		if (sqk_lab_loop_attach(image, b->offset, &b->loop) != 0) {
			cli_error(image, "cannot set up a loop device: %s", strerror(errno));
			return -1;
		}
	}
	if (b->slow) {
		err = sqk_lab_throttle_start(&b->loop, b->slow_iops, b->slow_bps, &b->thr);
		if (err == SQK_ERR_UNSUPPORTED) {
			cli_error(b->loop.dev,
				  "cannot slow it down: no cgroup hierarchy with the io "
				  "controller (blkio) is mounted");
			return -1;
		}
		if (err) {
			cli_error(b->loop.dev, "cannot slow it down: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

void cli_bench_teardown(struct bench *b)
{
	if (b->daemon.pid > 0) {
		struct sqk_stats_read st;

		cli_bench_daemon_stop(&b->daemon, &st);
	}
	if (b->kmnt[0] && sqk_lab_mounted(b->kmnt) > 0)
		sqk_lab_umount(b->kmnt);
	sqk_lab_throttle_end(&b->thr);
	sqk_lab_loop_detach(&b->loop);
	/* One by one, never a recursive removal that could walk into a mount still there. */
	if (b->scratch[0]) {
		unlink(b->daemon.stats);
		unlink(b->daemon.err);
		rmdir(b->kmnt);
		rmdir(b->daemon.mnt);
		rmdir(b->scratch);
		b->scratch[0] = '\0';
	}
	sqk_lab_files_free(&b->files);
}
