// SPDX-License-Identifier: BSD-2-Clause
/*
 * The laboratory's reality: loop devices, kernel mounts, the page cache,
 * and the block layer's throttle, set up for a comparison and taken down
 * after it (lab_dev.h). System calls only: no shell, no helper programs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lab_dev.h"
#include "util/error.h"
#include "util/file.h"
#include "util/mounttab.h"
#include "walk/extract.h"

static void nap_ms(unsigned ms)
{
	struct timespec ts = {0, (long)ms * 1000000L};

	nanosleep(&ts, NULL);
}

/* ---- loop devices ---- */

int sqk_lab_loop_attach(const char *path, uint64_t offset, struct sqk_lab_loop *l)
{
	struct loop_config cfg;
	struct stat st;
	int ctl, img, tries, e, err = SQK_ERR_IO;

	l->fd = -1;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return SQK_ERR_IO;
	img = open(path, O_RDONLY | O_CLOEXEC);
	if (img < 0) {
		close(ctl);
		return SQK_ERR_IO;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned)img;
	cfg.info.lo_offset = offset;
	cfg.info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR;
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", path);
	/* Another user may take the free device first: ask again, as losetup does. */
	for (tries = 0; tries < 64; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0)
			break;
		snprintf(l->dev, sizeof(l->dev), "/dev/loop%d", n);
		l->fd = open(l->dev, O_RDONLY | O_CLOEXEC);
		if (l->fd < 0) {
			if (errno == ENOENT) {
				/* The node appears a moment after the device. */
				nap_ms(5);
				continue;
			}
			break;
		}
		if (ioctl(l->fd, LOOP_CONFIGURE, &cfg) == 0) {
			err = 0;
			break;
		}
		e = errno;
		close(l->fd);
		l->fd = -1;
		errno = e;
		if (e != EBUSY)
			break;
	}
	if (!err && fstat(l->fd, &st) == 0) {
		l->major = major(st.st_rdev);
		l->minor = minor(st.st_rdev);
	}
	{
		int saved = errno;

		close(img);
		close(ctl);
		errno = saved;
	}
	return err;
}

void sqk_lab_loop_detach(struct sqk_lab_loop *l)
{
	if (l->fd < 0)
		return;
	/* Autoclear: the last close detaches it, now or at the unmount. */
	close(l->fd);
	l->fd = -1;
}

int sqk_lab_loop_flush(struct sqk_lab_loop *l)
{
	return ioctl(l->fd, BLKFLSBUF, 0) == 0 ? 0 : SQK_ERR_IO;
}

/* ---- mounts ---- */

int sqk_lab_mount(const char *dev, const char *dir)
{
	return mount(dev, dir, "squashfs", MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) == 0
		       ? 0
		       : SQK_ERR_IO;
}

int sqk_lab_umount(const char *dir)
{
	int tries;

	for (tries = 0; tries < 50; tries++) {
		if (umount2(dir, 0) == 0)
			return 0;
		if (errno != EBUSY)
			return errno == EINVAL ? 0 : SQK_ERR_IO; /* EINVAL: not mounted */
		nap_ms(20);
	}
	return umount2(dir, MNT_DETACH) == 0 ? 0 : SQK_ERR_IO;
}

static int is_mount_at(void *arg, const char *mnt, const char *type, const char *opts)
{
	return strcmp(mnt, arg) == 0;
}

int sqk_lab_mounted(const char *dir)
{
	/* No realpath(): it would ask the file system mounted there, which may not answer. */
	return sqk_mounts_each(is_mount_at, (void *)dir);
}

int sqk_lab_drop_cache(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return SQK_ERR_IO;
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (err) {
		errno = err;
		return SQK_ERR_IO;
	}
	return 0;
}

/* ---- the throttle ---- */

struct hierarchy {
	char root[2048];
	int v2;
};

static int has_word(const char *list, const char *word, const char *seps)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || strchr(seps, p[-1])) && (p[n] == '\0' || strchr(seps, p[n])))
			return 1;
		p += n;
	}
	return 0;
}

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The hierarchy with the io controller: cgroup v1's blkio, else cgroup v2 with io. */
static int find_io(void *arg, const char *mnt, const char *type, const char *opts)
{
	struct hierarchy *h = arg;
	char path[PATH_MAX], list[512];

	if (strcmp(type, "cgroup") == 0 && has_word(opts, "blkio", ",")) {
		snprintf(h->root, sizeof(h->root), "%s", mnt);
		h->v2 = 0;
		return 1;
	}
	if (strcmp(type, "cgroup2") == 0 && !h->root[0]) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
		if (read_small(path, list, sizeof(list)) == 0 && has_word(list, "io", " \n")) {
			snprintf(h->root, sizeof(h->root), "%s", mnt);
			h->v2 = 1;
		}
	}
	return 0;
}

/* This process's cgroup in the hierarchy (from /proc/self/cgroup). */
static int own_cgroup(const struct hierarchy *h, char *out, size_t len)
{
	FILE *fp = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX + 64];
	int found = -1;

	if (!fp)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), fp)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		line[strcspn(line, "\n")] = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if ((h->v2 && strcmp(line, "0") == 0 && c1[1] == '\0') ||
		    (!h->v2 && has_word(c1 + 1, "blkio", ","))) {
			snprintf(out, len, "%s%s", h->root, strcmp(c2 + 1, "/") ? c2 + 1 : "");
			found = 0;
		}
	}
	fclose(fp);
	return found;
}

static int write_to(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return SQK_ERR_IO;
	/* Retried on a short count: a setting the kernel refuses fails with its errno. */
	if (sqk_write_full(fd, text, strlen(text), SQK_NO_OFFSET) != 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return SQK_ERR_IO;
	}
	close(fd);
	return 0;
}

static int move_self(const char *dir)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	return write_to(dir, "cgroup.procs", pid);
}

static int set_limits(const struct hierarchy *h, const char *dir, const struct sqk_lab_loop *l,
		      uint64_t iops, uint64_t bps)
{
	char text[128];
	int err = 0;

	if (h->v2) {
		char riops[32] = "max", rbps[32] = "max";

		if (iops)
			snprintf(riops, sizeof(riops), "%llu", (unsigned long long)iops);
		if (bps)
			snprintf(rbps, sizeof(rbps), "%llu", (unsigned long long)bps);
		snprintf(text, sizeof(text), "%u:%u riops=%s rbps=%s\n", l->major, l->minor, riops,
			 rbps);
		return write_to(dir, "io.max", text);
	}
	if (iops) {
		snprintf(text, sizeof(text), "%u:%u %llu\n", l->major, l->minor,
			 (unsigned long long)iops);
		err = write_to(dir, "blkio.throttle.read_iops_device", text);
	}
	if (!err && bps) {
		snprintf(text, sizeof(text), "%u:%u %llu\n", l->major, l->minor,
			 (unsigned long long)bps);
		err = write_to(dir, "blkio.throttle.read_bps_device", text);
	}
	return err;
}

int sqk_lab_throttle_start(const struct sqk_lab_loop *l, uint64_t iops, uint64_t bps,
			   struct sqk_lab_throttle *t)
{
	struct hierarchy h;
	int err, saved;

	memset(t, 0, sizeof(*t));
	memset(&h, 0, sizeof(h));
	err = sqk_mounts_each(find_io, &h);
	if (err < 0)
		return err;
	if (!h.root[0] || own_cgroup(&h, t->home, sizeof(t->home)) != 0)
		return SQK_ERR_UNSUPPORTED;
	/* At the top of the hierarchy: in cgroup v2 only there may io be enabled beside processes.
	 */
	snprintf(t->dir, sizeof(t->dir), "%s/%s.%d", h.root, SQK_LAB_TAG, (int)getpid());
	if (mkdir(t->dir, 0755) != 0 && errno != EEXIST)
		return SQK_ERR_IO;
	err = h.v2 ? write_to(h.root, "cgroup.subtree_control", "+io\n") : 0;
	if (!err)
		err = set_limits(&h, t->dir, l, iops, bps);
	if (!err)
		err = move_self(t->dir);
	if (err) {
		saved = errno;
		rmdir(t->dir);
		errno = saved;
		return err;
	}
	t->active = 1;
	return 0;
}

int sqk_lab_throttle_end(struct sqk_lab_throttle *t)
{
	int err, tries;

	if (!t->active)
		return 0;
	t->active = 0;
	err = move_self(t->home);
	/* The cgroup empties a moment after its last task leaves. */
	for (tries = 0; tries < 100 && rmdir(t->dir) != 0 && errno == EBUSY; tries++)
		nap_ms(10);
	return err;
}

/* ---- what killed runs left ---- */

/* A process that has ended but not been waited for yet. */
static int is_zombie(long pid)
{
	char path[64], buf[512], *paren;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_small(path, buf, sizeof(buf)) != 0)
		return 0;
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] == 'Z';
}

/* The process a name SQK_LAB_TAG.PID... belongs to, if it is gone: its pid, else 0. */
static long dead_owner(const char *name)
{
	const char *p = strstr(name, SQK_LAB_TAG ".");
	char *end;
	long pid;

	if (!p)
		return 0;
	p += strlen(SQK_LAB_TAG ".");
	pid = strtol(p, &end, 10);
	if (end == p || (*end && *end != '.' && *end != '/') || pid <= 0 || pid == getpid())
		return 0;
	if (kill((pid_t)pid, 0) != 0)
		return errno == ESRCH ? pid : 0;
	return is_zombie(pid) ? pid : 0;
}

struct sweep {
	char (*mnt)[PATH_MAX];
	size_t n, cap;
	struct hierarchy h;
};

static int find_stale(void *arg, const char *mnt, const char *type, const char *opts)
{
	struct sweep *s = arg;
	const char *base = strrchr(mnt, '/');

	find_io(&s->h, mnt, type, opts);
	/* A mount point inside a scratch directory of a run that is gone. */
	if (!base || base == mnt || !dead_owner(mnt) || !strstr(mnt, "/" SQK_LAB_TAG "."))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		void *m = realloc(s->mnt, cap * sizeof(*s->mnt));

		if (!m)
			return SQK_ERR_NOMEM;
		s->mnt = m;
		s->cap = cap;
	}
	snprintf(s->mnt[s->n++], PATH_MAX, "%s", mnt);
	return 0;
}

static int mount_below(void *arg, const char *mnt, const char *type, const char *opts)
{
	size_t n = strlen(arg);

	return strncmp(mnt, arg, n) == 0 && (mnt[n] == '/' || mnt[n] == '\0');
}

int sqk_lab_sweep(const char *base)
{
	struct sweep s;
	struct dirent *d;
	char path[PATH_MAX * 2];
	int found = 0, err;
	size_t i;
	DIR *dir;

	memset(&s, 0, sizeof(s));
	err = sqk_mounts_each(find_stale, &s);
	/* Deepest first, so that a mount over a mount comes off first. */
	for (i = s.n; i-- > 0;) {
		if (umount2(s.mnt[i], MNT_DETACH) == 0)
			found++;
	}
	free(s.mnt);
	if (err < 0)
		return err;
	dir = s.h.root[0] ? opendir(s.h.root) : NULL;
	while (dir && (d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, SQK_LAB_TAG ".", strlen(SQK_LAB_TAG ".")) ||
		    !dead_owner(d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s.h.root, d->d_name);
		if (rmdir(path) == 0)
			found++;
	}
	if (dir)
		closedir(dir);
	/* The scratch directories, once nothing is mounted in them any more. */
	dir = opendir(base);
	while (dir && (d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, SQK_LAB_TAG ".", strlen(SQK_LAB_TAG ".")) ||
		    !dead_owner(d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, d->d_name);
		if (sqk_mounts_each(mount_below, path) == 0 &&
		    sqk_remove_tree(dirfd(dir), d->d_name) == 0)
			found++;
	}
	if (dir)
		closedir(dir);
	return found;
}
