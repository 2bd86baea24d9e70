// SPDX-License-Identifier: BSD-2-Clause
/*
 * The elastic thread set. Each thread is counted as waiting from before
 * its wait until it takes work; the thread that takes work when no other
 * waits starts the next one (outside the lock: starting a thread is slow).
 * A keeper thread looks every period at the fewest threads that were
 * waiting at once since its last look: that many were not needed, and
 * that many retire (never below the spare ones).
 *
 * A retiring thread is no longer counted. It is told by a flag, and woken
 * from its wait by a signal whose handler does nothing: the wait returns
 * interrupted, and the thread sees the flag and ends. A signal is never
 * lost work, as cancelling a thread in read(2) could be (the request read
 * and the thread gone). But it can come just before the thread blocks, so
 * the keeper sends it again every period until the thread has ended; a
 * thread that took work first does it, and ends after.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "elastic.h"

struct thread {
	struct thread *next;
	struct sqk_elastic *set;
	pthread_t id;
	void *state;
	int waiting;  /* in its wait (or about to be) */
	int retiring; /* told to end: no longer counted */
	int gone;     /* has ended: to be joined */
};

struct sqk_elastic {
	const struct sqk_elastic_ops *ops;
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a thread ended, more started, or the end is asked */
	unsigned spare, max, period_ms;
	unsigned threads, waiting, low, peak; /* low: fewest waiting since the last look */
	uint64_t started, retired;
	struct thread *list; /* every thread not yet joined */
	pthread_t keeper;
	int stopping;
};

static void wake_nothing(int sig)
{
	(void)sig;
}

static void *thread_main(void *p);

/* Start one thread, already counted by the caller; undo the count if it cannot start. */
static void spawn(struct sqk_elastic *e)
{
	struct thread *t = calloc(1, sizeof(*t));

	if (t) {
		t->set = e;
		t->waiting = 1;
	}
	if (t && pthread_create(&t->id, NULL, thread_main, t) == 0) {
		pthread_mutex_lock(&e->lock);
		t->next = e->list;
		e->list = t;
		e->started++;
		if (e->threads > e->peak)
			e->peak = e->threads;
		pthread_cond_broadcast(&e->changed);
		pthread_mutex_unlock(&e->lock);
		return;
	}
	free(t);
	pthread_mutex_lock(&e->lock);
	e->threads--;
	e->waiting--;
	pthread_cond_broadcast(&e->changed);
	pthread_mutex_unlock(&e->lock);
}

static void took_work(struct sqk_elastic *e, struct thread *t, int quick)
{
	int grow = 0;

	pthread_mutex_lock(&e->lock);
	t->waiting = 0;
	if (!t->retiring) {
		e->waiting--;
		if (!quick && e->waiting < e->low)
			e->low = e->waiting;
		/* Nobody is left to take the next piece: one more thread waits for it. */
		if (!quick && e->waiting == 0 && e->threads < e->max) {
			e->threads++;
			e->waiting++;
			grow = 1;
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (grow)
		spawn(e);
}

/* 0 if the thread is to end; else it is counted as waiting (again). */
static int keep_on(struct sqk_elastic *e, struct thread *t, int counted)
{
	int go_on;

	pthread_mutex_lock(&e->lock);
	go_on = !t->retiring;
	if (go_on && !counted) {
		t->waiting = 1;
		e->waiting++;
	}
	pthread_mutex_unlock(&e->lock);
	return go_on;
}

static void *thread_main(void *p)
{
	struct thread *t = p;
	struct sqk_elastic *e = t->set;
	int closed = 0, counted = 1; /* its starter counted it as waiting */
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SQK_ELASTIC_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (keep_on(e, t, counted)) {
		int r = e->ops->wait(e->arg, &t->state);

		counted = 1;
		if (r == 0) {
			closed = 1;
			break;
		}
		if (r < 0)
			continue;
		took_work(e, t, r == 2);
		counted = 0;
		e->ops->work(e->arg, t->state);
	}
	e->ops->end(e->arg, t->state, closed);
	pthread_mutex_lock(&e->lock);
	/* One not told to end ends from its wait, counted as waiting. */
	if (!t->retiring) {
		e->threads--;
		e->waiting--;
	}
	t->gone = 1;
	pthread_cond_broadcast(&e->changed);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* Join the threads that have ended. Called and returns with the lock held. */
static void join_gone(struct sqk_elastic *e)
{
	struct thread **pp = &e->list;

	while (*pp) {
		struct thread *t = *pp;

		if (!t->gone) {
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		pthread_mutex_unlock(&e->lock);
		pthread_join(t->id, NULL);
		free(t);
		pthread_mutex_lock(&e->lock);
		pthread_cond_broadcast(&e->changed);
		pp = &e->list;
	}
}

/*
 * Tell as many waiting threads to end as were never needed since the last
 * look, and wake again those told before that have not ended yet.
 */
static void retire(struct sqk_elastic *e)
{
	unsigned n = e->low;
	struct thread *t;

	if (e->threads <= e->spare)
		n = 0;
	else if (n > e->threads - e->spare)
		n = e->threads - e->spare;
	/* One always waits: busy threads may need the next piece taken to go on. */
	if (n >= e->waiting)
		n = e->waiting ? e->waiting - 1 : 0;
	for (t = e->list; t; t = t->next) {
		if (t->gone)
			continue;
		if (!t->retiring) {
			if (n == 0 || !t->waiting)
				continue;
			t->retiring = 1;
			t->waiting = 0;
			e->threads--;
			e->waiting--;
			e->retired++;
			n--;
		}
		pthread_kill(t->id, SQK_ELASTIC_SIGNAL);
	}
	e->low = e->waiting;
}

static int retiring(struct sqk_elastic *e)
{
	struct thread *t;

	for (t = e->list; t; t = t->next)
		if (t->retiring && !t->gone)
			return 1;
	return 0;
}

static void deadline(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *keeper_main(void *p)
{
	struct sqk_elastic *e = p;
	struct timespec next;

	pthread_mutex_lock(&e->lock);
	deadline(&next, e->period_ms);
	while (!e->stopping) {
		join_gone(e);
		if (e->stopping)
			break;
		if (e->threads <= e->spare && !retiring(e)) {
			/* Nothing to retire until more threads start. */
			pthread_cond_wait(&e->changed, &e->lock);
			deadline(&next, e->period_ms);
			e->low = e->waiting;
		} else if (pthread_cond_timedwait(&e->changed, &e->lock, &next) == ETIMEDOUT) {
			retire(e);
			deadline(&next, e->period_ms);
		}
	}
	join_gone(e);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

struct sqk_elastic *sqk_elastic_start(const struct sqk_elastic_ops *ops, void *arg, unsigned spare,
				      unsigned max, unsigned period_ms)
{
	struct sqk_elastic *e = calloc(1, sizeof(*e));
	struct sigaction sa;
	pthread_condattr_t ca;
	unsigned i;

	if (!e)
		return NULL;
	/* No SA_RESTART: the signal interrupts the wait. */
	sa.sa_handler = wake_nothing;
	sa.sa_flags = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SQK_ELASTIC_SIGNAL, &sa, NULL);
	e->ops = ops;
	e->arg = arg;
	e->max = max ? max : 1;
	e->spare = spare == 0 ? 1 : spare > e->max ? e->max : spare;
	e->period_ms = period_ms ? period_ms : 1;
	pthread_mutex_init(&e->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->changed, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&e->keeper, NULL, keeper_main, e) != 0) {
		pthread_mutex_destroy(&e->lock);
		pthread_cond_destroy(&e->changed);
		free(e);
		return NULL;
	}
	for (i = 0; i < e->spare; i++) {
		pthread_mutex_lock(&e->lock);
		e->threads++;
		e->waiting++;
		pthread_mutex_unlock(&e->lock);
		spawn(e);
	}
	pthread_mutex_lock(&e->lock);
	i = e->threads;
	pthread_mutex_unlock(&e->lock);
	if (i == 0) {
		sqk_elastic_destroy(e, NULL);
		return NULL;
	}
	return e;
}

void sqk_elastic_stats(struct sqk_elastic *e, struct sqk_elastic_stats *out)
{
	pthread_mutex_lock(&e->lock);
	out->threads = e->threads;
	out->waiting = e->waiting;
	out->peak = e->peak;
	out->started = e->started;
	out->retired = e->retired;
	pthread_mutex_unlock(&e->lock);
}

void sqk_elastic_destroy(struct sqk_elastic *e, struct sqk_elastic_stats *last)
{
	if (!e)
		return;
	/* The keeper joins the threads as they end, retired ones included. */
	pthread_mutex_lock(&e->lock);
	while (e->threads > 0 || e->list)
		pthread_cond_wait(&e->changed, &e->lock);
	e->stopping = 1;
	pthread_cond_broadcast(&e->changed);
	pthread_mutex_unlock(&e->lock);
	pthread_join(e->keeper, NULL);
	if (last)
		sqk_elastic_stats(e, last);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->changed);
	free(e);
}
