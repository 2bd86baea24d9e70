// SPDX-License-Identifier: BSD-2-Clause
/* The atomic output file: refusals, commit, abort, and cleanup on a signal. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "util/error.h"
#include "util/file.h"
#include "util/outfile.h"

static char dir[256];

/* Entries in dir besides . and .. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static int slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (int)n;
}

static int write_str(struct sqk_outfile *of, const char *s)
{
	struct sqk_file *f = sqk_outfile_file(of);

	return f->write_at(f, 0, s, strlen(s));
}

int main(void)
{
	struct sqk_outfile *of = NULL;
	char target[300], buf[64], sub[300];
	uint64_t dev[2], ino[2];
	struct stat st;
	pid_t pid;
	int status, err;

	snprintf(dir, sizeof(dir), "/tmp/sqk-outfile-%d", (int)getpid());
	mkdir(dir, 0700);
	snprintf(target, sizeof(target), "%s/img", dir);

	err = sqk_outfile_create(target, 0, &of);
	is_int(err, 0, "create beside a new target");
	is_int(entries(), 1, "only the temporary file exists while writing");
	ok(stat(target, &st) != 0, "the target does not exist before commit");
	is_int(sqk_outfile_ids(of, dev, ino), 1,
	       "no target to replace: one id, the temporary file");
	ok(fstat(sqk_file_fd(sqk_outfile_file(of)), &st) == 0 && st.st_ino == ino[0] &&
		   st.st_dev == dev[0],
	   "the id is the temporary file's");
	is_int(write_str(of, "first"), 0, "write");
	is_int(sqk_outfile_commit(of), 0, "commit");
	is_int(slurp(target, buf, sizeof(buf)), 5, "the target has the contents");
	ok(!strcmp(buf, "first"), "the contents are what was written");
	is_int(entries(), 1, "no temporary file after commit");

	of = NULL;
	is_int(sqk_outfile_create(target, 0, &of), SQK_ERR_EXIST, "an existing target is refused");
	ok(!of, "nothing handed out on refusal");
	is_int(entries(), 1, "a refusal creates nothing");

	is_int(sqk_outfile_create(target, 1, &of), 0, "force: an existing target is accepted");
	is_int(sqk_outfile_ids(of, dev, ino), 2, "force: the target to replace and the temporary");
	ok(stat(target, &st) == 0 && st.st_ino == ino[0], "force: the target comes first");
	write_str(of, "second");
	sqk_outfile_abort(of);
	is_int(entries(), 1, "abort removes the temporary file");
	slurp(target, buf, sizeof(buf));
	ok(!strcmp(buf, "first"), "abort leaves the old target as it was");

	is_int(sqk_outfile_create(target, 1, &of), 0, "force again");
	write_str(of, "third!");
	is_int(sqk_outfile_commit(of), 0, "force: commit replaces the target");
	slurp(target, buf, sizeof(buf));
	ok(!strcmp(buf, "third!"), "the new contents are in place");

	/* A target that appears while the file is written is never replaced without force. */
	snprintf(sub, sizeof(sub), "%s/late", dir);
	is_int(sqk_outfile_create(sub, 0, &of), 0, "create for a target that does not exist yet");
	write_str(of, "mine");
	{
		FILE *f = fopen(sub, "w");

		fputs("theirs", f);
		fclose(f);
	}
	is_int(sqk_outfile_commit(of), SQK_ERR_IO, "commit refuses a target that appeared");
	is_int(errno, EEXIST, "the rename's errno is kept");
	slurp(sub, buf, sizeof(buf));
	ok(!strcmp(buf, "theirs"), "the late target is left alone");
	is_int(entries(), 2, "and the temporary file is gone");
	unlink(sub);

	snprintf(sub, sizeof(sub), "%s/d", dir);
	mkdir(sub, 0700);
	is_int(sqk_outfile_create(sub, 1, &of), SQK_ERR_ARG, "a directory is never replaced");
	is_int(sqk_outfile_create(sub, 0, &of), SQK_ERR_EXIST, "without force it just exists");
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/no/such/dir/img", dir);
	is_int(sqk_outfile_create(sub, 0, &of), SQK_ERR_IO, "no directory for the temporary file");
	is_int(errno, ENOENT, "its errno is kept");
	{
		static char longp[4200];

		memset(longp, 'a', sizeof(longp) - 1);
		is_int(sqk_outfile_create(longp, 0, &of), SQK_ERR_OVERFLOW, "a path too long");
	}
	sqk_outfile_abort(NULL);

	/* SIGTERM and SIGINT while writing: the temporary file goes, the signal kills. */
	for (int k = 0; k < 2; k++) {
		int sig = k ? SIGINT : SIGTERM;
		int fds[2];
		char c;

		snprintf(sub, sizeof(sub), "%s/sig", dir);
		if (pipe(fds))
			return 1;
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			/* A job a script started in the background ignores SIGINT: not this one. */
			signal(sig, SIG_DFL);
			if (sqk_outfile_create(sub, 0, &of))
				_exit(3);
			write_str(of, "partial");
			if (write(fds[1], "x", 1) != 1)
				_exit(4);
			pause();
			_exit(5);
		}
		close(fds[1]);
		ok(read(fds[0], &c, 1) == 1, "%s: the child is writing", strsignal(sig));
		close(fds[0]);
		is_int(entries(), 2, "%s: its temporary file exists", strsignal(sig));
		kill(pid, sig);
		waitpid(pid, &status, 0);
		ok(WIFSIGNALED(status) && WTERMSIG(status) == sig, "%s: the signal ends the child",
		   strsignal(sig));
		is_int(entries(), 1, "%s: no temporary file and no target left", strsignal(sig));
	}

	/*
	 * A signal the process ignores (nohup, a background job of a script)
	 * stays ignored while writing; the others get the handler, and after
	 * the end the old dispositions are back.
	 */
	signal(SIGHUP, SIG_IGN);
	is_int(sqk_outfile_create(target, 1, &of), 0, "create with SIGHUP ignored");
	{
		struct sigaction sa;

		sigaction(SIGHUP, NULL, &sa);
		ok(sa.sa_handler == SIG_IGN, "while writing, an ignored SIGHUP stays ignored");
		sigaction(SIGTERM, NULL, &sa);
		ok(sa.sa_handler != SIG_DFL, "while writing, SIGTERM cleans up");
		sqk_outfile_abort(of);
		sigaction(SIGHUP, NULL, &sa);
		ok(sa.sa_handler == SIG_IGN, "afterwards, the ignored SIGHUP is as it was");
		sigaction(SIGTERM, NULL, &sa);
		ok(sa.sa_handler == SIG_DFL, "afterwards, SIGTERM's old disposition is back");
	}

	unlink(target);
	rmdir(dir);
	return tap_done();
}
