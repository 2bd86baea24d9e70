/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_PROGRESS_H
#define SQK_PROGRESS_H

/*
 * A progress bar on stderr for the long commands (mkimage, unimage, fsck):
 *
 *   [=========>          ]  45%  123.4 MiB  56.7 MiB/s  ETA 0:12
 *
 * It is drawn only when stderr is a terminal and the command was not told
 * to be quiet; otherwise cli_progress_start() returns NULL, and every
 * function here accepts NULL and does nothing, so callers need no checks.
 *
 * The amount done is a byte count that any thread may add to (atomics, no
 * lock), or a counter the reporter reads by itself (watch): either way the
 * hot path costs at most one atomic add. A timer thread redraws the line
 * at most ten times a second with \r; cli_progress_finish() draws the
 * final line and ends it with a newline.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_progress;

/*
 * Start a reporter. total: the bytes expected, 0 when not known yet (the
 * bar then shows only bytes and rate). watch: a counter, updated with
 * atomics elsewhere, to read as the amount done, or NULL to count with
 * cli_progress_set(). NULL when quiet, when stderr is
 * not a terminal, or when the timer thread cannot start.
 */
struct sqk_progress *cli_progress_start(uint64_t total, const uint64_t *watch, int quiet);

void cli_progress_set_total(struct sqk_progress *p, uint64_t total);
/* Set the bytes done (for callers that report a running total). */
void cli_progress_set(struct sqk_progress *p, uint64_t done);

/*
 * Take the amount done from fn(arg), called by the timer thread at each
 * redraw, instead of the counter (for a measure that costs a system call,
 * such as the size of the file being written); NULL goes back to the
 * counter. The rate starts afresh, as the measure changed.
 */
void cli_progress_poll(struct sqk_progress *p, uint64_t (*fn)(void *arg), void *arg);

/*
 * A second figure, fn(arg) bytes, shown after the line as "SIZE label"
 * while it is not 0 and fits (mkimage: what went to temporary files).
 */
void cli_progress_aside(struct sqk_progress *p, uint64_t (*fn)(void *arg), void *arg,
			const char *label);

/*
 * Erase the bar before printing a message on stderr; the next redraw
 * brings it back. Call it from the thread that prints.
 */
void cli_progress_clear(struct sqk_progress *p);

/*
 * Stop the timer thread and free p. ok: draw the final line (100% and the
 * elapsed time) and a newline; !ok: erase the bar, so an error message
 * starts on a clean line.
 */
void cli_progress_finish(struct sqk_progress *p, int ok);

/* Format the bar for the given state into buf (tests and the reporter). */
void cli_progress_format(char *buf, size_t len, unsigned width, uint64_t done, uint64_t total,
			 double rate, double elapsed, int final);

#endif
