/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_REMOTE_DISK_H
#define SQK_REMOTE_DISK_H

/*
 * The on-disk cache of fetched blocks (--cache-dir): one file per block,
 * named by the image's identity (URL, ETag or Last-Modified, size) and the
 * block's number, so that a changed image never finds the old one's
 * blocks. A block is written to a temporary file and renamed into place,
 * so a reader sees a whole block or none; the directory is kept under its
 * bound by removing the least recently used blocks, one user at a time
 * (flock on its lock file). Any number of processes may share it.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_remote_disk;

/* NULL when dir cannot be used (the reads then go to the server). */
struct sqk_remote_disk *sqk_remote_disk_open(const char *dir, uint64_t max, const char *identity);
void sqk_remote_disk_close(struct sqk_remote_disk *d);
/* Block n, len bytes, into buf: 0, or -1 when it is not there whole. */
int sqk_remote_disk_get(struct sqk_remote_disk *d, uint64_t n, void *buf, size_t len);
/* Keep block n (failures only mean it is not kept). */
void sqk_remote_disk_put(struct sqk_remote_disk *d, uint64_t n, const void *buf, size_t len);

#endif
