// SPDX-License-Identifier: BSD-2-Clause
/*
 * Stale temporary files (outfile.h): an output's temporary file is locked
 * (flock) by its writer from its creation to its rename, so a lock that
 * can be taken tells a temporary file whose writer is gone (SIGKILL, a
 * crash, a power cut) from one still being written, whoever wrote it and
 * whatever its age; nothing is guessed from a process id.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* ".NAME.squashkit-" and six characters of mkstemp's. */
static int is_temp_of(const char *entry, const char *name)
{
	static const char tag[] = ".squashkit-";
	size_t n = strlen(name), t = sizeof(tag) - 1;

	if (entry[0] != '.' || strncmp(entry + 1, name, n) != 0 ||
	    strncmp(entry + 1 + n, tag, t) != 0)
		return 0;
	entry += 1 + n + t;
	if (strlen(entry) != 6)
		return 0;
	for (int i = 0; i < 6; i++)
		if (!((entry[i] >= 'a' && entry[i] <= 'z') ||
		      (entry[i] >= 'A' && entry[i] <= 'Z') || (entry[i] >= '0' && entry[i] <= '9')))
			return 0;
	return 1;
}

/* Remove entry under dfd if it is a regular file nobody holds the lock of. */
static int remove_if_stale(int dfd, const char *entry)
{
	struct stat a, b;
	int fd, gone = 0;

	fd = openat(dfd, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &a) == 0 && S_ISREG(a.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    fstatat(dfd, entry, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		gone = unlinkat(dfd, entry, 0) == 0;
	close(fd);
	return gone;
}

void sqk_outfile_sweep(const char *dir, const char *name, const char *own,
		       void (*stale)(void *ctx, const char *path), void *ctx)
{
	DIR *d = opendir(*dir ? dir : ".");
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, own) == 0 || !is_temp_of(e->d_name, name))
			continue;
		if (!remove_if_stale(dirfd(d), e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s%s%s", dir, *dir && strcmp(dir, "/") ? "/" : "",
			 e->d_name);
		stale(ctx, path);
	}
	closedir(d);
}
