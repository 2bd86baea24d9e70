// SPDX-License-Identifier: BSD-2-Clause
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"
#include "pool.h"

struct task {
	sqk_task_fn fn;
	void *arg;
};

struct worker {
	struct sqk_pool *pool;
	pthread_t thread;
	unsigned index;
};

struct sqk_pool {
	pthread_mutex_t lock;
	pthread_cond_t not_empty; /* workers wait here for tasks */
	pthread_cond_t not_full;  /* submitters wait here for room */
	pthread_cond_t idle;	  /* sqk_pool_wait() waits here */
	struct task *ring;
	unsigned cap, head, count;
	unsigned running; /* tasks taken but not finished */
	int stopping;
	unsigned nthreads;
	struct worker *workers;
};

static void *worker_main(void *p)
{
	struct worker *w = p;
	struct sqk_pool *pool = w->pool;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		struct task t;

		while (pool->count == 0 && !pool->stopping)
			pthread_cond_wait(&pool->not_empty, &pool->lock);
		if (pool->count == 0)
			break;
		t = pool->ring[pool->head];
		pool->head = (pool->head + 1) % pool->cap;
		pool->count--;
		pool->running++;
		pthread_cond_signal(&pool->not_full);
		pthread_mutex_unlock(&pool->lock);

		t.fn(t.arg, w->index);

		pthread_mutex_lock(&pool->lock);
		pool->running--;
		if (pool->count == 0 && pool->running == 0)
			pthread_cond_broadcast(&pool->idle);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

struct sqk_pool *sqk_pool_create(unsigned threads, unsigned queue_max)
{
	struct sqk_pool *p;
	sigset_t all, old;
	unsigned i;

	if (threads == 0)
		threads = 1;
	if (queue_max == 0)
		queue_max = 4 * threads;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->ring = calloc(queue_max, sizeof(*p->ring));
	p->workers = calloc(threads, sizeof(*p->workers));
	if (!p->ring || !p->workers)
		goto fail;
	p->cap = queue_max;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->not_empty, NULL);
	pthread_cond_init(&p->not_full, NULL);
	pthread_cond_init(&p->idle, NULL);
	/*
	 * Workers take no signal: the thread that writes the output gets it,
	 * and a handler undoing that output never races its writes.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < threads; i++) {
		p->workers[i].pool = p;
		p->workers[i].index = i;
		if (pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]) != 0)
			break;
		p->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (p->nthreads == 0) {
		sqk_pool_destroy(p);
		return NULL;
	}
	return p;
fail:
	free(p->ring);
	free(p->workers);
	free(p);
	return NULL;
}

int sqk_pool_submit(struct sqk_pool *p, sqk_task_fn fn, void *arg)
{
	pthread_mutex_lock(&p->lock);
	while (p->count == p->cap)
		pthread_cond_wait(&p->not_full, &p->lock);
	p->ring[(p->head + p->count) % p->cap] = (struct task){fn, arg};
	p->count++;
	pthread_cond_signal(&p->not_empty);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

void sqk_pool_wait(struct sqk_pool *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->count != 0 || p->running != 0)
		pthread_cond_wait(&p->idle, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void sqk_pool_destroy(struct sqk_pool *p)
{
	unsigned i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_cond_broadcast(&p->not_empty);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->workers[i].thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->not_empty);
	pthread_cond_destroy(&p->not_full);
	pthread_cond_destroy(&p->idle);
	free(p->ring);
	free(p->workers);
	free(p);
}

unsigned sqk_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}
