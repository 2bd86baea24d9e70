// SPDX-License-Identifier: BSD-2-Clause
/* The on-disk cache of a remote image's blocks (see remote_disk.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "remote_disk.h"
#include "util/file.h"

struct sqk_remote_disk {
	int dfd;
	uint64_t max, used; /* used: what this process believes the directory holds */
	char prefix[20];    /* the identity's 16 hex digits and '-' */
};

/* A temporary file older than this was left by a writer that is gone. */
#define STALE_SECONDS 600

/* FNV-1a, 64 bits: a name for the identity, not a secret. */
static uint64_t fnv(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* Is name one of the cache's block files ("<16 hex>-<hex>")? */
static int is_block(const char *name)
{
	return strlen(name) > 17 && name[16] == '-' && strspn(name, "0123456789abcdef") == 16;
}

struct old {
	char name[64];
	struct timespec when;
	uint64_t size;
};

static int by_age(const void *a, const void *b)
{
	const struct old *x = a, *y = b;

	if (x->when.tv_sec != y->when.tv_sec)
		return x->when.tv_sec < y->when.tv_sec ? -1 : 1;
	return x->when.tv_nsec < y->when.tv_nsec ? -1 : x->when.tv_nsec > y->when.tv_nsec;
}

/*
 * What the directory holds, in bytes; with evict, the oldest blocks are
 * removed down to three quarters of the bound and old temporary files of
 * writers that are gone with them.
 */
static uint64_t scan(struct sqk_remote_disk *d, int evict)
{
	struct old *v = NULL, *nv;
	size_t n = 0, cap = 0, i, len;
	uint64_t total = 0;
	struct dirent *de;
	int fd = dup(d->dfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	time_t now = time(NULL);

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(dir);
	while ((de = readdir(dir))) {
		struct stat st;
		int block = is_block(de->d_name);

		if ((!block && strncmp(de->d_name, ".tmp-", 5) != 0) ||
		    fstatat(d->dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (!block) {
			if (evict && now - st.st_mtime > STALE_SECONDS)
				unlinkat(d->dfd, de->d_name, 0);
			continue;
		}
		total += (uint64_t)st.st_size;
		len = strlen(de->d_name);
		if (!evict || len >= sizeof(v->name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		/* The length is checked above (a copy the compiler sees as bounded). */
		memcpy(v[n].name, de->d_name, len + 1);
		v[n].when = st.st_atim;
		v[n].size = (uint64_t)st.st_size;
		n++;
	}
	closedir(dir);
	if (evict && v) {
		qsort(v, n, sizeof(*v), by_age);
		for (i = 0; i < n && total > d->max / 4 * 3; i++)
			if (unlinkat(d->dfd, v[i].name, 0) == 0)
				total -= v[i].size;
	}
	free(v);
	return total;
}

struct sqk_remote_disk *sqk_remote_disk_open(const char *dir, uint64_t max, const char *identity)
{
	struct sqk_remote_disk *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		goto fail;
	d->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dfd < 0)
		goto fail;
	d->max = max;
	snprintf(d->prefix, sizeof(d->prefix), "%016llx-", (unsigned long long)fnv(identity));
	d->used = scan(d, 0);
	return d;
fail:
	free(d);
	return NULL;
}

void sqk_remote_disk_close(struct sqk_remote_disk *d)
{
	if (!d)
		return;
	close(d->dfd);
	free(d);
}

static void block_name(const struct sqk_remote_disk *d, uint64_t n, char name[64])
{
	snprintf(name, 64, "%s%llx", d->prefix, (unsigned long long)n);
}

int sqk_remote_disk_get(struct sqk_remote_disk *d, uint64_t n, void *buf, size_t len)
{
	char name[64];
	struct stat st;
	int fd, ok;

	block_name(d, n, name);
	fd = openat(d->dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == len &&
	     sqk_read_full(fd, buf, len, 0) == 0;
	close(fd);
	/* Its access time says it was used: the eviction keeps it longer. */
	if (ok)
		utimensat(d->dfd, name, (struct timespec[2]){{0, UTIME_NOW}, {0, UTIME_OMIT}},
			  AT_SYMLINK_NOFOLLOW);
	return ok ? 0 : -1;
}

void sqk_remote_disk_put(struct sqk_remote_disk *d, uint64_t n, const void *buf, size_t len)
{
	char name[64], tmp[64];
	uint64_t used;
	static unsigned seq;
	int fd, lock, bad;

	block_name(d, n, name);
	snprintf(tmp, sizeof(tmp), ".tmp-%ld.%u", (long)getpid(),
		 __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	fd = openat(d->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	bad = sqk_write_full(fd, buf, len, 0) != 0;
	if (close(fd) != 0 || bad || renameat(d->dfd, tmp, d->dfd, name) != 0) {
		unlinkat(d->dfd, tmp, 0);
		return;
	}
	used = __atomic_add_fetch(&d->used, len, __ATOMIC_RELAXED);
	if (used <= d->max)
		return;
	/* One user evicts at a time; the others go on and find it done. */
	lock = openat(d->dfd, ".lock", O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0)
		return;
	if (flock(lock, LOCK_EX | LOCK_NB) == 0)
		__atomic_store_n(&d->used, scan(d, 1), __ATOMIC_RELAXED);
	close(lock);
}
