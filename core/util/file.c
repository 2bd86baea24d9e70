// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "file.h"

struct posix_file {
	struct sqk_file base;
	int fd;
	int own;
	/* O_DIRECT: reads go through an aligned buffer of the reading thread's */
	size_t align;
	pthread_key_t bounce;
};

int sqk_write_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n =
			off == SQK_NO_OFFSET ? write(fd, p, len) : pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		if (off != SQK_NO_OFFSET)
			off += (uint64_t)n;
	}
	return 0;
}

int sqk_read_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 1;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* A failed call: its errno kept in the file, for the error line. */
static int failed(struct sqk_file *f, int err)
{
	__atomic_store_n(&f->errnum, errno, __ATOMIC_RELAXED);
	return err;
}

/* One aligned buffer per reading thread, kept at the largest size it needed. */
struct bounce {
	void *buf;
	size_t size;
};

static void bounce_free(void *p)
{
	struct bounce *b = p;

	free(b->buf);
	free(b);
}

static void *bounce_get(struct posix_file *pf, size_t size)
{
	struct bounce *b = pthread_getspecific(pf->bounce);

	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b || pthread_setspecific(pf->bounce, b) != 0) {
			free(b);
			return NULL;
		}
	}
	if (b->size < size) {
		free(b->buf);
		b->size = 0;
		if (posix_memalign(&b->buf, pf->align, size) != 0) {
			b->buf = NULL;
			return NULL;
		}
		b->size = size;
	}
	return b->buf;
}

/*
 * O_DIRECT takes aligned positions, lengths and buffers: read the aligned
 * span around the request, one read as the device sees it, and copy out.
 */
static int direct_read(struct posix_file *pf, uint64_t off, void *buf, size_t len)
{
	uint64_t start = off & ~(uint64_t)(pf->align - 1);
	uint64_t end = (off + len + pf->align - 1) & ~(uint64_t)(pf->align - 1);
	size_t span = (size_t)(end - start), got = 0;
	uint8_t *b = bounce_get(pf, span);

	if (!b)
		return SQK_ERR_NOMEM;
	while (got < span) {
		ssize_t n = pread(pf->fd, b + got, span - got, (off_t)(start + got));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return failed(&pf->base, SQK_ERR_IO);
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	/* The aligned span may run past the end of the file; the request may not. */
	if (got < off - start + len)
		return SQK_ERR_TRUNCATED;
	memcpy(buf, b + (off - start), len);
	return 0;
}

static int posix_read_at(struct sqk_file *f, uint64_t off, void *buf, size_t len)
{
	struct posix_file *pf = (struct posix_file *)f;
	int r;

	__atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&f->bytes_read, len, __ATOMIC_RELAXED);
	if (len == 0)
		return 0;
	if (pf->align)
		return direct_read(pf, off, buf, len);
	r = sqk_read_full(pf->fd, buf, len, off);
	if (r < 0)
		return failed(f, SQK_ERR_IO);
	return r ? SQK_ERR_TRUNCATED : 0;
}

static int posix_write_at(struct sqk_file *f, uint64_t off, const void *buf, size_t len)
{
	struct posix_file *pf = (struct posix_file *)f;

	if (sqk_write_full(pf->fd, buf, len, off) != 0)
		return failed(f, sqk_err_from_errno());
	return 0;
}

static uint64_t posix_size(struct sqk_file *f)
{
	struct posix_file *pf = (struct posix_file *)f;
	struct stat st;
	uint64_t bytes;

	if (fstat(pf->fd, &st) != 0)
		return 0;
	/* A block device (an image written to a partition) has no size of its own in st_size. */
	if (S_ISBLK(st.st_mode))
		return ioctl(pf->fd, BLKGETSIZE64, &bytes) == 0 ? bytes : 0;
	return (uint64_t)st.st_size;
}

int sqk_fd_is_regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

static int posix_sync(struct sqk_file *f)
{
	struct posix_file *pf = (struct posix_file *)f;

	if (fsync(pf->fd) != 0 && errno != EINVAL && errno != EROFS)
		return failed(f, sqk_err_from_errno());
	return 0;
}

static int posix_truncate(struct sqk_file *f, uint64_t size)
{
	struct posix_file *pf = (struct posix_file *)f;
	struct stat st;

	/* Only a regular file is cut: a device keeps its size, a pipe has none. */
	if (fstat(pf->fd, &st) != 0)
		return failed(f, sqk_err_from_errno());
	if (!S_ISREG(st.st_mode))
		return 0;
	if (ftruncate(pf->fd, (off_t)size) != 0)
		return failed(f, sqk_err_from_errno());
	return 0;
}

static void posix_destroy(struct sqk_file *f)
{
	struct posix_file *pf = (struct posix_file *)f;

	if (pf->own)
		close(pf->fd);
	if (pf->align) {
		/* The calling thread's buffer; other threads' went when they ended. */
		void *b = pthread_getspecific(pf->bounce);

		if (b)
			bounce_free(b);
		pthread_key_delete(pf->bounce);
	}
	free(pf);
}

struct sqk_file *sqk_file_fdopen(int fd, int own)
{
	struct posix_file *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return NULL;
	pf->base.read_at = posix_read_at;
	pf->base.write_at = posix_write_at;
	pf->base.size = posix_size;
	pf->base.sync = posix_sync;
	pf->base.destroy = posix_destroy;
	pf->base.truncate = posix_truncate;
	pf->fd = fd;
	pf->own = own;
	return &pf->base;
}

/* The alignment O_DIRECT wants of fd: the device's logical block, at least a page. */
static size_t direct_align(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t a = page > 0 ? (size_t)page : 4096;
	struct stat st;
	int lbs;

	if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && ioctl(fd, BLKSSZGET, &lbs) == 0 &&
	    (size_t)lbs > a)
		a = (size_t)lbs;
	return a;
}

struct sqk_file *sqk_file_open(const char *path, int mode, int *err)
{
	int flags = mode == SQK_FILE_WRITE ? O_RDWR | O_CREAT | O_TRUNC : O_RDONLY;
	struct posix_file *pf;
	struct sqk_file *f;
	int fd;

	if (mode == SQK_FILE_DIRECT)
		flags = O_RDONLY | O_DIRECT;
	do
		fd = open(path, flags | O_CLOEXEC, 0644);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		*err = SQK_ERR_IO;
		return NULL;
	}
	f = sqk_file_fdopen(fd, 1);
	if (!f) {
		close(fd);
		*err = SQK_ERR_NOMEM;
		return NULL;
	}
	if (mode == SQK_FILE_DIRECT) {
		pf = (struct posix_file *)f;
		if (pthread_key_create(&pf->bounce, bounce_free) != 0) {
			sqk_file_destroy(f);
			*err = SQK_ERR_NOMEM;
			return NULL;
		}
		pf->align = direct_align(fd);
	}
	return f;
}

int sqk_file_fd(struct sqk_file *f)
{
	if (f->read_at != posix_read_at)
		return -1;
	return ((struct posix_file *)f)->fd;
}

struct mem_file {
	struct sqk_file base;
	uint8_t *data;
	size_t len, cap;
};

static int mem_read_at(struct sqk_file *f, uint64_t off, void *buf, size_t len)
{
	struct mem_file *mf = (struct mem_file *)f;

	/* Readers share a file across threads (file.h): count as the POSIX file does. */
	__atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&f->bytes_read, len, __ATOMIC_RELAXED);
	if (off > mf->len || len > mf->len - off)
		return SQK_ERR_TRUNCATED;
	memcpy(buf, mf->data + off, len);
	return 0;
}

static int mem_write_at(struct sqk_file *f, uint64_t off, const void *buf, size_t len)
{
	struct mem_file *mf = (struct mem_file *)f;
	uint64_t end = off + len;

	if (end < off || end > SIZE_MAX / 2) {
		errno = ENOSPC;
		return failed(f, SQK_ERR_NOSPACE);
	}
	if (end > mf->cap) {
		size_t old = mf->cap;

		if (SQK_ARRAY_GROW(mf->data, mf->cap, (size_t)end))
			return SQK_ERR_NOMEM;
		/* A write past the end leaves a gap that reads as zeros. */
		memset(mf->data + old, 0, mf->cap - old);
	}
	memcpy(mf->data + off, buf, len);
	if (end > mf->len)
		mf->len = (size_t)end;
	return 0;
}

static uint64_t mem_size(struct sqk_file *f)
{
	return ((struct mem_file *)f)->len;
}

static int mem_sync(struct sqk_file *f)
{
	return 0;
}

static int mem_truncate(struct sqk_file *f, uint64_t size)
{
	struct mem_file *mf = (struct mem_file *)f;

	if (size > mf->len) {
		uint8_t zero = 0;

		return mem_write_at(f, size - 1, &zero, 1);
	}
	/* What was cut reads as zeros if the file grows again. */
	memset(mf->data + size, 0, mf->len - (size_t)size);
	mf->len = (size_t)size;
	return 0;
}

static void mem_destroy(struct sqk_file *f)
{
	struct mem_file *mf = (struct mem_file *)f;

	free(mf->data);
	free(mf);
}

struct sqk_file *sqk_file_mem(const void *data, size_t len)
{
	struct mem_file *mf = calloc(1, sizeof(*mf));

	if (!mf)
		return NULL;
	mf->base.read_at = mem_read_at;
	mf->base.write_at = mem_write_at;
	mf->base.size = mem_size;
	mf->base.sync = mem_sync;
	mf->base.destroy = mem_destroy;
	mf->base.truncate = mem_truncate;
	if (len && mem_write_at(&mf->base, 0, data, len) != 0) {
		free(mf);
		return NULL;
	}
	return &mf->base;
}

const uint8_t *sqk_file_mem_data(struct sqk_file *f, size_t *len)
{
	struct mem_file *mf = (struct mem_file *)f;

	*len = mf->len;
	return mf->data;
}
