// SPDX-License-Identifier: BSD-2-Clause
/*
 * libfault.so: fault injection for the tests, through LD_PRELOAD. It
 * stands in front of the C library's calls that data goes through and
 * makes the Nth call of one class fail, come back short, or raise a
 * signal, so a test can sweep every such call a command makes.
 *
 *   SQK_FAULT=CLASS:N:ACTION     the Nth call of CLASS (counted from 1,
 *                                over all threads) does ACTION
 *   SQK_FAULT_COUNT=FILE         at exit, append "CLASS COUNT" lines: the
 *                                calls of each class the process made
 *   SQK_FAULT_LOG=FILE           the faulted call's "CLASS N PATH" (the
 *                                path it was about: its argument, or what
 *                                its descriptor is open on)
 *
 * Classes: write (write, pwrite) of anything but a character device,
 * read (read, pread) of anything but a device (files, pipes: not
 * /dev/fuse, whose reads are the FUSE session's own), open (open, openat,
 * mkstemp, mkostemp), make (mkdir, mkdirat, symlinkat, mknodat, link,
 * linkat), sync (fsync, fdatasync), rename (rename, renameat, renameat2),
 * truncate (ftruncate), close (close of a descriptor open for writing).
 * Actions: an errno name (ENOSPC, EIO, EINTR, EDQUOT, EROFS, EACCES) to
 * fail with; short (write or read half of what was asked, for write and
 * read); SIGINT, SIGTERM (send the signal to the process, then make the
 * call); SIGKILL (a writer killed outright), SIGSTOP (a writer that stays
 * alive, stopped, until the test sends it SIGCONT or SIGKILL).
 *
 * Under AddressSanitizer the sanitizer's runtime must come first in
 * LD_PRELOAD; its interceptors then call these, which call the C library.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum { C_WRITE, C_READ, C_OPEN, C_MAKE, C_SYNC, C_RENAME, C_TRUNCATE, C_CLOSE, C_COUNT };
static const char *const class_names[C_COUNT] = {"write", "read",   "open",	"make",
						 "sync",  "rename", "truncate", "close"};

enum { A_NONE, A_ERRNO, A_SHORT, A_SIGNAL };

static unsigned long counts[C_COUNT];
static int target = -1, action = A_NONE, action_arg;
static unsigned long target_n;
static int ready;

static const struct {
	const char *name;
	int value;
} errnos[] = {
	{"ENOSPC", ENOSPC}, {"EIO", EIO},     {"EINTR", EINTR},
	{"EDQUOT", EDQUOT}, {"EROFS", EROFS}, {"EACCES", EACCES},
};

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		static const char msg[] = "libfault: a C library function is missing\n";

		(void)!write(2, msg, sizeof(msg) - 1);
		abort();
	}
	return f;
}

#define REAL(ret, name, args)                                                                      \
	static ret(*real_##name) args;                                                             \
	if (!real_##name)                                                                          \
	real_##name = (ret(*) args)next(#name)

static void parse(void)
{
	const char *spec = getenv("SQK_FAULT");
	char cls[32], act[32];
	size_t i;

	ready = 1;
	if (!spec || sscanf(spec, "%31[a-z]:%lu:%31s", cls, &target_n, act) != 3)
		return;
	for (i = 0; i < C_COUNT; i++)
		if (strcmp(cls, class_names[i]) == 0)
			target = (int)i;
	if (strcmp(act, "short") == 0) {
		action = A_SHORT;
	} else if (strcmp(act, "SIGINT") == 0 || strcmp(act, "SIGTERM") == 0 ||
		   strcmp(act, "SIGKILL") == 0 || strcmp(act, "SIGSTOP") == 0) {
		action = A_SIGNAL;
		action_arg = act[3] == 'I'   ? SIGINT
			     : act[3] == 'T' ? SIGTERM
			     : act[3] == 'K' ? SIGKILL
					     : SIGSTOP;
	} else {
		for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
			if (strcmp(act, errnos[i].name) == 0) {
				action = A_ERRNO;
				action_arg = errnos[i].value;
			}
	}
	if (action == A_NONE)
		target = -1;
}

__attribute__((constructor)) static void init(void)
{
	parse();
}

/* Append text to the file the variable names; nothing here is counted. */
static void append_to(const char *var, const char *text)
{
	REAL(int, open, (const char *, int, ...));
	REAL(ssize_t, write, (int, const void *, size_t));
	REAL(int, close, (int));
	const char *file = getenv(var);
	int fd;

	if (!file || !*file)
		return;
	fd = real_open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	(void)!real_write(fd, text, strlen(text));
	real_close(fd);
}

__attribute__((destructor)) static void report_counts(void)
{
	char buf[512];
	size_t len = 0;

	if (!getenv("SQK_FAULT_COUNT"))
		return;
	for (int i = 0; i < C_COUNT; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %lu\n", class_names[i],
					__atomic_load_n(&counts[i], __ATOMIC_RELAXED));
	append_to("SQK_FAULT_COUNT", buf);
}

/* What fd is open on (the working directory for AT_FDCWD). */
static void fd_path(int fd, char *where, size_t size)
{
	char link[64];
	ssize_t len;

	if (fd == AT_FDCWD) {
		if (!getcwd(where, size))
			where[0] = '\0';
		return;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, where, size - 1);
	where[len > 0 ? len : 0] = '\0';
}

/* The faulted call's line: its path, a relative one joined to its directory's. */
static void log_fault(int cls, unsigned long n, int dirfd, const char *path, int fd)
{
	char where[PATH_MAX + 1], line[2 * PATH_MAX + 64];

	if (!path)
		fd_path(fd, where, sizeof(where));
	else if (path[0] != '/')
		fd_path(dirfd, where, sizeof(where));
	snprintf(line, sizeof(line), "%s %lu %s%s%s\n", class_names[cls], n,
		 !path || path[0] != '/' ? where : "", path && path[0] != '/' ? "/" : "",
		 path ? path : "");
	append_to("SQK_FAULT_LOG", line);
}

/*
 * Count a call; when it is the one, return the action to take (A_NONE for
 * the others). A signal is raised here, and the call then goes on.
 */
static int hit_at(int cls, int dirfd, const char *path, int fd)
{
	unsigned long n = __atomic_add_fetch(&counts[cls], 1, __ATOMIC_RELAXED);
	int saved = errno;

	if (!ready)
		parse();
	if (cls != target || n != target_n)
		return A_NONE;
	log_fault(cls, n, dirfd, path, fd);
	errno = saved;
	if (action == A_SIGNAL) {
		/* To the process, as a terminal's or kill's signal comes, not to this thread. */
		kill(getpid(), action_arg);
		return A_NONE;
	}
	return action;
}

static int hit(int cls, const char *path, int fd)
{
	return hit_at(cls, AT_FDCWD, path, fd);
}

/*
 * Reads and writes of data: not of a character device (the FUSE session's
 * /dev/fuse), nor reads of a block device (the bench's loop devices);
 * writes to a block device (an image written to a partition) count.
 */
static int hit_data(int cls, int fd)
{
	struct stat st;
	int saved = errno;

	if (fstat(fd, &st) == 0 &&
	    (S_ISCHR(st.st_mode) || (S_ISBLK(st.st_mode) && cls != C_WRITE))) {
		errno = saved;
		return A_NONE;
	}
	errno = saved;
	return hit(cls, NULL, fd);
}

/* A_SHORT only means something to reads and writes; elsewhere the call is made. */
static int fails(int act)
{
	if (act == A_ERRNO) {
		errno = action_arg;
		return 1;
	}
	return 0;
}

#define SHORT(len) ((len) > 1 ? (len) / 2 : (len))

ssize_t write(int fd, const void *buf, size_t len)
{
	REAL(ssize_t, write, (int, const void *, size_t));
	int act = hit_data(C_WRITE, fd);

	if (fails(act))
		return -1;
	return real_write(fd, buf, act == A_SHORT ? SHORT(len) : len);
}

static ssize_t do_pwrite(ssize_t (*real)(int, const void *, size_t, off_t), int fd, const void *buf,
			 size_t len, off_t off)
{
	int act = hit_data(C_WRITE, fd);

	if (fails(act))
		return -1;
	return real(fd, buf, act == A_SHORT ? SHORT(len) : len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	REAL(ssize_t, pwrite, (int, const void *, size_t, off_t));
	return do_pwrite(real_pwrite, fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	REAL(ssize_t, pwrite64, (int, const void *, size_t, off_t));
	return do_pwrite(real_pwrite64, fd, buf, len, off);
}

ssize_t read(int fd, void *buf, size_t len)
{
	REAL(ssize_t, read, (int, void *, size_t));
	int act = hit_data(C_READ, fd);

	if (fails(act))
		return -1;
	return real_read(fd, buf, act == A_SHORT ? SHORT(len) : len);
}

static ssize_t do_pread(ssize_t (*real)(int, void *, size_t, off_t), int fd, void *buf, size_t len,
			off_t off)
{
	int act = hit_data(C_READ, fd);

	if (fails(act))
		return -1;
	return real(fd, buf, act == A_SHORT ? SHORT(len) : len, off);
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	REAL(ssize_t, pread, (int, void *, size_t, off_t));
	return do_pread(real_pread, fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	REAL(ssize_t, pread64, (int, void *, size_t, off_t));
	return do_pread(real_pread64, fd, buf, len, off);
}

/* The mode argument, when the flags say there is one. */
#define MODE_ARG(flags, mode)                                                                      \
	do {                                                                                       \
		if ((flags) & (O_CREAT | O_TMPFILE)) {                                             \
			va_list ap;                                                                \
			va_start(ap, flags);                                                       \
			mode = va_arg(ap, mode_t);                                                 \
			va_end(ap);                                                                \
		}                                                                                  \
	} while (0)

#define OPEN_LIKE(name, cls)                                                                       \
	int name(const char *path, int flags, ...)                                                 \
	{                                                                                          \
		REAL(int, name, (const char *, int, ...));                                         \
		mode_t mode = 0;                                                                   \
		MODE_ARG(flags, mode);                                                             \
		if (fails(hit(cls, path, -1)))                                                     \
			return -1;                                                                 \
		return real_##name(path, flags, mode);                                             \
	}

OPEN_LIKE(open, C_OPEN)
OPEN_LIKE(open64, C_OPEN)

#define OPENAT_LIKE(name)                                                                          \
	int name(int dirfd, const char *path, int flags, ...)                                      \
	{                                                                                          \
		REAL(int, name, (int, const char *, int, ...));                                    \
		mode_t mode = 0;                                                                   \
		MODE_ARG(flags, mode);                                                             \
		if (fails(hit_at(C_OPEN, dirfd, path, -1)))                                        \
			return -1;                                                                 \
		return real_##name(dirfd, path, flags, mode);                                      \
	}

OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)

#define MKSTEMP_LIKE(name, params, args)                                                           \
	int name params                                                                            \
	{                                                                                          \
		REAL(int, name, params);                                                           \
		if (fails(hit(C_OPEN, tmpl, -1)))                                                  \
			return -1;                                                                 \
		return real_##name args;                                                           \
	}

MKSTEMP_LIKE(mkstemp, (char *tmpl), (tmpl))
MKSTEMP_LIKE(mkstemp64, (char *tmpl), (tmpl))
MKSTEMP_LIKE(mkostemp, (char *tmpl, int flags), (tmpl, flags))
MKSTEMP_LIKE(mkostemp64, (char *tmpl, int flags), (tmpl, flags))

int mkdir(const char *path, mode_t mode)
{
	REAL(int, mkdir, (const char *, mode_t));
	if (fails(hit(C_MAKE, path, -1)))
		return -1;
	return real_mkdir(path, mode);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	REAL(int, mkdirat, (int, const char *, mode_t));
	if (fails(hit_at(C_MAKE, dirfd, path, -1)))
		return -1;
	return real_mkdirat(dirfd, path, mode);
}

int symlinkat(const char *target, int dirfd, const char *path)
{
	REAL(int, symlinkat, (const char *, int, const char *));
	if (fails(hit_at(C_MAKE, dirfd, path, -1)))
		return -1;
	return real_symlinkat(target, dirfd, path);
}

int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	REAL(int, mknodat, (int, const char *, mode_t, dev_t));
	if (fails(hit_at(C_MAKE, dirfd, path, -1)))
		return -1;
	return real_mknodat(dirfd, path, mode, dev);
}

int link(const char *from, const char *to)
{
	REAL(int, link, (const char *, const char *));
	if (fails(hit(C_MAKE, to, -1)))
		return -1;
	return real_link(from, to);
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	REAL(int, linkat, (int, const char *, int, const char *, int));
	if (fails(hit_at(C_MAKE, tofd, to, -1)))
		return -1;
	return real_linkat(fromfd, from, tofd, to, flags);
}

int fsync(int fd)
{
	REAL(int, fsync, (int));
	if (fails(hit(C_SYNC, NULL, fd)))
		return -1;
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	REAL(int, fdatasync, (int));
	if (fails(hit(C_SYNC, NULL, fd)))
		return -1;
	return real_fdatasync(fd);
}

int rename(const char *from, const char *to)
{
	REAL(int, rename, (const char *, const char *));
	if (fails(hit(C_RENAME, to, -1)))
		return -1;
	return real_rename(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	REAL(int, renameat, (int, const char *, int, const char *));
	if (fails(hit_at(C_RENAME, tofd, to, -1)))
		return -1;
	return real_renameat(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	REAL(int, renameat2, (int, const char *, int, const char *, unsigned));
	if (fails(hit_at(C_RENAME, tofd, to, -1)))
		return -1;
	return real_renameat2(fromfd, from, tofd, to, flags);
}

static int do_ftruncate(int (*real)(int, off_t), int fd, off_t len)
{
	if (fails(hit(C_TRUNCATE, NULL, fd)))
		return -1;
	return real(fd, len);
}

int ftruncate(int fd, off_t len)
{
	REAL(int, ftruncate, (int, off_t));
	return do_ftruncate(real_ftruncate, fd, len);
}

int ftruncate64(int fd, off_t len)
{
	REAL(int, ftruncate64, (int, off_t));
	return do_ftruncate(real_ftruncate64, fd, len);
}

/* Only a descriptor open for writing: where a deferred write error would show. */
int close(int fd)
{
	REAL(int, close, (int));
	int fl = fcntl(fd, F_GETFL);
	struct stat st;

	if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    fails(hit(C_CLOSE, NULL, fd))) {
		real_close(fd); /* the descriptor is gone, as after a real failure */
		return -1;
	}
	return real_close(fd);
}
