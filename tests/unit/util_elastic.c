// SPDX-License-Identifier: BSD-2-Clause
/*
 * The elastic thread set over a pipe: each byte is a piece of work, and
 * work that blocks until the test opens a gate stands for FUSE readers
 * that each wait on a block. The threads rise so that one always waits
 * for the next piece, stop at the bound, fall back to the spare ones once
 * the load is gone (woken in their read), and all end when the pipe
 * closes. make check runs it under ThreadSanitizer too (TSAN_UNIT).
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "util/elastic.h"

static int fds[2];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int active, most_active, gate_open, done, ended, ended_closed, states;

static int wait_fn(void *arg, void **state)
{
	char c;
	ssize_t n;

	if (!*state) {
		*state = malloc(16);
		pthread_mutex_lock(&m);
		states++;
		pthread_mutex_unlock(&m);
	}
	n = read(fds[0], &c, 1);
	if (n == 0)
		return 0;
	if (n < 0)
		return -1;
	return c == 'q' ? 2 : 1;
}

static void work_fn(void *arg, void *state)
{
	pthread_mutex_lock(&m);
	active++;
	if (active > most_active)
		most_active = active;
	pthread_cond_broadcast(&cond);
	while (!gate_open)
		pthread_cond_wait(&cond, &m);
	active--;
	done++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&m);
}

static void end_fn(void *arg, void *state, int closed)
{
	free(state);
	pthread_mutex_lock(&m);
	ended++;
	ended_closed += closed;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&m);
}

static const struct sqk_elastic_ops ops = {wait_fn, work_fn, end_fn};

/* Let the blocked pieces go on, or make the next ones block. */
static void gate(int open)
{
	pthread_mutex_lock(&m);
	gate_open = open;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&m);
}

/* Wait up to 5 s for *v to reach want (under m). */
static int wait_count(int *v, int want)
{
	struct timespec until;
	int r = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&m);
	while (*v != want && r == 0)
		r = pthread_cond_timedwait(&cond, &m, &until);
	r = *v == want;
	pthread_mutex_unlock(&m);
	return r;
}

/* Poll the set for up to 5 s until it has want threads. */
static unsigned wait_threads(struct sqk_elastic *e, unsigned want)
{
	struct sqk_elastic_stats st;
	int i;

	for (i = 0; i < 500; i++) {
		sqk_elastic_stats(e, &st);
		if (st.threads == want)
			break;
		usleep(10000);
	}
	return st.threads;
}

static void put(const char *s)
{
	while (*s)
		if (write(fds[1], s++, 1) != 1)
			break;
}

int main(void)
{
	struct sqk_elastic_stats st;
	struct sqk_elastic *e;

	if (pipe(fds) != 0)
		return 1;
	e = sqk_elastic_start(&ops, NULL, 2, 8, 100);
	ok(e != NULL, "the set starts");
	if (!e)
		return tap_done();
	is_int(wait_threads(e, 2), 2, "it starts with its 2 spare threads");

	/* Six blocked pieces: six threads hold them and one more waits. */
	put("wwwwww");
	ok(wait_count(&active, 6), "six blocking pieces run at once");
	is_int(wait_threads(e, 7), 7, "... on six threads, and a seventh waits for the next");
	sqk_elastic_stats(e, &st);
	is_int(st.waiting, 1, "... one waiting");

	/* Six more: the bound of 8 stops the rise; four wait in the pipe. */
	put("wwwwww");
	ok(wait_count(&active, 8), "eight run at the bound");
	usleep(50000);
	sqk_elastic_stats(e, &st);
	is_int(st.threads, 8, "no thread past the bound");
	is_int(st.waiting, 0, "... and none waiting");
	pthread_mutex_lock(&m);
	is_int(most_active, 8, "never more than eight pieces at once");
	pthread_mutex_unlock(&m);
	gate(1);
	ok(wait_count(&done, 12), "all twelve pieces are done once the gate opens");

	/* Quick pieces do not make the set grow. */
	put("qqqq");
	ok(wait_count(&done, 16), "quick pieces are done");

	/* No load: the threads fall back to the spare ones, woken in their read. */
	is_int(wait_threads(e, 2), 2, "idle threads go away, down to the 2 spare");
	sqk_elastic_stats(e, &st);
	is_int(st.peak, 8, "the peak was eight threads");
	is_int(st.retired, st.started - 2, "every thread started past the spare ones retired");
	/*
	 * A thread is counted as retired when it is told to end, and ends once
	 * the signal reaches it; until then it may still take a piece (which it
	 * does, uncounted, before it ends). Wait for each to end before the
	 * next load, so that the load meets only the spare threads.
	 */
	ok(wait_count(&ended, (int)st.retired), "each retired thread ended");
	pthread_mutex_lock(&m);
	is_int(ended_closed, 0, "... told to, not closed");
	pthread_mutex_unlock(&m);

	/* Load again: the set grows again. */
	gate(0);
	put("www");
	ok(wait_count(&active, 3), "a new load runs");
	is_int(wait_threads(e, 4), 4, "... on new threads");
	gate(1);
	ok(wait_count(&done, 19), "... and is done");

	/*
	 * Pieces that stay blocked for several periods: the one thread waiting
	 * for the next piece is never retired, although it never took one.
	 */
	gate(0);
	put("www");
	ok(wait_count(&active, 3), "three pieces block");
	usleep(450000);
	sqk_elastic_stats(e, &st);
	is_int(st.waiting, 1, "after four periods, one thread still waits for the next piece");
	is_int(st.threads, 4, "... beside the three busy ones");
	gate(1);
	ok(wait_count(&done, 22), "... which then are done");

	/* The source closes: every thread ends, and the set is freed. */
	close(fds[1]);
	sqk_elastic_destroy(e, &st);
	pthread_mutex_lock(&m);
	is_int(ended, states, "every thread ends once the pipe closes, its state handed back");
	ok(ended_closed >= 2, "... the ones left because no more work comes (%d)", ended_closed);
	is_int(st.threads, 0, "... and none is left");
	is_int(ended, (int)st.started, "... of the %d started", (int)st.started);
	pthread_mutex_unlock(&m);
	close(fds[0]);
	return tap_done();
}
