/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_CMD_BENCH_H
#define SQK_CMD_BENCH_H

/* squashkit bench: shared between the options, the runs, the default image and the output. */
#include <stdio.h>
#include <sys/types.h>

#include "cache/cache.h"
#include "reader.h"
#include "lab/lab.h"
#include "lab/lab_dev.h"
#include "read/image.h"

/* Where a cell ran: the model, the kernel's squashfs on a loop mount, or squashkit mount. */
enum bench_where { WHERE_MODEL, WHERE_KERNEL, WHERE_MOUNT, WHERE_COUNT };

const char *cli_bench_where_name(enum bench_where w);

/*
 * One cell of the comparison: medians over its runs. A figure a place
 * cannot give (the kernel's cache counters, the mount's device reads) is
 * NAN, and is written as null, empty or "-".
 */
struct bench_cell {
	enum sqk_workload workload;
	enum bench_where where;
	enum sqk_wait_policy policy; /* not for the kernel */
	unsigned threads;
	const char *decomp; /* NULL for the kernel: its own */
	unsigned meta, frag, data, comp;
	unsigned runs;
	double ops_per_s, mib_per_s, p50_us, p99_us, max_us;
	double releases, release_wakes, wake_calls, wakeups, wakeups_per_release, spurious,
		handoffs, stalls;
	double unclaimed_free_ms, vcsw, ivcsw, sys_cs, fills, refills, decompressions_per_block,
		hit_ratio;
	double meta_dpb,
		frag_dpb; /* decompressions per block of the metadata and fragment caches */
	double dev_reads_per_op, dev_mib_per_s, comp_cache_kib;
	double errors;
	/* An image read over HTTP: requests sent, MiB fetched, fetches saved, fetches per block. */
	double requests, fetched_mib, fetches_saved, fetches_per_block;
	/* throughput over the same series' at the previous thread count, and that over the kernel's
	 */
	double step, step_vs_kernel;
};

enum bench_format { FMT_TABLE, FMT_JSON, FMT_CSV };

struct bench_daemon {
	pid_t pid;
	char mnt[4096];
	char stats[4096]; /* its --stats file */
	char err[4096];	  /* its standard error */
};

#define BENCH_MAX_LIST 16

/* What to measure, and what is set up to measure it. */
struct bench {
	enum sqk_workload wl[BENCH_MAX_LIST];
	unsigned nwl;
	unsigned threads[BENCH_MAX_LIST];
	unsigned nthreads;
	enum sqk_wait_policy pol[3];
	unsigned npol;
	struct sqk_image_opts io;
	int data_set, percpu, cold, quiet, wide;
	int against[WHERE_COUNT]; /* the places besides the model */
	int slow;		  /* --slow-device */
	uint64_t slow_iops, slow_bps;
	unsigned duration_ms, runs;
	uint64_t seed;
	enum bench_format fmt;
	const char *plot;
	/* the session, from cli_bench_setup() to cli_bench_teardown() */
	const char *image;
	uint64_t offset;
	struct sqk_lab_files files;
	char scratch[2048]; /* mount points and the daemon's files */
	char kmnt[4096];
	struct sqk_lab_loop loop; /* for the kernel and the slow device */
	struct sqk_lab_throttle thr;
	struct bench_daemon daemon;
};

/* Where bench makes its scratch directories: $TMPDIR, else /dev/shm, else /tmp. */
const char *cli_bench_scratch_base(void);

/*
 * Index image's files and set up what the places and the slow device need:
 * 0, or -1 after printing why. cli_bench_teardown() takes it all down again,
 * whatever was reached; it is safe to call more than once.
 */
int cli_bench_setup(struct bench *b, const char *image);
void cli_bench_teardown(struct bench *b);
/* Measure the cells, interleaving the runs of the places: 0, or -1 (printed, or stopped). */
int cli_bench_measure(struct bench *b, struct bench_cell *cells, unsigned n);

/* What the report says about the run as a whole. */
struct bench_info {
	const char *image; /* the path, or the words for the embedded default */
	int default_image; /* built by bench from its embedded tree, and gone now */
	int cold, wide;	   /* --cold; --wide: every column of the table */
	unsigned cpus;
	double load[3];	    /* load averages when the bench started */
	const char *device; /* the slow device, if any */
	uint64_t slow_iops, slow_bps;
	int remote; /* the image is read over HTTP: the columns of its requests */
};

void cli_bench_print(FILE *out, enum bench_format fmt, const struct bench_info *info,
		     const struct bench_cell *cells, unsigned n);
/* An SVG: throughput and wakeups per release against threads, a line per series. */
int cli_bench_plot(const char *path, const struct bench_cell *cells, unsigned n);

/*
 * Build the embedded default image (a generated tree of small files in many
 * directories plus some large files) into dir/default.img with mkimage.
 * Returns 0 and the image path, or -1 after printing why.
 */
int cli_bench_default_image(const char *self, const char *dir, char *img, size_t len, int quiet);
/* The default image in words, for the report: its path is gone when bench ends. */
const char *cli_bench_default_name(void);

/*
 * The running binary by its real path, for what bench starts (mkimage, the
 * mount daemon): executed through /proc/self/exe it would show as "exe" in
 * ps. /proc/self/exe when the path cannot be read or the file is gone.
 */
const char *cli_bench_self(void);

/* ---- the mount leg: a squashkit mount daemon per run ---- */

/*
 * Start `squashkit mount -f` of image at d->mnt with the cell's cache,
 * policy, decompressor and a thread per reader; return once it is
 * mounted. 0, or -1 after printing why (nothing left running).
 */
int cli_bench_daemon_start(struct bench_daemon *d, const char *image, uint64_t offset,
			   const struct bench_cell *c);
/* Unmount, wait for the daemon and read its counters. 0, or -1 after printing why. */
int cli_bench_daemon_stop(struct bench_daemon *d, struct sqk_stats_read *stats);

#endif
