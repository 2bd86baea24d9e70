// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit bench's mount leg: for each run, a `squashkit mount` daemon
 * over the image, with the model's cache sizes and decompressor, the
 * cell's wait policy and a thread per reader (every reader of a kernel
 * mount is a thread in the kernel's cache), its counters read from its
 * --stats when it ends. The daemon runs in a process group of its own, so
 * that a Ctrl-C reaches bench alone, which takes the mount down itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_cmd.h"
#include "cmd.h"
#include "imageopt.h"

/* How long a daemon may take to come up or to end. */
#define DAEMON_WAIT_MS 20000

const char *cli_bench_self(void)
{
	static char path[4096];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);

	/* Gone or replaced since it started: the kernel's own link still runs it. */
	if (len <= 0 || (size_t)len >= sizeof(path) - 1 || strstr(path, " (deleted)"))
		return "/proc/self/exe";
	path[len] = '\0';
	return path;
}

static void nap_ms(unsigned ms)
{
	struct timespec ts = {0, (long)ms * 1000000L};

	nanosleep(&ts, NULL);
}

/* The first line the daemon wrote on standard error, or a generic one. */
static void daemon_said(const struct bench_daemon *d, const char *what)
{
	char line[512] = "";
	FILE *fp = fopen(d->err, "re");

	if (fp) {
		if (!fgets(line, sizeof(line), fp))
			line[0] = '\0';
		fclose(fp);
	}
	line[strcspn(line, "\n")] = '\0';
	cli_error(d->mnt, "squashkit mount %s%s%s", what, line[0] ? ": " : "", line);
}

/* Wait up to ms for the daemon to end; its status, or -1 if it still runs. */
static int reap(struct bench_daemon *d, unsigned ms)
{
	unsigned waited = 0;
	int status;

	for (;;) {
		pid_t r = waitpid(d->pid, &status, WNOHANG);

		if (r == d->pid) {
			d->pid = 0;
			return status;
		}
		if (r < 0 && errno != EINTR) {
			d->pid = 0;
			return 0;
		}
		if (waited >= ms)
			return -1;
		nap_ms(10);
		waited += 10;
	}
}

/* The daemon is gone for good: killed if it would not end. */
static void kill_daemon(struct bench_daemon *d)
{
	if (d->pid > 0 && reap(d, 0) < 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
	}
	d->pid = 0;
}

int cli_bench_daemon_start(struct bench_daemon *d, const char *image, uint64_t offset,
			   const struct bench_cell *c)
{
	char threads[16], cache[96], stats[4200], off[32];
	const char *argv[20], *self;
	unsigned waited = 0;
	int n = 0, fd, m;

	snprintf(threads, sizeof(threads), "%u", c->threads);
	snprintf(cache, sizeof(cache), "meta=%u,frag=%u,data=%u,comp=%u", c->meta, c->frag, c->data,
		 c->comp);
	snprintf(stats, sizeof(stats), "--stats=%s", d->stats);
	snprintf(off, sizeof(off), "%llu", (unsigned long long)offset);
	argv[n++] = "squashkit";
	argv[n++] = "mount";
	argv[n++] = "-f";
	argv[n++] = "-j";
	argv[n++] = threads;
	argv[n++] = "--cache";
	argv[n++] = cache;
	argv[n++] = "--cache-policy";
	argv[n++] = sqk_policy_name(c->policy);
	argv[n++] = "--decomp";
	argv[n++] = c->decomp;
	argv[n++] = stats;
	argv[n++] = "--offset";
	argv[n++] = off;
	argv[n++] = image;
	argv[n++] = d->mnt;
	argv[n] = NULL;
	unlink(d->stats);
	self = cli_bench_self();
	d->pid = fork();
	if (d->pid < 0) {
		cli_error(d->mnt, "cannot start squashkit mount: %s", strerror(errno));
		d->pid = 0;
		return -1;
	}
	if (d->pid == 0) {
		sigset_t none;

		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		fd = open(d->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		execv(self, (char **)argv);
		_exit(127);
	}
	for (;;) {
		m = sqk_lab_mounted(d->mnt);
		if (m > 0)
			return 0;
		if (reap(d, 0) >= 0) {
			daemon_said(d, "ended before it mounted");
			return -1;
		}
		if (waited >= DAEMON_WAIT_MS || sqk_lab_stopped()) {
			if (!sqk_lab_stopped())
				cli_error(d->mnt, "squashkit mount did not come up in %u s",
					  DAEMON_WAIT_MS / 1000);
			kill_daemon(d);
			sqk_lab_umount(d->mnt);
			return -1;
		}
		nap_ms(5);
		waited += 5;
	}
}

int cli_bench_daemon_stop(struct bench_daemon *d, struct sqk_stats_read *stats)
{
	int status, ok;
	FILE *fp;

	if (d->pid <= 0)
		return -1;
	if (sqk_lab_umount(d->mnt) != 0) {
		cli_error(d->mnt, "cannot unmount: %s", strerror(errno));
		kill_daemon(d);
		return -1;
	}
	/* The unmount ends the session; the daemon writes its counters and exits. */
	status = reap(d, DAEMON_WAIT_MS);
	if (status == -1) {
		kill_daemon(d);
		cli_error(d->mnt, "squashkit mount did not end after the unmount");
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		daemon_said(d, "failed");
		return -1;
	}
	fp = fopen(d->stats, "re");
	ok = fp && cli_read_stats(fp, stats) == 0;
	if (fp)
		fclose(fp);
	if (!ok) {
		cli_error(d->stats, "squashkit mount wrote no counters");
		return -1;
	}
	return 0;
}
