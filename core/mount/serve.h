/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SERVE_H
#define SQK_SERVE_H

/*
 * The FUSE side of a mount: a low-level session over a file-system
 * object, served by threads that follow the load. Only this part knows
 * libfuse.
 */
#include <stdint.h>

struct sqk_fs;
struct sqk_serve;

struct sqk_serve_opts {
	unsigned threads;   /* at most this many threads serve requests at once */
	double timeout;	    /* seconds the kernel may keep names and attributes */
	int allow_other;    /* let every user in, as a kernel mount does */
	const char *fsname; /* the source column of the mount table */
	/* Called on SIGUSR1 while serving (may be NULL), e.g. to write the counters so far. */
	void (*report)(struct sqk_serve *s, void *arg);
	void *report_arg;
};

/* libfuse's messages go to fn (one line each, without the newline). */
void sqk_serve_log(void (*fn)(const char *line));

/* Create the session and mount it at mountpoint. 0, or SQK_ERR_IO (libfuse logged why). */
int sqk_serve_mount(struct sqk_fs *fs, const char *mountpoint, const struct sqk_serve_opts *o,
		    struct sqk_serve **out);

/* Detach from the terminal as mount tools do (no-op when foreground). 0 or SQK_ERR_IO. */
int sqk_serve_daemonize(int foreground);

/*
 * Serve until the mount goes away, or until SIGINT, SIGTERM or SIGHUP,
 * which unmount it (lazily: files still open keep being served); SIGUSR1
 * calls the report. Those signals stay blocked in the calling thread
 * afterwards.
 */
int sqk_serve_run(struct sqk_serve *s);
void sqk_serve_destroy(struct sqk_serve *s);

/* Request kinds counted (serve_count.c), with room to spare. */
#define SQK_SERVE_KINDS 32

/* What serving did, for --stats. */
struct sqk_serve_stats {
	uint64_t requests[SQK_SERVE_KINDS]; /* by kind, see sqk_serve_kind_name() */
	unsigned threads_max, threads_peak;
	uint64_t threads_started, threads_retired;
	/* Blocks pushed into the page cache; skipped: on their way already; dropped: no room. */
	uint64_t pushed, push_skipped, push_dropped;
};

/* The name of request kind i ("lookup", "read"...), NULL past the last one. */
const char *sqk_serve_kind_name(unsigned i);
/* The counters so far, while serving too (final once sqk_serve_run() has returned). */
void sqk_serve_stats(struct sqk_serve *s, struct sqk_serve_stats *out);

/*
 * Is the topmost mount at path (absolute, symlinks resolved, as the mount
 * table writes it) one that a squashkit mount serves? 1 or 0, or
 * SQK_ERR_IO when the table cannot be read.
 */
int sqk_serve_is_mounted(const char *path);

/*
 * Unmount the FUSE file system at mountpoint: umount(2) as root, else
 * fusermount3 -u. lazy detaches it while files are still open.
 */
int sqk_serve_unmount(const char *mountpoint, int lazy);

#endif
