// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src.h"
#include "util/array.h"
#include "util/error.h"

void sqk_src_fail(struct sqk_src_ctx *c, const char *path, const char *fmt, ...)
{
	va_list ap;

	c->err_errno = errno;
	snprintf(c->err_path, sizeof(c->err_path), "%s", path ? path : "");
	va_start(ap, fmt);
	vsnprintf(c->err_msg, sizeof(c->err_msg), fmt, ap);
	va_end(ap);
}

uint32_t sqk_src_time(struct sqk_src_ctx *c, const char *path, int64_t t)
{
	int after = t > (int64_t)UINT32_MAX;
	char **first = after ? &c->time_after_path : &c->time_before_path;

	if (t >= 0 && !after)
		return (uint32_t)t;
	if (after)
		c->times_after++;
	else
		c->times_before++;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	/* Without memory for the path, the warning names none: no reason to fail a build. */
	if (!*first && asprintf(first, "%s%s", *path == '/' ? "" : "/", path) < 0)
		*first = NULL;
	return after ? UINT32_MAX : 0;
}

void sqk_src_warn_times(struct sqk_src_ctx *c, int after)
{
	uint64_t n = c->times_before + (after ? c->times_after : 0);
	const char *first = c->times_before ? c->time_before_path : c->time_after_path;
	char more[64] = "";
	char what[256];

	if (!n || !c->warn)
		return;
	if (n == 2)
		snprintf(more, sizeof(more), " and that of one more entry are");
	else if (n > 2)
		snprintf(more, sizeof(more), " and those of %llu more entries are",
			 (unsigned long long)(n - 1));
	snprintf(what, sizeof(what),
		 "its time (%s)%s outside what the format holds, 1970-01-01 to 2106-02-07 "
		 "UTC: clamped",
		 c->times_before ? "before 1970" : "after 2106", n > 1 ? more : " is");
	c->warn(c->warn_ctx, first ? first : "/", what);
}

int sqk_src_excluded(const struct sqk_src_ctx *c, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	if (c->exclude_style != SQK_EXCLUDE_GLOB)
		return sqk_src_excluded_components(c, path);
	base = base ? base + 1 : path;
	for (i = 0; i < c->nexcludes; i++) {
		const char *pat = c->excludes[i];

		/* "/x" is anchored at the root; a pattern without '/' also matches a base name. */
		if (pat[0] == '/') {
			if (fnmatch(pat + 1, path, 0) == 0)
				return 1;
			continue;
		}
		if (fnmatch(pat, path, 0) == 0)
			return 1;
		if (!strchr(pat, '/') && fnmatch(pat, base, 0) == 0)
			return 1;
	}
	return 0;
}

int sqk_src_excluded_path(const struct sqk_src_ctx *c, const char *path)
{
	char buf[4096];
	size_t n = strlen(path), i;

	if (!c->nexcludes)
		return 0;
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
	/* Each parent in turn: an excluded directory takes its subtree with it. */
	for (i = 1; i < n; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (sqk_src_excluded(c, buf))
			return 1;
		buf[i] = '/';
	}
	return sqk_src_excluded(c, buf);
}

struct extent {
	uint64_t start, end;
};

/* One sweep over the file: every data extent, in order. */
static int map_extents(int fd, uint64_t size, struct extent **out, size_t *n, uint64_t *lseeks)
{
	struct extent *ext = NULL;
	size_t cnt = 0, cap = 0;
	uint64_t off = 0;

	while (off < size) {
		off_t d, h;

		d = lseek(fd, (off_t)off, SEEK_DATA);
		(*lseeks)++;
		if (d < 0) {
			if (errno == ENXIO)
				break;
			free(ext);
			return -1;
		}
		h = lseek(fd, d, SEEK_HOLE);
		(*lseeks)++;
		if (h < 0) {
			free(ext);
			return -1;
		}
		if ((uint64_t)h > size)
			h = (off_t)size;
		if (SQK_ARRAY_GROW(ext, cap, cnt + 1)) {
			free(ext);
			errno = ENOMEM;
			return -1;
		}
		ext[cnt++] = (struct extent){(uint64_t)d, (uint64_t)h};
		if ((uint64_t)h <= off) /* no progress: give up on the map */
			break;
		off = (uint64_t)h;
	}
	*out = ext;
	*n = cnt;
	return 0;
}

static int read_full(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t r = pread(fd, buf, len, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = 0;
			return 1; /* shorter than it was */
		}
		buf += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int sqk_src_feed_file(struct sqk_src_ctx *c, const char *path, uint64_t size, uint64_t *id)
{
	int fd = -1, err;

	if (size) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			sqk_src_fail(c, path, "%s", strerror(errno));
			return SQK_ERR_IO;
		}
	}
	err = sqk_src_feed_fd(c, fd, path, size, id);
	if (fd >= 0)
		close(fd);
	return err;
}

int sqk_src_feed_fd(struct sqk_src_ctx *c, int fd, const char *path, uint64_t size, uint64_t *id)
{
	struct extent *ext = NULL, whole;
	size_t next = 0, n = 0;
	struct stat st;
	int err, sparse_map = 0;

	if (size) {
		if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != size) {
			sqk_src_fail(c, path, "file changed size while building");
			return SQK_ERR_IO;
		}
		/* Fewer allocated blocks than bytes: map holes once, then never read them. */
		if ((uint64_t)st.st_blocks * 512 < size) {
			if (map_extents(fd, size, &ext, &n, &c->lseeks) == 0)
				sparse_map = 1;
		}
		if (!sparse_map) {
			whole = (struct extent){0, size};
			ext = &whole;
			n = 1;
		}
		if (size > (1u << 20))
			posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	err = sqk_data_file_begin(c->dw, size, id);
	while (!err) {
		uint8_t *buf;
		uint32_t len;
		uint64_t off, end, pos;
		int r, hole = 1;

		r = sqk_data_piece(c->dw, &buf, &len, &off);
		if (r) {
			err = r < 0 ? r : 0;
			break;
		}
		end = off + len;
		/* The cursor only moves forward: linear in extents for the whole file. */
		while (next < n && ext[next].end <= off)
			next++;
		pos = off;
		for (size_t i = next; i < n && ext[i].start < end; i++) {
			uint64_t s = ext[i].start > off ? ext[i].start : off;
			uint64_t e = ext[i].end < end ? ext[i].end : end;

			if (hole && s > off)
				memset(buf, 0, (size_t)(s - off));
			else if (s > pos)
				memset(buf + (pos - off), 0, (size_t)(s - pos));
			hole = 0;
			r = read_full(fd, buf + (s - off), (size_t)(e - s), s);
			if (r) {
				sqk_src_fail(c, path, "%s",
					     r < 0 ? strerror(errno)
						   : "file changed size while building");
				err = SQK_ERR_IO;
				break;
			}
			pos = e;
		}
		if (err)
			break;
		if (!hole && pos < end)
			memset(buf + (pos - off), 0, (size_t)(end - pos));
		err = sqk_data_piece_done(c->dw, hole);
	}
	if (ext != &whole)
		free(ext);
	return err;
}
