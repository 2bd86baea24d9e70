/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_LAB_H
#define SQK_LAB_H

/*
 * The cache laboratory's engine: a pool of threads runs one workload for a
 * while and reports throughput, latency and context switches. The same
 * workload runs in one of two places: through an open image's shared
 * caches (the model), or through the VFS on a directory where the image is
 * mounted (the kernel's squashfs, or squashkit mount), with the same
 * choices of files from the same seed. Cache counters are read from the
 * image, or from the daemon, afterwards.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_image;

enum sqk_workload {
	SQK_WL_STAT,	 /* lookup and stat of random paths: metadata only */
	SQK_WL_READ,	 /* read whole small files */
	SQK_WL_MIXED,	 /* open+read+stat+close of random small files */
	SQK_WL_RANDOM,	 /* read random files across the whole image */
	SQK_WL_SEQ,	 /* stream large files */
	SQK_WL_RANDREAD, /* one block at a random offset of a large file (fio's randread) */
	SQK_WL_COUNT,
};

const char *sqk_workload_name(enum sqk_workload w);
int sqk_workload_parse(const char *name, enum sqk_workload *out);

/* The files of an image, found once by a walk; paths are relative to its root. */
struct sqk_lab_files {
	char **path;
	uint64_t *size;
	size_t count;
	size_t *small, nsmall; /* indexes of files no larger than a block */
	size_t *large, nlarge; /* indexes of files of several blocks */
	uint32_t block_size;
};

int sqk_lab_index(struct sqk_image *img, struct sqk_lab_files *f);
void sqk_lab_files_free(struct sqk_lab_files *f);

/* Where a workload runs: exactly one of img and root. */
struct sqk_lab_target {
	struct sqk_image *img; /* the model: the image's own caches */
	const char *root;      /* the VFS: stat, open, read and close under this directory */
	/*
	 * The block device the image is read from, if any (e.g. "/dev/loop3"):
	 * its reads are counted from /sys/class/block. Without one, the
	 * model's reads of its image file are counted.
	 */
	const char *blockdev;
};

struct sqk_lab_result {
	uint64_t ops, bytes, errors;
	uint64_t elapsed_ns;
	double p50_us, p99_us, max_us;
	uint64_t vcsw, ivcsw; /* voluntary and involuntary context switches, all workers */
	uint64_t sys_cs;      /* context switches of the whole system during the run */
	/* Reads that reached the device (or the image file), and their bytes; -1: unknown */
	int64_t dev_reads, dev_bytes;
};

/*
 * Run workload with threads workers for duration_ms; seed makes the
 * choices repeatable. Returns early, with what was measured, after
 * sqk_lab_stop().
 */
int sqk_lab_run(const struct sqk_lab_target *t, const struct sqk_lab_files *f, enum sqk_workload wl,
		unsigned threads, unsigned duration_ms, uint64_t seed, struct sqk_lab_result *r);

/* Ask every run to end now; safe in a signal handler. */
void sqk_lab_stop(void);
int sqk_lab_stopped(void);

#endif
