// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bench's embedded default image: a deterministic generated tree.
 * Tens of thousands of small text-like files over a few hundred
 * directories (so metadata and fragments are shared and contended), plus
 * a few large files for the sequential workload.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_cmd.h"
#include "cmd.h"
#include "util/file.h"
#include "walk/extract.h"

#define DIRS	    200
#define FILES_PER   150
#define LARGE_FILES 6
#define LARGE_SIZE  (3u << 20)

static const char *const words[] = {
	"block",  "cache", "entry",    "fill",	 "wake",   "herd",    "queue",
	"thread", "inode", "fragment", "squash", "kernel", "release", "publish",
	"share",  "wait",  "lock",     "data",	 "meta",   "read",
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Text from a small vocabulary: compresses about as well as source code. */
static void fill_text(char *buf, size_t len, uint64_t *s)
{
	size_t n = 0;

	while (n < len) {
		const char *w = words[rnd(s) % (sizeof(words) / sizeof(words[0]))];
		size_t wl = strlen(w);

		if (n + wl + 1 > len)
			wl = len - n - 1 < wl ? len - n - 1 : wl;
		memcpy(buf + n, w, wl);
		n += wl;
		if (n < len)
			buf[n++] = (rnd(s) % 9) ? ' ' : '\n';
		if (n < len && rnd(s) % 5 == 0)
			n += (size_t)snprintf(buf + n, len - n, "%u", (unsigned)(rnd(s) % 100000));
		if (n > len)
			n = len;
	}
}

/* 0, or -1 with errno set (a short write retried; a full disk is ENOSPC). */
static int write_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), e;

	if (fd < 0)
		return -1;
	if (sqk_write_full(fd, buf, len, SQK_NO_OFFSET) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* The tree at root; on failure the error line names the path and its errno. */
static int make_tree(const char *root)
{
	char path[4400], *buf = malloc(LARGE_SIZE);
	uint64_t s = 0x5eed5eed5eedull;
	unsigned d, f;

	snprintf(path, sizeof(path), "%s", root);
	if (!buf || mkdir(root, 0755) != 0)
		goto fail;
	for (d = 0; d < DIRS; d++) {
		snprintf(path, sizeof(path), "%s/d%03u", root, d);
		if (mkdir(path, 0755) != 0)
			goto fail;
		for (f = 0; f < FILES_PER; f++) {
			/* Mostly small, a few up to 24 KiB: like a source tree. */
			size_t len = 200 + rnd(&s) % (rnd(&s) % 8 ? 3000 : 24000);

			fill_text(buf, len, &s);
			snprintf(path, sizeof(path), "%s/d%03u/f%04u.txt", root, d, f);
			if (write_file(path, buf, len) != 0)
				goto fail;
		}
	}
	snprintf(path, sizeof(path), "%s/large", root);
	if (mkdir(path, 0755) != 0)
		goto fail;
	for (f = 0; f < LARGE_FILES; f++) {
		fill_text(buf, LARGE_SIZE, &s);
		snprintf(path, sizeof(path), "%s/large/big%u.dat", root, f);
		if (write_file(path, buf, LARGE_SIZE) != 0)
			goto fail;
	}
	free(buf);
	return 0;
fail:
	cli_error(path, "cannot generate the default tree: %s", strerror(errno));
	free(buf);
	return -1;
}

const char *cli_bench_default_name(void)
{
	static char name[128];

	snprintf(name, sizeof(name),
		 "the embedded default (%u files in %u directories, gzip level 6; built for "
		 "this run)",
		 DIRS * FILES_PER + LARGE_FILES, DIRS + 2);
	return name;
}

int cli_bench_default_image(const char *self, const char *dir, char *img, size_t len, int quiet)
{
	char tree[2048];
	pid_t pid;
	int status;

	snprintf(tree, sizeof(tree), "%s/tree", dir);
	snprintf(img, len, "%s/default.img", dir);
	if (!quiet)
		fprintf(stderr, "bench: generating the default tree (%u files)...\n",
			DIRS * FILES_PER + LARGE_FILES);
	/* Stopped: the signal ends bench once what it made is removed. */
	if (make_tree(tree) != 0 || sqk_lab_stopped())
		return -1;
	if (!quiet)
		fprintf(stderr, "bench: building the default image with mkimage (gzip)...\n");
	pid = fork();
	if (pid == 0) {
		execl(self, "squashkit", "mkimage", "-q", "-c", "gzip", "-L", "6", tree, img,
		      (char *)NULL);
		_exit(127);
	}
	/* Interrupted: mkimage is stopped too, so that nothing writes into the directory after. */
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		if (sqk_lab_stopped())
			kill(pid, SIGTERM);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		cli_error(img, "mkimage could not build the default image");
		return -1;
	}
	sqk_remove_tree(AT_FDCWD, tree);
	return 0;
}
