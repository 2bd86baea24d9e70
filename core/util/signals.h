/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SIGNALS_H
#define SQK_SIGNALS_H

/*
 * What SIGINT, SIGTERM, SIGHUP and SIGQUIT must undo before the process
 * dies of them. Two ways:
 *
 * - actions the handler takes itself, with async-signal-safe calls only:
 *   remove a temporary file; cut a file back to its old length, as long as
 *   some bytes of it (a superblock) are still what they were;
 * - for work that cannot be undone inside a handler (a tree of files), a
 *   hold: while held, a signal is only recorded; the work polls
 *   sqk_sig_caught(), stops, undoes itself, and sqk_sig_release() then
 *   takes the actions and dies of the signal.
 *
 * The handlers are in place while there is an action or a hold, and the
 * previous dispositions come back with the last. Threads that do not
 * block these signals (the pool's workers do) must not write to a file
 * an action undoes: the handler runs in the thread that writes.
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Block the four signals in this thread (*old gets the mask to restore). */
void sqk_sig_block(sigset_t *old);
void sqk_sig_restore(const sigset_t *old);

/*
 * Remove path on a signal. Returns a slot (>= 0) for sqk_sig_forget, or
 * SQK_ERR_UNSUPPORTED when too many are registered (8), SQK_ERR_OVERFLOW
 * for a path too long. Call with the signals blocked when path must not
 * be left behind between its creation and this call.
 */
int sqk_sig_unlink(const char *path);

/*
 * Cut fd back to len on a signal, if the n bytes (at most 96) at off are
 * still those of expect. Returns a slot, or SQK_ERR_UNSUPPORTED.
 */
int sqk_sig_cut_back(int fd, uint64_t len, uint64_t off, const void *expect, size_t n);

/* The action in slot is done or no longer wanted; -1 is allowed. */
void sqk_sig_forget(int slot);

/* Record the signals instead of dying of them, until sqk_sig_release(). */
void sqk_sig_hold(void);
/* The signal recorded while held, or 0. Safe from any thread. */
int sqk_sig_caught(void);
/*
 * End the hold. If a signal came meanwhile: take the registered actions and
 * die of it; the caller has undone its own work first.
 */
void sqk_sig_release(void);

/*
 * SIGPIPE blocked in this thread, for writes to a pipe its reader may have
 * left: they fail with EPIPE instead of killing. Release drops the SIGPIPE
 * they raised meanwhile and restores the mask.
 */
void sqk_sig_pipe_hold(sigset_t *old);
void sqk_sig_pipe_release(const sigset_t *old);

#endif
