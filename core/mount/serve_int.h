/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SERVE_INT_H
#define SQK_SERVE_INT_H

/* Shared by serve.c (session and threads), serve_ops.c, serve_store.c and serve_count.c. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "serve.h"

struct fuse_session;
struct sqk_fs_piece;
struct sqk_cache;
struct sqk_elastic;

/* Pushes of whole blocks into the page cache at once, and blocks pushed a moment ago. */
#define STORE_PUSHING 32
#define STORE_RECENT  16

struct store_push {
	uint64_t ino, off; /* ino 0: a free place */
	const struct sqk_cache *cache;
};

struct serve_store {
	struct fuse_session *se;
	struct sqk_elastic *workers; /* the threads serving, which may push */
	pthread_mutex_t lock;
	struct store_push pushing[STORE_PUSHING];
	struct {
		uint64_t ino, off;
	} recent[STORE_RECENT];
	unsigned recent_next;
	uint64_t pushed, skipped, dropped;
};

void sqk_serve_store_init(struct serve_store *st, struct fuse_session *se);
/*
 * Push the whole block p is a part of into the page cache, unless p is
 * all of it, or it is being pushed or was just pushed; not at all when as
 * many pushes as may be are under way (serve_store.c says why). The
 * caller has replied to its request and still holds p.
 */
void sqk_serve_store_push(struct serve_store *st, uint64_t ino, const struct sqk_fs_piece *p);
void sqk_serve_store_destroy(struct serve_store *st);

/*
 * Count the request (a FUSE request as read from the device) in counts,
 * by kind. 1 for a forget, which is answered at once and needs no thread
 * kept free behind it.
 */
int sqk_serve_count(uint64_t *counts, const void *request, size_t len);

struct sqk_serve {
	struct sqk_fs *fs;
	struct fuse_session *se;
	char *mountpoint;
	double timeout;
	unsigned threads, spare; /* at most, and kept when idle */
	int done_fd;		 /* an eventfd: a thread saw the end of the connection */
	int no_open;		 /* the kernel reads files without opening them here */
	int no_opendir;		 /* and directories */
	struct serve_store store;
	struct sqk_elastic *workers;
	void (*report)(struct sqk_serve *s, void *arg);
	void *report_arg;
	struct sqk_serve_stats stats; /* requests counted as they come; the rest at the end */
};

extern const struct fuse_lowlevel_ops sqk_serve_ops;

/* Room for size bytes of reply in the calling thread's scratch, or NULL. */
char *sqk_serve_scratch(size_t size);

#endif
