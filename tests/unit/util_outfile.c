// SPDX-License-Identifier: BSD-2-Clause
/*
 * The output file: refusals, commit, abort, cleanup on a signal; a symlink
 * followed, a dangling one's target made, a fifo written as a stream; stale
 * temporary files removed, live ones kept.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
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

static int write_str(struct sqk_outfile *of, const char *s);

static int create(const char *target, int force, struct sqk_outfile **of)
{
	struct sqk_outfile_how how = {force, 1, NULL, NULL};

	return sqk_outfile_create(target, &how, of, NULL);
}

static char stale_seen[300];
static int stale_calls;

static void stale(void *ctx, const char *path)
{
	stale_calls++;
	snprintf(stale_seen, sizeof(stale_seen), "%s", path);
}

static void touch(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A symlink is followed and where it leads replaced; a dangling one's target is made. */
static void links(void)
{
	struct sqk_outfile *of = NULL;
	char real[300], link[300], dl[300], made[300], buf[64];
	struct stat st;

	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(dl, sizeof(dl), "%s/dangling", dir);
	snprintf(made, sizeof(made), "%s/made", dir);
	touch(real, "old");
	symlink("real", link);
	symlink("made", dl);
	is_int(create(link, 0, &of), SQK_ERR_EXIST, "a symlink to a file: it exists");
	is_int(create(link, 1, &of), 0, "with force, a symlink to a file is written through");
	is_int(sqk_outfile_kind(of), SQK_OUT_FILE, "where it leads is a file, replaced whole");
	write_str(of, "new");
	is_int(sqk_outfile_commit(of), 0, "commit through the symlink");
	ok(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the symlink stays a symlink");
	slurp(real, buf, sizeof(buf));
	ok(!strcmp(buf, "new"), "its target has the new contents");
	is_int(create(dl, 0, &of), 0, "a dangling symlink needs no force: nothing is replaced");
	write_str(of, "made");
	is_int(sqk_outfile_commit(of), 0, "commit through the dangling symlink");
	ok(lstat(dl, &st) == 0 && S_ISLNK(st.st_mode), "the dangling symlink stays");
	ok(lstat(made, &st) == 0 && S_ISREG(st.st_mode), "its target is made, a regular file");
	unlink(real);
	unlink(link);
	unlink(dl);
	unlink(made);
}

/* A fifo is written as a stream: its reader gets the bytes, the fifo stays. */
static void fifo(void)
{
	struct sqk_outfile *of = NULL;
	char path[300], got[300], buf[64];
	struct stat st;
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	snprintf(got, sizeof(got), "%s/got", dir);
	mkfifo(path, 0600);
	is_int(create(path, 0, &of), SQK_ERR_EXIST, "a fifo exists: refused without force");
	pid = fork();
	if (pid == 0) {
		char b[64];
		FILE *in = fopen(path, "r"), *out = fopen(got, "w");
		size_t n = in ? fread(b, 1, sizeof(b), in) : 0;

		if (out)
			fwrite(b, 1, n, out);
		_exit(!in || !out || fclose(out) != 0);
	}
	is_int(create(path, 1, &of), 0, "with force, a fifo is opened for writing");
	is_int(sqk_outfile_kind(of), SQK_OUT_STREAM, "a fifo is a stream");
	is_int(write_str(of, "streamed"), 0, "a writer that seeks writes to the spool");
	is_int(sqk_outfile_commit(of), 0, "commit copies the spool out");
	waitpid(pid, &status, 0);
	slurp(got, buf, sizeof(buf));
	ok(!strcmp(buf, "streamed"), "the reader got the bytes");
	ok(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the fifo stays a fifo");
	unlink(path);
	unlink(got);
}

/*
 * Temporary files of the same path: one whose lock is free (its writer
 * gone) is removed and said; one locked (a writer alive), or of another
 * name, stays.
 */
static void sweep(const char *target)
{
	struct sqk_outfile_how how = {1, 1, stale, NULL};
	struct sqk_outfile *of = NULL;
	char gone[300], live[300], other[300], shortn[300];
	struct stat st;
	int fd;

	snprintf(gone, sizeof(gone), "%s/.img.squashkit-AbC123", dir);
	snprintf(live, sizeof(live), "%s/.img.squashkit-LiVe99", dir);
	snprintf(other, sizeof(other), "%s/.img.backup", dir);
	snprintf(shortn, sizeof(shortn), "%s/.img.squashkit-abc", dir);
	touch(gone, "x");
	touch(live, "x");
	touch(other, "x");
	touch(shortn, "x");
	fd = open(live, O_RDONLY);
	ok(fd >= 0 && flock(fd, LOCK_EX) == 0, "a live writer holds its temporary file's lock");
	is_int(sqk_outfile_create(target, &how, &of, NULL), 0, "create with stale files about");
	is_int(stale_calls, 1, "one stale temporary file is said");
	ok(!strcmp(stale_seen, gone), "the one whose writer is gone, by its path");
	ok(stat(gone, &st) != 0 && errno == ENOENT, "it is removed");
	ok(stat(live, &st) == 0, "the live writer's stays");
	ok(stat(other, &st) == 0 && stat(shortn, &st) == 0, "names of another pattern stay");
	sqk_outfile_abort(of);
	close(fd);
	unlink(live);
	unlink(other);
	unlink(shortn);
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

	err = create(target, 0, &of);
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
	is_int(create(target, 0, &of), SQK_ERR_EXIST, "an existing target is refused");
	ok(!of, "nothing handed out on refusal");
	is_int(entries(), 1, "a refusal creates nothing");

	is_int(create(target, 1, &of), 0, "force: an existing target is accepted");
	is_int(sqk_outfile_ids(of, dev, ino), 2, "force: the target to replace and the temporary");
	ok(stat(target, &st) == 0 && st.st_ino == ino[0], "force: the target comes first");
	write_str(of, "second");
	sqk_outfile_abort(of);
	is_int(entries(), 1, "abort removes the temporary file");
	slurp(target, buf, sizeof(buf));
	ok(!strcmp(buf, "first"), "abort leaves the old target as it was");

	is_int(create(target, 1, &of), 0, "force again");
	write_str(of, "third!");
	is_int(sqk_outfile_commit(of), 0, "force: commit replaces the target");
	slurp(target, buf, sizeof(buf));
	ok(!strcmp(buf, "third!"), "the new contents are in place");

	/* A target that appears while the file is written is never replaced without force. */
	snprintf(sub, sizeof(sub), "%s/late", dir);
	is_int(create(sub, 0, &of), 0, "create for a target that does not exist yet");
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
	is_int(create(sub, 1, &of), SQK_ERR_ARG, "a directory is never replaced");
	is_int(create(sub, 0, &of), SQK_ERR_EXIST, "without force it just exists");
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/no/such/dir/img", dir);
	is_int(create(sub, 0, &of), SQK_ERR_IO, "no directory for the temporary file");
	is_int(errno, ENOENT, "its errno is kept");
	{
		static char longp[4200];

		memset(longp, 'a', sizeof(longp) - 1);
		is_int(create(longp, 0, &of), SQK_ERR_OVERFLOW, "a path too long");
	}
	sqk_outfile_abort(NULL);

	links();
	fifo();
	sweep(target);

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
			if (create(sub, 0, &of))
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
	is_int(create(target, 1, &of), 0, "create with SIGHUP ignored");
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
