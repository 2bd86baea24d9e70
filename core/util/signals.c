// SPDX-License-Identifier: BSD-2-Clause
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "signals.h"

#define MAX_ACTIONS 8
#define PATH_LEN    (PATH_MAX + 64)
#define EXPECT_MAX  96

/*
 * The handler reads these: fixed storage, as a handler must not allocate.
 * An action is filled before live is set, and live cleared before the slot
 * is reused, with the signals blocked in the thread doing it.
 */
struct action {
	volatile sig_atomic_t live;
	int fd; /* -1: remove path */
	uint64_t len, off;
	uint8_t expect[EXPECT_MAX];
	size_t n;
	char path[PATH_LEN];
};

static struct action actions[MAX_ACTIONS];
static unsigned users; /* live actions and holds: the handlers are in while > 0 */
static int held;       /* a count of holds */
static int caught;     /* the signal recorded while held */
static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSIGS (sizeof(sigs) / sizeof(sigs[0]))
static struct sigaction saved[NSIGS];

static void take_actions(void)
{
	uint8_t now[EXPECT_MAX];

	for (unsigned i = 0; i < MAX_ACTIONS; i++) {
		struct action *a = &actions[i];

		if (!a->live)
			continue;
		if (a->fd < 0)
			unlink(a->path);
		else if (pread(a->fd, now, a->n, (off_t)a->off) == (ssize_t)a->n &&
			 memcmp(now, a->expect, a->n) == 0 && ftruncate(a->fd, (off_t)a->len)) {
			/* A process dying of a signal has nobody to tell that it failed. */
		}
		a->live = 0;
	}
}

static void die_of(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_signal(int sig)
{
	if (__atomic_load_n(&held, __ATOMIC_RELAXED)) {
		int none = 0;

		__atomic_compare_exchange_n(&caught, &none, sig, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		return;
	}
	take_actions();
	die_of(sig);
}

void sqk_sig_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NSIGS; i++)
		sigaddset(&set, sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void sqk_sig_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/*
 * With the signals blocked: the handlers go in with the first user and out
 * with the last. A signal the process ignores (nohup, a background job of
 * a script) stays ignored.
 */
static void use(int more)
{
	struct sigaction sa;

	if (more && users++ == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		/* A held signal returns: what it interrupted goes on, as if it never came. */
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < NSIGS; i++) {
			sigaction(sigs[i], NULL, &saved[i]);
			if (saved[i].sa_handler != SIG_IGN)
				sigaction(sigs[i], &sa, NULL);
		}
	} else if (!more && --users == 0) {
		for (size_t i = 0; i < NSIGS; i++)
			sigaction(sigs[i], &saved[i], NULL);
	}
}

/* Registrations from several threads take turns; the handler never waits for this. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* With the signals blocked and the lock held: a free slot, or -1. */
static int claim(void)
{
	for (int slot = 0; slot < MAX_ACTIONS; slot++)
		if (!actions[slot].live)
			return slot;
	return -1;
}

static void go_live(int slot)
{
	actions[slot].live = 1;
	use(1);
}

int sqk_sig_unlink(const char *path)
{
	sigset_t old;
	int slot;

	if (strlen(path) >= PATH_LEN)
		return SQK_ERR_OVERFLOW;
	sqk_sig_block(&old);
	pthread_mutex_lock(&lock);
	slot = claim();
	if (slot >= 0) {
		actions[slot].fd = -1;
		strcpy(actions[slot].path, path);
		go_live(slot);
	}
	pthread_mutex_unlock(&lock);
	sqk_sig_restore(&old);
	return slot >= 0 ? slot : SQK_ERR_UNSUPPORTED;
}

int sqk_sig_cut_back(int fd, uint64_t len, uint64_t off, const void *expect, size_t n)
{
	sigset_t old;
	int slot;

	if (n > EXPECT_MAX)
		return SQK_ERR_ARG;
	sqk_sig_block(&old);
	pthread_mutex_lock(&lock);
	slot = claim();
	if (slot >= 0) {
		struct action *a = &actions[slot];

		a->fd = fd;
		a->len = len;
		a->off = off;
		a->n = n;
		memcpy(a->expect, expect, n);
		go_live(slot);
	}
	pthread_mutex_unlock(&lock);
	sqk_sig_restore(&old);
	return slot >= 0 ? slot : SQK_ERR_UNSUPPORTED;
}

void sqk_sig_forget(int slot)
{
	sigset_t old;

	if (slot < 0 || slot >= MAX_ACTIONS)
		return;
	sqk_sig_block(&old);
	pthread_mutex_lock(&lock);
	if (actions[slot].live) {
		actions[slot].live = 0;
		use(0);
	}
	pthread_mutex_unlock(&lock);
	sqk_sig_restore(&old);
}

void sqk_sig_hold(void)
{
	sigset_t old;

	sqk_sig_block(&old);
	pthread_mutex_lock(&lock);
	__atomic_add_fetch(&held, 1, __ATOMIC_RELAXED);
	use(1);
	pthread_mutex_unlock(&lock);
	sqk_sig_restore(&old);
}

int sqk_sig_caught(void)
{
	return __atomic_load_n(&caught, __ATOMIC_RELAXED);
}

void sqk_sig_release(void)
{
	sigset_t old;
	int sig;

	sqk_sig_block(&old);
	pthread_mutex_lock(&lock);
	sig = 0;
	if (__atomic_sub_fetch(&held, 1, __ATOMIC_RELAXED) == 0)
		sig = __atomic_exchange_n(&caught, 0, __ATOMIC_RELAXED);
	if (sig) {
		take_actions();
		die_of(sig); /* delivered as the mask comes back */
	}
	use(0);
	pthread_mutex_unlock(&lock);
	sqk_sig_restore(&old);
}

void sqk_sig_pipe_hold(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void sqk_sig_pipe_release(const sigset_t *old)
{
	static const struct timespec now = {0, 0};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	if (!sigismember(old, SIGPIPE))
		while (sigtimedwait(&set, NULL, &now) == SIGPIPE)
			;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}
