/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_POOL_H
#define SQK_POOL_H

/*
 * A fixed pool of worker threads fed from one bounded FIFO queue. Each
 * task learns the index of the worker that runs it (0..threads-1), so it
 * can use per-worker state such as a compressor instance. submit() blocks
 * while the queue is full, which keeps producers from running ahead of the
 * workers and bounds memory.
 */
#include <stddef.h>

struct sqk_pool;

typedef void (*sqk_task_fn)(void *arg, unsigned worker);

/* threads >= 1; queue_max 0 picks 4 tasks per thread. NULL on failure. */
struct sqk_pool *sqk_pool_create(unsigned threads, unsigned queue_max);
/* Queue a task; 0 or SQK_ERR_NOMEM. */
int sqk_pool_submit(struct sqk_pool *p, sqk_task_fn fn, void *arg);
/* Wait until every submitted task has finished. */
void sqk_pool_wait(struct sqk_pool *p);
/* Wait, then stop and join the workers. NULL is allowed. */
void sqk_pool_destroy(struct sqk_pool *p);

/* Online CPUs, at least 1: the default for -j. */
unsigned sqk_online_cpus(void);

#endif
