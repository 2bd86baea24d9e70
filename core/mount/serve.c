// SPDX-License-Identifier: BSD-2-Clause
/*
 * The FUSE session: mount, the threads that read requests, and the end.
 * Each thread reads a request from the device, handles it and replies,
 * decompressing what it needs through the shared caches; no request waits
 * for another thread's hand-over. The threads follow the load (elastic.h):
 * a reader blocked on a block never waits for a thread to be free, up to
 * the bound, and threads the load no longer needs go away.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs.h"
#include "read/image.h"
#include "serve_int.h"
#include "util/elastic.h"
#include "util/error.h"
#include "util/mounttab.h"

/* The mount table shows the file system as fuse.SUBTYPE. */
#define SUBTYPE "squashkit"

extern char **environ;

static void (*log_fn)(const char *line);

static void fuse_logger(enum fuse_log_level level, const char *fmt, va_list ap)
{
	char line[1024];
	size_t n;

	if (level > FUSE_LOG_WARNING || !log_fn)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	if (n)
		log_fn(line);
}

void sqk_serve_log(void (*fn)(const char *line))
{
	log_fn = fn;
	fuse_set_log_func(fuse_logger);
}

int sqk_serve_mount(struct sqk_fs *fs, const char *mountpoint, const struct sqk_serve_opts *o,
		    struct sqk_serve **out)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct sqk_serve *s;
	char *opts = NULL, *name = NULL;
	int err = SQK_ERR_NOMEM;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return SQK_ERR_NOMEM;
	s->fs = fs;
	s->timeout = o->timeout;
	s->report = o->report;
	s->report_arg = o->report_arg;
	s->threads = o->threads ? o->threads : 1;
	/* Kept when idle: requests that come one by one; more start in microseconds. */
	s->spare = 2;
	s->stats.threads_max = s->threads;
	s->done_fd = -1;
	/* The daemon leaves the working directory: keep the mount point's full path. */
	s->mountpoint = realpath(mountpoint, NULL);
	if (!s->mountpoint) {
		free(s);
		return SQK_ERR_IO;
	}
	if (asprintf(&name, "fsname=%s", o->fsname ? o->fsname : "squashkit") < 0)
		name = NULL;
	if (name && fuse_opt_add_arg(&args, "squashkit") == 0 &&
	    fuse_opt_add_opt(&opts, "ro,default_permissions,subtype=" SUBTYPE) == 0 &&
	    (!o->allow_other || fuse_opt_add_opt(&opts, "allow_other") == 0) &&
	    fuse_opt_add_opt_escaped(&opts, name) == 0 && fuse_opt_add_arg(&args, "-o") == 0 &&
	    fuse_opt_add_arg(&args, opts) == 0) {
		err = SQK_ERR_IO;
		s->se = fuse_session_new(&args, &sqk_serve_ops, sizeof(sqk_serve_ops), s);
		if (s->se && fuse_session_mount(s->se, s->mountpoint) == 0)
			err = 0;
	}
	fuse_opt_free_args(&args);
	free(opts);
	free(name);
	if (err) {
		sqk_serve_destroy(s);
		return err;
	}
	*out = s;
	return 0;
}

int sqk_serve_daemonize(int foreground)
{
	return fuse_daemonize(foreground) == 0 ? 0 : SQK_ERR_IO;
}

/* A serving thread's own: the request it read, and room for replies. */
struct serve_worker {
	struct fuse_buf buf;
	char *scratch;
	size_t scratch_cap;
};

static __thread struct serve_worker *current;

char *sqk_serve_scratch(size_t size)
{
	struct serve_worker *w = current;

	if (size > w->scratch_cap) {
		char *p = realloc(w->scratch, size);

		if (!p)
			return NULL;
		w->scratch = p;
		w->scratch_cap = size;
	}
	return w->scratch;
}

static int worker_wait(void *arg, void **state)
{
	struct sqk_serve *s = arg;
	struct serve_worker *w = *state;
	int res;

	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w)
			return 0;
		*state = w;
	}
	if (fuse_session_exited(s->se))
		return 0;
	res = fuse_session_receive_buf(s->se, &w->buf);
	if (res == -EINTR)
		return -1;
	if (res <= 0)
		return 0;
	if (w->buf.flags & FUSE_BUF_IS_FD)
		return 1;
	return sqk_serve_count(s->stats.requests, w->buf.mem, (size_t)res) ? 2 : 1;
}

static void worker_work(void *arg, void *state)
{
	struct sqk_serve *s = arg;
	struct serve_worker *w = state;

	current = w;
	fuse_session_process_buf(s->se, &w->buf);
	current = NULL;
}

static void worker_end(void *arg, void *state, int closed)
{
	struct sqk_serve *s = arg;
	struct serve_worker *w = state;
	uint64_t one = 1;

	if (w) {
		free(w->buf.mem);
		free(w->scratch);
		free(w);
	}
	if (!closed)
		return;
	/* The connection ended, or this thread could not go on: the mount goes down. */
	fuse_session_exit(s->se);
	if (write(s->done_fd, &one, sizeof(one)) < 0)
		return;
}

static const struct sqk_elastic_ops worker_ops = {worker_wait, worker_work, worker_end};

/* How long the load must leave threads idle before they go. */
#define IDLE_MS 1000

/* The kernel ended the connection (unmounted, or aborted): the device says so. */
static int connection_gone(struct sqk_serve *s)
{
	struct pollfd p = {fuse_session_fd(s->se), 0, 0};

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLNVAL));
}

/* Wait for a signal or a thread that saw the end; 1 to wait again (SIGUSR1 reported). */
static int wait_for_end(struct sqk_serve *s, struct pollfd *pfd, int sfd)
{
	struct signalfd_siginfo si;

	if (poll(pfd, 2, -1) < 0)
		return errno == EINTR;
	if (!(pfd[0].revents & POLLIN) || read(sfd, &si, sizeof(si)) != sizeof(si) ||
	    si.ssi_signo != SIGUSR1)
		return 0;
	if (s->report)
		s->report(s, s->report_arg);
	return 1;
}

int sqk_serve_run(struct sqk_serve *s)
{
	struct sqk_elastic_stats es;
	struct pollfd pfd[2];
	sigset_t set;
	int sfd, err = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	/* Blocked before the threads start, so that only the signalfd sees them. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	s->done_fd = eventfd(0, EFD_CLOEXEC);
	if (sfd < 0 || s->done_fd < 0) {
		if (sfd >= 0)
			close(sfd);
		return SQK_ERR_IO;
	}
	sqk_serve_store_init(&s->store, s->se);
	/* A thread may push as soon as it starts: it finds the others under this lock. */
	pthread_mutex_lock(&s->store.lock);
	s->workers = sqk_elastic_start(&worker_ops, s, s->spare, s->threads, IDLE_MS);
	s->store.workers = s->workers;
	pthread_mutex_unlock(&s->store.lock);
	if (!s->workers) {
		/* Without threads nobody answers: take the mount down again. */
		err = SQK_ERR_NOMEM;
		sqk_serve_unmount(s->mountpoint, 1);
	} else {
		pfd[0] = (struct pollfd){sfd, POLLIN, 0};
		pfd[1] = (struct pollfd){s->done_fd, POLLIN, 0};
		while (wait_for_end(s, pfd, sfd))
			;
		/*
		 * A signal, or a thread stopped. Threads block reading the device
		 * until the kernel ends the connection, which unmounting does.
		 */
		if (!connection_gone(s))
			sqk_serve_unmount(s->mountpoint, 1);
		sqk_elastic_destroy(s->workers, &es);
		s->workers = NULL;
		s->stats.threads_peak = es.peak;
		s->stats.threads_started = es.started;
		s->stats.threads_retired = es.retired;
	}
	sqk_serve_store_destroy(&s->store);
	s->stats.pushed = s->store.pushed;
	s->stats.push_skipped = s->store.skipped;
	s->stats.push_dropped = s->store.dropped;
	close(sfd);
	return err;
}

void sqk_serve_stats(struct sqk_serve *s, struct sqk_serve_stats *out)
{
	struct sqk_elastic_stats es;
	unsigned i;

	*out = s->stats;
	for (i = 0; i < SQK_SERVE_KINDS; i++)
		out->requests[i] = __atomic_load_n(&s->stats.requests[i], __ATOMIC_RELAXED);
	if (s->workers) {
		/* Serving still: the counters so far. */
		sqk_elastic_stats(s->workers, &es);
		out->threads_peak = es.peak;
		out->threads_started = es.started;
		out->threads_retired = es.retired;
		pthread_mutex_lock(&s->store.lock);
		out->pushed = s->store.pushed;
		out->push_skipped = s->store.skipped;
		out->push_dropped = s->store.dropped;
		pthread_mutex_unlock(&s->store.lock);
	}
}

void sqk_serve_destroy(struct sqk_serve *s)
{
	if (!s)
		return;
	if (s->se) {
		fuse_session_unmount(s->se);
		fuse_session_destroy(s->se);
	}
	if (s->done_fd >= 0)
		close(s->done_fd);
	free(s->mountpoint);
	free(s);
}

int sqk_serve_unmount(const char *mountpoint, int lazy)
{
	char *argv[7] = {"fusermount3", "-u", "-q"};
	int argc = 3, status;
	pid_t pid;

	if (geteuid() == 0)
		return umount2(mountpoint, lazy ? MNT_DETACH : 0) == 0 ? 0 : SQK_ERR_IO;
	/* Without privilege, the set-user-id helper that mounted it unmounts it. */
	if (lazy)
		argv[argc++] = "-z";
	argv[argc++] = "--";
	argv[argc++] = (char *)mountpoint;
	errno = posix_spawnp(&pid, "fusermount3", NULL, NULL, argv, environ);
	if (errno)
		return SQK_ERR_IO;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return SQK_ERR_IO;
	errno = EPERM;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : SQK_ERR_IO;
}

/* What the mount table says of a path: is the topmost mount there ours? */
struct topmost {
	const char *path;
	int ours;
};

/* The table lists a mount over another after it: the last one at path wins. */
static int is_at(void *arg, const char *mnt, const char *type, const char *opts)
{
	struct topmost *t = arg;

	(void)opts;
	if (strcmp(mnt, t->path) == 0)
		t->ours = strcmp(type, "fuse." SUBTYPE) == 0;
	return 0;
}

int sqk_serve_is_mounted(const char *path)
{
	struct topmost t = {path, 0};
	int err = sqk_mounts_each(is_at, &t);

	return err < 0 ? err : t.ours;
}
