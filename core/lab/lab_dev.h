/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_LAB_DEV_H
#define SQK_LAB_DEV_H

/*
 * What the laboratory sets up beside the model, and takes down again: a
 * loop device over the image, kernel mounts of it, the page cache dropped,
 * a throttle that makes the loop device as slow as flash, and the sweep of
 * what a run that was killed left behind. Everything here needs root.
 * Errors: SQK_ERR_IO with errno kept, SQK_ERR_UNSUPPORTED where this
 * system lacks the means, SQK_ERR_NOMEM.
 */
#include <stdint.h>

/*
 * A read-only loop device over path from offset on. It clears itself
 * once the last user lets go: a mount of it, or the descriptor held here.
 */
struct sqk_lab_loop {
	int fd;
	char dev[32];
	unsigned major, minor;
};

int sqk_lab_loop_attach(const char *path, uint64_t offset, struct sqk_lab_loop *l);
/* Let go of the device (it detaches itself once unmounted). No-op when not attached. */
void sqk_lab_loop_detach(struct sqk_lab_loop *l);
/* Drop the device's own page cache (BLKFLSBUF). */
int sqk_lab_loop_flush(struct sqk_lab_loop *l);

/* Mount the squashfs on dev read-only at dir, as `mount -t squashfs -o ro` does. */
int sqk_lab_mount(const char *dev, const char *dir);
/* Unmount dir; one still busy after a few tries is detached lazily. */
int sqk_lab_umount(const char *dir);
/*
 * Is something mounted at dir, an absolute path without symlinks, as
 * /proc/self/mountinfo names it? 1, 0, or an error.
 */
int sqk_lab_mounted(const char *dir);

/* Drop path's pages from the page cache (cold runs). */
int sqk_lab_drop_cache(const char *path);

/*
 * The slow device: read IOPS and bytes per second (0: no limit) on the loop
 * device, for this process only, by the block layer's throttle (a cgroup
 * of its own: blkio.throttle in cgroup v1, io.max in v2). Every read the
 * process and the kernel make for it from then on waits its turn.
 */
struct sqk_lab_throttle {
	char dir[4096];	 /* the cgroup made for this process */
	char home[4096]; /* the one it came from */
	int active;
};

int sqk_lab_throttle_start(const struct sqk_lab_loop *l, uint64_t iops, uint64_t bps,
			   struct sqk_lab_throttle *t);
/* Back to the process's own cgroup, and the throttle's removed. No-op when not active. */
int sqk_lab_throttle_end(struct sqk_lab_throttle *t);

/*
 * Names that tie what a run sets up to its process: scratch directories
 * and cgroups are called SQK_LAB_TAG.PID[.anything].
 */
#define SQK_LAB_TAG "squashkit-bench"

/*
 * Take down what runs that ended without cleaning up (killed) left behind:
 * mounts under their scratch directories (the loop devices and daemons
 * behind them go with them), their cgroups, and their scratch directories
 * in base. Returns how many were found.
 */
int sqk_lab_sweep(const char *base);

#endif
