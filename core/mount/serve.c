// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The FUSE session: mount, the workers that read requests, and the end.
 * Each worker of the pool reads a request from the device, handles it and
 * replies, decompressing what it needs through the shared caches; no
 * request waits for another thread's hand-over.
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

#include "error.h"
#include "fs.h"
#include "image.h"
#include "pool.h"
#include "serve_int.h"

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
	s->threads = o->threads ? o->threads : 1;
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
	    fuse_opt_add_opt(&opts, "ro,default_permissions,subtype=squashkit") == 0 &&
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

static void worker(void *arg, unsigned index)
{
	struct sqk_serve *s = arg;
	struct fuse_buf buf;
	uint64_t one = 1;

	memset(&buf, 0, sizeof(buf));
	while (!fuse_session_exited(s->se)) {
		int res = fuse_session_receive_buf(s->se, &buf);

		if (res == -EINTR)
			continue;
		if (res <= 0)
			break;
		fuse_session_process_buf(s->se, &buf);
	}
	free(buf.mem);
	sqk_serve_scratch_free();
	fuse_session_exit(s->se);
	if (write(s->done_fd, &one, sizeof(one)) < 0)
		return;
}

/* The kernel ended the connection (unmounted, or aborted): the device says so. */
static int connection_gone(struct sqk_serve *s)
{
	struct pollfd p = {fuse_session_fd(s->se), 0, 0};

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLNVAL));
}

int sqk_serve_run(struct sqk_serve *s)
{
	struct pollfd pfd[2];
	struct sqk_pool *pool;
	sigset_t set;
	unsigned i;
	int sfd, err = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	/* Blocked before the workers start, so that only the signalfd sees them. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	s->done_fd = eventfd(0, EFD_CLOEXEC);
	if (sfd < 0 || s->done_fd < 0) {
		if (sfd >= 0)
			close(sfd);
		return SQK_ERR_IO;
	}
	/* Without it small reads still work, one request per page. */
	sqk_serve_store_start(&s->store, s->se, sqk_image_super(sqk_fs_image(s->fs))->block_size);
	pool = sqk_pool_create(s->threads, s->threads);
	for (i = 0; pool && i < s->threads && !err; i++)
		err = sqk_pool_submit(pool, worker, s);
	if (!pool || err) {
		/* Without workers nobody answers: take the mount down again. */
		err = SQK_ERR_NOMEM;
		sqk_serve_unmount(s->mountpoint, 1);
	} else {
		pfd[0] = (struct pollfd){sfd, POLLIN, 0};
		pfd[1] = (struct pollfd){s->done_fd, POLLIN, 0};
		while (poll(pfd, 2, -1) < 0 && errno == EINTR)
			;
		/*
		 * A signal, or a worker stopped. Workers block reading the device
		 * until the kernel ends the connection, which unmounting does.
		 */
		if (!connection_gone(s))
			sqk_serve_unmount(s->mountpoint, 1);
	}
	sqk_pool_destroy(pool);
	sqk_serve_store_stop(&s->store);
	close(sfd);
	return err;
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
