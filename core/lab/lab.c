// SPDX-License-Identifier: BSD-2-Clause
/*
 * The laboratory's runner: the workloads' choices (which file, which
 * block), the worker threads, the clock, the latency histogram and the
 * counters around a run. Where an operation runs is lab_model.c or
 * lab_vfs.c.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lab_int.h"
#include "read/image.h"
#include "util/error.h"
#include "util/file.h"

static const char *const names[SQK_WL_COUNT] = {"stat",	  "read", "mixed",
						"random", "seq",  "randread"};

/* Set by sqk_lab_stop(), from a signal handler as well. */
static int stop_requested;

void sqk_lab_stop(void)
{
	__atomic_store_n(&stop_requested, 1, __ATOMIC_RELAXED);
}

int sqk_lab_stopped(void)
{
	return __atomic_load_n(&stop_requested, __ATOMIC_RELAXED);
}

const char *sqk_workload_name(enum sqk_workload w)
{
	return (unsigned)w < SQK_WL_COUNT ? names[w] : "?";
}

int sqk_workload_parse(const char *name, enum sqk_workload *out)
{
	int i;

	for (i = 0; i < SQK_WL_COUNT; i++) {
		if (strcmp(names[i], name) == 0) {
			*out = (enum sqk_workload)i;
			return 0;
		}
	}
	return -1;
}

/* Latency histogram: 64 steps per power of two above 64 us; exact below. */
#define HIST_LINEAR 64
#define HIST_SUB    64
#define HIST_SIZE   (HIST_LINEAR + 40 * HIST_SUB)

static unsigned hist_index(uint64_t us)
{
	unsigned e;

	if (us < HIST_LINEAR)
		return (unsigned)us;
	e = 63 - (unsigned)__builtin_clzll(us); /* >= 6 */
	return HIST_LINEAR + (e - 6) * HIST_SUB + (unsigned)((us >> (e - 6)) & (HIST_SUB - 1));
}

static double hist_value(unsigned idx)
{
	unsigned e, m;

	if (idx < HIST_LINEAR)
		return idx;
	e = (idx - HIST_LINEAR) / HIST_SUB + 6;
	m = (idx - HIST_LINEAR) % HIST_SUB;
	return (double)((1ull << e) + ((uint64_t)m << (e - 6)));
}

struct worker {
	pthread_t thread;
	struct sqk_lab_io io;
	enum sqk_workload wl;
	uint64_t rng;
	uint64_t deadline;
	uint64_t ops, errors, max_ns;
	uint64_t vcsw, ivcsw;
	uint32_t *hist;
	struct gate *start;
};

/* Workers wait here until every one of them exists. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int open;
};

static void gate_wait(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*: cheap, and repeatable from the seed. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static size_t pick(struct worker *w, const size_t *set, size_t n)
{
	size_t r = (size_t)(next_rand(&w->rng) % (n ? n : w->io.f->count));

	return n ? set[r] : r;
}

/* The workload's choice for the next operation: a file, and for randread a block of it. */
static int one_op(struct worker *w)
{
	const struct sqk_lab_files *f = w->io.f;
	uint64_t off = 0, blocks;
	size_t i;

	switch (w->wl) {
	case SQK_WL_READ:
	case SQK_WL_MIXED:
		i = pick(w, f->small, f->nsmall);
		break;
	case SQK_WL_SEQ:
		i = pick(w, f->large, f->nlarge);
		break;
	case SQK_WL_RANDREAD:
		i = pick(w, f->large, f->nlarge);
		blocks = (f->size[i] + f->block_size - 1) / f->block_size;
		off = blocks ? next_rand(&w->rng) % blocks * f->block_size : 0;
		break;
	default:
		i = pick(w, NULL, 0);
		break;
	}
	if (w->io.t->root)
		return sqk_lab_vfs_op(&w->io, w->wl, i, off);
	return sqk_lab_model_op(&w->io, w->wl, i, off);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct rusage before, after;

	gate_wait(w->start);
	getrusage(RUSAGE_THREAD, &before);
	for (;;) {
		uint64_t t0 = now_ns(), dt;

		/*
		 * At least one operation each: on a busy machine a worker may
		 * first run after the deadline, and a run of nothing says nothing.
		 * A deadline of 0 is a run called off before it started.
		 */
		if (sqk_lab_stopped() || w->deadline == 0 || (w->ops && t0 >= w->deadline))
			break;
		if (one_op(w) != 0)
			w->errors++;
		dt = now_ns() - t0;
		w->ops++;
		if (dt > w->max_ns)
			w->max_ns = dt;
		w->hist[hist_index(dt / 1000)]++;
	}
	getrusage(RUSAGE_THREAD, &after);
	w->vcsw = (uint64_t)(after.ru_nvcsw - before.ru_nvcsw);
	w->ivcsw = (uint64_t)(after.ru_nivcsw - before.ru_nivcsw);
	return NULL;
}

static double percentile(const uint64_t *hist, uint64_t total, double q)
{
	uint64_t want = (uint64_t)(q * (double)total), seen = 0;
	unsigned i;

	for (i = 0; i < HIST_SIZE; i++) {
		seen += hist[i];
		if (seen > want)
			return hist_value(i);
	}
	return hist_value(HIST_SIZE - 1);
}

/* The system's context switches so far (/proc/stat), or 0. */
static uint64_t system_switches(void)
{
	FILE *fp = fopen("/proc/stat", "re");
	char line[256];
	unsigned long long v = 0;

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "ctxt %llu", &v) == 1)
			break;
	fclose(fp);
	return v;
}

/* Reads completed and sectors read by a block device so far; -1 if unknown. */
static int device_reads(const char *dev, int64_t *reads, int64_t *bytes)
{
	const char *name = strrchr(dev, '/');
	char path[PATH_MAX];
	unsigned long long r, merged, sectors;
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", name ? name + 1 : dev);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	n = fscanf(fp, "%llu %llu %llu", &r, &merged, &sectors);
	fclose(fp);
	if (n != 3)
		return -1;
	*reads = (int64_t)r;
	*bytes = (int64_t)sectors * 512;
	return 0;
}

/* What reached the device, or the image file, so far. */
static void device_counts(const struct sqk_lab_target *t, int64_t *reads, int64_t *bytes)
{
	struct sqk_file *file;

	*reads = *bytes = -1;
	if (t->blockdev) {
		device_reads(t->blockdev, reads, bytes);
	} else if (t->img) {
		file = sqk_image_file(t->img);
		*reads = (int64_t)__atomic_load_n(&file->reads, __ATOMIC_RELAXED);
		*bytes = (int64_t)__atomic_load_n(&file->bytes_read, __ATOMIC_RELAXED);
	}
}

int sqk_lab_run(const struct sqk_lab_target *t, const struct sqk_lab_files *f, enum sqk_workload wl,
		unsigned threads, unsigned duration_ms, uint64_t seed, struct sqk_lab_result *r)
{
	struct worker *w = calloc(threads, sizeof(*w));
	uint64_t *hist = calloc(HIST_SIZE, sizeof(*hist));
	struct gate start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
	uint64_t t0, max_ns = 0, cs0;
	int64_t reads0, bytes0, reads1, bytes1;
	unsigned i, j, started = 0;
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (!w || !hist || f->count == 0 || (wl == SQK_WL_RANDREAD && f->nlarge == 0)) {
		free(w);
		free(hist);
		return w && hist ? SQK_ERR_NOENT : SQK_ERR_NOMEM;
	}
	for (i = 0; i < threads; i++) {
		w[i].io.t = t;
		w[i].io.f = f;
		w[i].wl = wl;
		w[i].rng = seed * 0x9e3779b97f4a7c15ull + i + 1;
		w[i].start = &start;
		w[i].hist = calloc(HIST_SIZE, sizeof(*w[i].hist));
		w[i].io.buf = malloc(f->block_size);
		w[i].io.path = malloc(PATH_MAX);
		w[i].deadline = UINT64_MAX;
		if (!w[i].hist || !w[i].io.buf || !w[i].io.path)
			err = SQK_ERR_NOMEM;
	}
	for (i = 0; !err && i < threads; i++) {
		if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
			err = SQK_ERR_NOMEM;
			break;
		}
		started++;
	}
	device_counts(t, &reads0, &bytes0);
	cs0 = system_switches();
	/* Deadlines are set once all exist, so thread creation is not measured. */
	t0 = now_ns();
	for (i = 0; i < threads; i++)
		w[i].deadline = err ? 0 : t0 + (uint64_t)duration_ms * 1000000ull;
	gate_open(&start);
	for (i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	r->elapsed_ns = now_ns() - t0;
	r->sys_cs = system_switches() - cs0;
	device_counts(t, &reads1, &bytes1);
	r->dev_reads = reads0 < 0 || reads1 < 0 ? -1 : reads1 - reads0;
	r->dev_bytes = bytes0 < 0 || bytes1 < 0 ? -1 : bytes1 - bytes0;
	for (i = 0; i < started; i++) {
		r->ops += w[i].ops;
		r->bytes += w[i].io.bytes;
		r->errors += w[i].errors;
		r->vcsw += w[i].vcsw;
		r->ivcsw += w[i].ivcsw;
		if (w[i].max_ns > max_ns)
			max_ns = w[i].max_ns;
		for (j = 0; j < HIST_SIZE; j++)
			hist[j] += w[i].hist[j];
	}
	r->p50_us = percentile(hist, r->ops, 0.50);
	r->p99_us = percentile(hist, r->ops, 0.99);
	r->max_us = (double)max_ns / 1000.0;
	for (i = 0; i < threads; i++) {
		free(w[i].hist);
		free(w[i].io.buf);
		free(w[i].io.path);
	}
	free(w);
	free(hist);
	return err;
}
