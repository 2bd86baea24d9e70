// SPDX-License-Identifier: BSD-2-Clause
/* The progress bar of mkimage, unimage and fsck: see progress.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define TICK_MS	       100 /* at most ten redraws a second */
#define RATE_SAMPLES   30  /* the rate is measured over the last three seconds */
#define LINE_MAX_BYTES 512

struct sqk_progress {
	uint64_t done;	/* atomic */
	uint64_t total; /* atomic */
	const uint64_t *watch;
	pthread_t thread;
	pthread_mutex_t lock; /* serialises drawing; guards the fields below */
	pthread_cond_t wake;
	uint64_t (*poll)(void *arg);
	void *poll_arg;
	uint64_t (*aside)(void *arg); /* a second figure, shown after the line when not 0 */
	void *aside_arg;
	const char *aside_label;
	int stop;
	int drawn; /* the bar is on the terminal line */
	unsigned drawn_len;
	double start;
	double t[RATE_SAMPLES];
	uint64_t d[RATE_SAMPLES];
	unsigned nsamples, next;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col > LINE_MAX_BYTES - 16 ? LINE_MAX_BYTES - 16 : ws.ws_col;
	return 80;
}

static void human(char *buf, size_t len, double v, const char *suffix)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	unsigned u = 0;

	if (v < 1024) {
		snprintf(buf, len, "%.0f B%s", v, suffix);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s%s", v, units[u], suffix);
}

static void clock_text(char *buf, size_t len, double secs)
{
	unsigned long s = secs < 0 ? 0 : secs > 359999 ? 359999 : (unsigned long)(secs + 0.5);

	if (s >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%lu:%02lu", s / 60, s % 60);
}

void cli_progress_format(char *buf, size_t len, unsigned width, uint64_t done, uint64_t total,
			 double rate, double elapsed, int final)
{
	char bytes[32], speed[32], eta[32], tail[128];
	unsigned pct = 0;
	int bar, room, i;
	size_t n = 0;

	if (final && total)
		done = total;
	if (total && done > total)
		done = total;
	human(bytes, sizeof(bytes), (double)done, "");
	human(speed, sizeof(speed), rate, "/s");
	if (final) {
		clock_text(eta, sizeof(eta), elapsed);
		snprintf(tail, sizeof(tail), "%s  %s  in %s", bytes, speed, eta);
	} else if (total && done < total && rate > 0) {
		clock_text(eta, sizeof(eta), (double)(total - done) / rate);
		snprintf(tail, sizeof(tail), "%s  %s  ETA %s", bytes, speed, eta);
	} else if (total) {
		snprintf(tail, sizeof(tail), "%s  %s  ETA --:--", bytes, speed);
	} else {
		snprintf(tail, sizeof(tail), "%s  %s", bytes, speed);
	}
	if (!total) {
		snprintf(buf, len, "%s", tail);
		return;
	}
	/* Never 100% before the end: re-read blocks may push done to total early. */
	pct = final ? 100 : (unsigned)((double)done * 100.0 / (double)total);
	if (!final && pct > 99)
		pct = 99;
	/* "[" bar "] " pct "%  " tail, one column spare so the terminal never wraps. */
	room = (int)width - 1 - 3 - 4 - 2 - (int)strlen(tail);
	bar = room > 50 ? 50 : room;
	if (bar >= 10 && len > (size_t)bar + 3) {
		int fill = (int)((double)bar * pct / 100.0);

		buf[n++] = '[';
		for (i = 0; i < bar; i++)
			buf[n++] = i < fill ? '=' : (i == fill && !final) ? '>' : ' ';
		buf[n++] = ']';
		buf[n++] = ' ';
	}
	snprintf(buf + n, len - n, "%3u%%  %s", pct, tail);
}

/* Called with the lock held. */
static uint64_t current(struct sqk_progress *p)
{
	if (p->poll)
		return p->poll(p->poll_arg);
	return p->watch ? __atomic_load_n(p->watch, __ATOMIC_RELAXED)
			: __atomic_load_n(&p->done, __ATOMIC_RELAXED);
}

/* Write the whole line in one call, padded over what was there before. */
static void put_line(struct sqk_progress *p, const char *text, int newline)
{
	char line[LINE_MAX_BYTES + 4];
	size_t n = 0, len = strlen(text);
	ssize_t w;

	line[n++] = '\r';
	memcpy(line + n, text, len);
	n += len;
	while (n - 1 < p->drawn_len && n < LINE_MAX_BYTES)
		line[n++] = ' ';
	if (newline)
		line[n++] = '\n';
	p->drawn_len = newline ? 0 : (unsigned)len;
	p->drawn = !newline;
	for (size_t off = 0; off < n; off += (size_t)w) {
		w = write(STDERR_FILENO, line + off, n - off);
		if (w < 0 && errno == EINTR)
			w = 0;
		else if (w <= 0)
			break;
	}
}

/* Redraw; called with the lock held. */
static void draw(struct sqk_progress *p, int final)
{
	char text[LINE_MAX_BYTES];
	double t = now_s(), elapsed = t - p->start, rate = 0;
	uint64_t done = current(p), total = __atomic_load_n(&p->total, __ATOMIC_RELAXED);
	unsigned oldest;

	/* The rate over the last few seconds, so the ETA follows changes of pace. */
	p->t[p->next] = t;
	p->d[p->next] = done;
	p->next = (p->next + 1) % RATE_SAMPLES;
	if (p->nsamples < RATE_SAMPLES)
		p->nsamples++;
	oldest = p->nsamples < RATE_SAMPLES ? 0 : p->next;
	if (final || p->nsamples < 3) {
		if (elapsed > 0)
			rate = (double)done / elapsed;
	} else if (t > p->t[oldest] && done >= p->d[oldest]) {
		rate = (double)(done - p->d[oldest]) / (t - p->t[oldest]);
	}
	if (final && total && done < total)
		done = total;
	cli_progress_format(text, sizeof(text), term_width(), done, total, rate, elapsed, final);
	if (p->aside) {
		uint64_t v = p->aside(p->aside_arg);
		char more[64], size[32];

		human(size, sizeof(size), (double)v, "");
		snprintf(more, sizeof(more), "  %s %s", size, p->aside_label);
		if (v && strlen(text) + strlen(more) < term_width())
			strcat(text, more);
	}
	put_line(p, text, final);
}

static void *timer(void *arg)
{
	struct sqk_progress *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
		if (!p->stop)
			draw(p, 0);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct sqk_progress *cli_progress_start(uint64_t total, const uint64_t *watch, int quiet)
{
	struct sqk_progress *p;
	sigset_t all, old;
	int err;

	if (quiet || !isatty(STDERR_FILENO))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->total = total;
	p->watch = watch;
	p->start = now_s();
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	/* Signals stay with the command's own threads and handlers. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&p->thread, NULL, timer, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	return p;
}

void cli_progress_set_total(struct sqk_progress *p, uint64_t total)
{
	if (p)
		__atomic_store_n(&p->total, total, __ATOMIC_RELAXED);
}

void cli_progress_set(struct sqk_progress *p, uint64_t done)
{
	if (p)
		__atomic_store_n(&p->done, done, __ATOMIC_RELAXED);
}

void cli_progress_poll(struct sqk_progress *p, uint64_t (*fn)(void *arg), void *arg)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->poll = fn;
	p->poll_arg = arg;
	p->nsamples = 0;
	p->next = 0;
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_aside(struct sqk_progress *p, uint64_t (*fn)(void *arg), void *arg,
			const char *label)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->aside = fn;
	p->aside_arg = arg;
	p->aside_label = label;
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_clear(struct sqk_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->drawn) {
		put_line(p, "", 0);
		(void)!write(STDERR_FILENO, "\r", 1);
		p->drawn = 0;
		p->drawn_len = 0;
	}
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_finish(struct sqk_progress *p, int ok)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	if (ok)
		draw(p, 1);
	else if (p->drawn)
		cli_progress_clear(p);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
