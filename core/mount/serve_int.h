/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_SERVE_INT_H
#define SQK_SERVE_INT_H

/* Shared by serve.c (session and workers), sqk_serve_ops.c and serve_store.c. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "serve.h"

struct fuse_session;
struct sqk_fs_piece;

/* Blocks on their way into the page cache (serve_store.c). */
#define STORE_SLOTS 8

struct store_slot {
	uint64_t ino, off;
	size_t len;
	uint8_t *buf;
};

struct serve_store {
	struct fuse_session *se;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct store_slot slot[STORE_SLOTS];
	unsigned head, count;
	size_t cap;
	int stop, running;
	uint64_t pushed, dropped;
};

int sqk_serve_store_start(struct serve_store *st, struct fuse_session *se, size_t block_size);
/* Queue a copy of p's block for the page cache; dropped when the queue is full. */
void sqk_serve_store_offer(struct serve_store *st, uint64_t ino, const struct sqk_fs_piece *p);
void sqk_serve_store_stop(struct serve_store *st);

struct sqk_serve {
	struct sqk_fs *fs;
	struct fuse_session *se;
	char *mountpoint;
	double timeout;
	unsigned threads;
	int done_fd;	/* an eventfd: a worker has stopped */
	int no_open;	/* the kernel reads files without opening them here */
	int no_opendir; /* and directories */
	struct serve_store store;
};

extern const struct fuse_lowlevel_ops sqk_serve_ops;

/* Free the calling worker's scratch buffer. */
void sqk_serve_scratch_free(void);

#endif
