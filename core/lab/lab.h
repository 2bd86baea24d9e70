/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_LAB_H
#define SQK_LAB_H

/*
 * The cache laboratory's engine: a pool of threads runs one workload
 * against an open image for a while, through the image's shared caches,
 * and reports throughput, latency and context switches. The cache
 * counters are read from the image afterwards.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_image;

enum sqk_workload {
	SQK_WL_STAT,   /* lookup and stat of random paths: metadata only */
	SQK_WL_READ,   /* read whole small files */
	SQK_WL_MIXED,  /* open+read+stat+close of random small files */
	SQK_WL_RANDOM, /* read random files across the whole image */
	SQK_WL_SEQ,    /* stream large files */
	SQK_WL_COUNT,
};

const char *sqk_workload_name(enum sqk_workload w);
int sqk_workload_parse(const char *name, enum sqk_workload *out);

/* The files of an image, found once by a walk. */
struct sqk_lab_files {
	char **path;
	uint64_t *size;
	size_t count;
	size_t *small, nsmall; /* indexes of files no larger than a block */
	size_t *large, nlarge; /* indexes of files of several blocks */
};

int sqk_lab_index(struct sqk_image *img, struct sqk_lab_files *f);
void sqk_lab_files_free(struct sqk_lab_files *f);

struct sqk_lab_result {
	uint64_t ops, bytes, errors;
	uint64_t elapsed_ns;
	double p50_us, p99_us, max_us;
	uint64_t vcsw, ivcsw; /* voluntary and involuntary context switches, all workers */
};

/* Run workload with threads workers for duration_ms; seed makes the choices repeatable. */
int sqk_lab_run(struct sqk_image *img, const struct sqk_lab_files *f, enum sqk_workload wl,
		unsigned threads, unsigned duration_ms, uint64_t seed, struct sqk_lab_result *r);

#endif
