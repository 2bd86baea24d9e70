/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_CMD_BENCH_H
#define SQK_CMD_BENCH_H

/* squashkit bench: shared between the runner, the default image and the output. */
#include <stdio.h>

#include "lab.h"
#include "cache.h"

/* One cell of the comparison: medians over its runs. */
struct bench_cell {
	enum sqk_workload workload;
	enum sqk_wait_policy policy;
	unsigned threads;
	const char *decomp;
	unsigned meta, frag, data;
	unsigned runs;
	double ops_per_s, mib_per_s, p50_us, p99_us, max_us;
	double releases, release_wakes, wake_calls, wakeups, wakeups_per_release, spurious,
		handoffs, stalls;
	double unclaimed_free_ms, vcsw, ivcsw, fills, refills, decompressions_per_block, hit_ratio;
	double meta_dpb,
		frag_dpb; /* decompressions per block of the metadata and fragment caches */
	double errors;
};

enum bench_format { FMT_TABLE, FMT_JSON, FMT_CSV };

void bench_print(FILE *out, enum bench_format fmt, const char *image, unsigned cpus,
		 const struct bench_cell *cells, unsigned n);
/* An SVG: throughput and wakeups per release against threads, a line per policy. */
int bench_plot(const char *path, const struct bench_cell *cells, unsigned n);

/*
 * Build the embedded default image (a generated tree of small files in many
 * directories plus some large files) into dir/default.img with mkimage.
 * Returns 0 and the image path, or -1 after printing why.
 */
int bench_default_image(const char *self, const char *dir, char *img, size_t len, int quiet);

#endif
