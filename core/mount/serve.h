/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_SERVE_H
#define SQK_SERVE_H

/*
 * The FUSE side of a mount: a low-level session over a file-system
 * object, served by the worker pool's threads. Only this part knows
 * libfuse.
 */
struct sqk_fs;

struct sqk_serve_opts {
	unsigned threads;   /* workers reading requests; each does its own decompression */
	double timeout;	    /* seconds the kernel may keep names and attributes */
	int allow_other;    /* let every user in, as a kernel mount does */
	const char *fsname; /* the source column of the mount table */
};

struct sqk_serve;

/* libfuse's messages go to fn (one line each, without the newline). */
void sqk_serve_log(void (*fn)(const char *line));

/* Create the session and mount it at mountpoint. 0, or SQK_ERR_IO (libfuse logged why). */
int sqk_serve_mount(struct sqk_fs *fs, const char *mountpoint, const struct sqk_serve_opts *o,
		    struct sqk_serve **out);

/* Detach from the terminal as mount tools do (no-op when foreground). 0 or SQK_ERR_IO. */
int sqk_serve_daemonize(int foreground);

/*
 * Serve until the mount goes away, or until SIGINT, SIGTERM or SIGHUP,
 * which unmount it (lazily: files still open keep being served). Those
 * signals stay blocked in the calling thread afterwards.
 */
int sqk_serve_run(struct sqk_serve *s);
void sqk_serve_destroy(struct sqk_serve *s);

/*
 * Unmount the FUSE file system at mountpoint: umount(2) as root, else
 * fusermount3 -u. lazy detaches it while files are still open.
 */
int sqk_serve_unmount(const char *mountpoint, int lazy);

#endif
