/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_ELASTIC_H
#define SQK_ELASTIC_H

/*
 * Threads that follow the load: each waits on a source for a piece of
 * work (a FUSE request) and does it. When the last waiting thread takes
 * work, one more starts, up to a bound, so that work never queues behind
 * threads that are all busy, however long each piece blocks. Threads the
 * load has not needed for a while go away: every period, as many threads
 * as never took work since the last look (beyond the spare ones) are told
 * to end, and woken from their wait by SQK_ELASTIC_SIGNAL, whose handler
 * does nothing: the wait must then return interrupted (read(2) does, with
 * EINTR) and hold no lock while it blocks. Work once taken is always done.
 * Below the bound one thread always waits (unless a thread could not
 * start), so that work may wait for the next piece to be taken.
 * The signal's handler is installed by sqk_elastic_start(); the threads
 * take it unblocked, and whatever else they do must bear EINTR.
 */
#include <signal.h>
#include <stdint.h>

#define SQK_ELASTIC_SIGNAL (SIGRTMIN + 1)

struct sqk_elastic_ops {
	/*
	 * Wait for the next piece of work. *state is the thread's own, NULL
	 * at first; set it before blocking, end() gets it back. Returns 1 for
	 * work, 2 for work so quick that it needs no thread kept free for the
	 * next one, 0 when no more work will come (the thread ends), or a
	 * negative number when interrupted (to wait again, or end).
	 */
	int (*wait)(void *arg, void **state);
	void (*work)(void *arg, void *state);
	/* The thread ends; closed: because wait() said no more work comes. */
	void (*end)(void *arg, void *state, int closed);
};

struct sqk_elastic_stats {
	unsigned threads; /* now, retiring ones left out */
	unsigned waiting; /* of those, waiting for work */
	unsigned peak;	  /* most threads at once */
	uint64_t started, retired;
};

struct sqk_elastic;

/*
 * Start spare threads (at least 1, at most max); more start on demand up
 * to max. Every period_ms, threads never all needed since the last look
 * are retired down to spare. NULL when no thread could start.
 */
struct sqk_elastic *sqk_elastic_start(const struct sqk_elastic_ops *ops, void *arg, unsigned spare,
				      unsigned max, unsigned period_ms);
void sqk_elastic_stats(struct sqk_elastic *e, struct sqk_elastic_stats *out);
/*
 * Wait until every thread has ended (they end when wait() returns 0), then
 * free; last (if not NULL) gets the final counters.
 */
void sqk_elastic_destroy(struct sqk_elastic *e, struct sqk_elastic_stats *last);

#endif
