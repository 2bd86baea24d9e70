/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_SERVE_INT_H
#define SQK_SERVE_INT_H

/* Shared by serve.c (session and workers) and serve_ops.c (the operations). */
#include "serve.h"

struct fuse_session;
struct sqk_pool;

struct sqk_serve {
	struct sqk_fs *fs;
	struct fuse_session *se;
	char *mountpoint;
	double timeout;
	unsigned threads;
	int done_fd; /* an eventfd: a worker has stopped */
};

extern const struct fuse_lowlevel_ops serve_ops;

/* Free the calling worker's scratch buffer. */
void serve_scratch_free(void);

#endif
