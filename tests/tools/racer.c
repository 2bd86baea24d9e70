// SPDX-License-Identifier: BSD-2-Clause
/*
 * racer [-u UID:GID] -l|-h DIR SUBST SECONDS: another user racing an
 * extraction into DIR, a directory both can write to. It watches DIR with
 * inotify and, each time a non-directory appears in it, renames a
 * prepared entry over the new name, in the instant between its creation
 * and the calls that set its owner, mode, xattrs and times:
 *   -l  a symlink to SUBST (a file the extractor must never change);
 *   -h  a hard link of SUBST (a file of the racer's own, which the
 *       extractor must never chown, chmod or link to).
 * With -u it first becomes UID:GID (an unprivileged user). It writes
 * "ready" on standard output once the watch is in place, and stops after
 * SECONDS or when DIR goes, saying "swaps N". Exit 0, or 2 on a usage
 * error, 1 when the watch cannot be set up.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define PLANT ".racer-plant"

static int dirfd_, use_symlink;
static const char *subst;

/* The entry to rename over the next name: made ahead, so that only a rename is left to do. */
static void plant(void)
{
	if (use_symlink)
		symlinkat(subst, dirfd_, PLANT);
	else
		linkat(AT_FDCWD, subst, dirfd_, PLANT, 0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int become(const char *spec)
{
	unsigned long uid, gid;
	char *end;

	uid = strtoul(spec, &end, 10);
	if (*end != ':')
		return -1;
	gid = strtoul(end + 1, &end, 10);
	if (*end)
		return -1;
	if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 ||
	    setresuid(uid, uid, uid) != 0) {
		perror("racer: setresuid");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char buf[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const char *user = NULL;
	unsigned long swaps = 0;
	double end;
	int opt, in, mode = 0, gone = 0;

	while ((opt = getopt(argc, argv, "u:lh")) != -1) {
		if (opt == 'u')
			user = optarg;
		else
			mode = opt;
	}
	if (!mode || argc - optind != 3)
		return fprintf(stderr, "usage: racer [-u UID:GID] -l|-h DIR SUBST SECONDS\n"), 2;
	if (user && become(user) != 0)
		return 2;
	use_symlink = mode == 'l';
	subst = argv[optind + 1];
	end = now() + atof(argv[optind + 2]);
	dirfd_ = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (dirfd_ < 0 || in < 0 ||
	    inotify_add_watch(in, argv[optind], IN_CREATE | IN_DELETE_SELF | IN_ONLYDIR) < 0) {
		perror(argv[optind]);
		return 1;
	}
	plant();
	printf("ready\n");
	fflush(stdout);
	while (!gone && now() < end) {
		struct pollfd p = {in, POLLIN, 0};
		ssize_t len;

		if (poll(&p, 1, 50) <= 0)
			continue;
		while ((len = read(in, buf, sizeof(buf))) > 0) {
			for (char *q = buf; q < buf + len;) {
				struct inotify_event *ev = (struct inotify_event *)q;

				q += sizeof(*ev) + ev->len;
				if (ev->mask & (IN_DELETE_SELF | IN_IGNORED))
					gone = 1;
				if (!(ev->mask & IN_CREATE) || (ev->mask & IN_ISDIR) || !ev->len ||
				    strncmp(ev->name, ".racer", 6) == 0)
					continue;
				if (renameat(dirfd_, PLANT, dirfd_, ev->name) == 0)
					swaps++;
				plant();
			}
		}
	}
	unlinkat(dirfd_, PLANT, 0);
	printf("swaps %lu\n", swaps);
	return 0;
}
