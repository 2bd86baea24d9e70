// SPDX-License-Identifier: GPL-2.0-or-later
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "array.h"
#include "lab.h"
#include "data.h"
#include "error.h"
#include "format.h"
#include "image.h"
#include "inode.h"
#include "walk.h"

static const char *const names[SQK_WL_COUNT] = {"stat", "read", "mixed", "random", "seq"};

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

/* Indexing: a sink that only records regular files. */
struct index_sink {
	struct sqk_sink sink;
	struct sqk_lab_files *f;
	size_t path_cap, size_cap;
};

static int ix_dir(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	return 0;
}

static int ix_node(struct sqk_sink *s, const char *path, struct sqk_inode *ino, const char *link_to)
{
	struct index_sink *x = (struct index_sink *)s;
	struct sqk_lab_files *f = x->f;

	if (sqk_basic_type(ino->type) != SQK_FILE)
		return 0;
	if (SQK_ARRAY_GROW(f->path, x->path_cap, f->count + 1) ||
	    SQK_ARRAY_GROW(f->size, x->size_cap, f->count + 1))
		return SQK_ERR_NOMEM;
	f->path[f->count] = strdup(path);
	if (!f->path[f->count])
		return SQK_ERR_NOMEM;
	f->size[f->count++] = ino->size;
	return 0;
}

int sqk_lab_index(struct sqk_image *img, struct sqk_lab_files *f)
{
	struct index_sink x = {.sink = {.dir_begin = ix_dir, .dir_end = ix_dir, .node = ix_node},
			       .f = f};
	uint32_t bs = sqk_image_super(img)->block_size;
	struct sqk_walk w;
	size_t i;
	int err;

	memset(f, 0, sizeof(*f));
	memset(&w, 0, sizeof(w));
	w.img = img;
	w.sink = &x.sink;
	err = sqk_walk(&w);
	if (err)
		return err;
	f->small = calloc(f->count + 1, sizeof(*f->small));
	f->large = calloc(f->count + 1, sizeof(*f->large));
	if (!f->small || !f->large)
		return SQK_ERR_NOMEM;
	for (i = 0; i < f->count; i++) {
		if (f->size[i] <= bs)
			f->small[f->nsmall++] = i;
		else
			f->large[f->nlarge++] = i;
	}
	return 0;
}

void sqk_lab_files_free(struct sqk_lab_files *f)
{
	size_t i;

	for (i = 0; i < f->count; i++)
		free(f->path[i]);
	free(f->path);
	free(f->size);
	free(f->small);
	free(f->large);
	memset(f, 0, sizeof(*f));
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
	struct sqk_image *img;
	const struct sqk_lab_files *f;
	enum sqk_workload wl;
	uint64_t rng;
	uint64_t deadline;
	uint64_t ops, bytes, errors, max_ns;
	uint64_t vcsw, ivcsw;
	uint32_t *hist;
	uint8_t *buf;
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
	size_t r = (size_t)(next_rand(&w->rng) % (n ? n : w->f->count));

	return n ? set[r] : r;
}

/* Read a whole file in block-sized pieces, as read(2) of a page-cache-less reader would. */
static int read_file(struct worker *w, const struct sqk_inode *ino)
{
	uint32_t bs = sqk_image_super(w->img)->block_size;
	uint64_t off = 0;

	while (off < ino->size) {
		size_t got;
		int err = sqk_data_pread(w->img, ino, off, w->buf, bs, &got);

		if (err)
			return err;
		if (got == 0)
			break;
		off += got;
		w->bytes += got;
	}
	return 0;
}

static int one_op(struct worker *w)
{
	const struct sqk_lab_files *f = w->f;
	struct sqk_inode ino, again;
	size_t i;
	int err;

	switch (w->wl) {
	case SQK_WL_STAT:
		i = pick(w, NULL, 0);
		break;
	case SQK_WL_READ:
	case SQK_WL_MIXED:
		i = pick(w, f->small, f->nsmall);
		break;
	case SQK_WL_SEQ:
		i = pick(w, f->large, f->nlarge);
		break;
	default:
		i = pick(w, NULL, 0);
		break;
	}
	err = sqk_resolve(w->img, f->path[i], &ino);
	if (err)
		return err;
	if (w->wl != SQK_WL_STAT)
		err = read_file(w, &ino);
	if (!err && w->wl == SQK_WL_MIXED) {
		/* The stat after the read looks the inode up again. */
		err = sqk_inode_read(w->img, ino.ref, &again);
		if (!err)
			sqk_inode_free(&again);
	}
	sqk_inode_free(&ino);
	return err;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct rusage before, after;

	gate_wait(w->start);
	getrusage(RUSAGE_THREAD, &before);
	for (;;) {
		uint64_t t0 = now_ns(), dt;

		if (t0 >= w->deadline)
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

int sqk_lab_run(struct sqk_image *img, const struct sqk_lab_files *f, enum sqk_workload wl,
		unsigned threads, unsigned duration_ms, uint64_t seed, struct sqk_lab_result *r)
{
	struct worker *w = calloc(threads, sizeof(*w));
	uint64_t *hist = calloc(HIST_SIZE, sizeof(*hist));
	struct gate start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
	uint64_t t0, max_ns = 0;
	unsigned i, j, started = 0;
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (!w || !hist || f->count == 0) {
		free(w);
		free(hist);
		return f->count == 0 ? SQK_ERR_NOENT : SQK_ERR_NOMEM;
	}
	for (i = 0; i < threads; i++) {
		w[i].img = img;
		w[i].f = f;
		w[i].wl = wl;
		w[i].rng = seed * 0x9e3779b97f4a7c15ull + i + 1;
		w[i].start = &start;
		w[i].hist = calloc(HIST_SIZE, sizeof(*w[i].hist));
		w[i].buf = malloc(sqk_image_super(img)->block_size);
		w[i].deadline = UINT64_MAX;
		if (!w[i].hist || !w[i].buf)
			err = SQK_ERR_NOMEM;
	}
	for (i = 0; !err && i < threads; i++) {
		if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
			err = SQK_ERR_NOMEM;
			break;
		}
		started++;
	}
	/* Deadlines are set once all exist, so thread creation is not measured. */
	t0 = now_ns();
	for (i = 0; i < threads; i++)
		w[i].deadline = err ? 0 : t0 + (uint64_t)duration_ms * 1000000ull;
	gate_open(&start);
	for (i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	r->elapsed_ns = now_ns() - t0;
	for (i = 0; i < started; i++) {
		r->ops += w[i].ops;
		r->bytes += w[i].bytes;
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
		free(w[i].buf);
	}
	free(w);
	free(hist);
	return err;
}
