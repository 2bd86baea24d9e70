/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FILE_H
#define SQK_FILE_H

/*
 * The file interface: what the reader reads an image through and the
 * writer writes one through. A POSIX file and an in-memory buffer
 * implement it (the memory file serves unit tests and the fuzzer).
 * read_at and write_at are positional and safe to call from several
 * threads at once.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_file {
	/* Read exactly len bytes at off; SQK_ERR_TRUNCATED past the end. */
	int (*read_at)(struct sqk_file *f, uint64_t off, void *buf, size_t len);
	/* Write len bytes at off (grows the file); SQK_ERR_NOSPACE when full. */
	int (*write_at)(struct sqk_file *f, uint64_t off, const void *buf, size_t len);
	uint64_t (*size)(struct sqk_file *f);
	/* Flush written data to stable storage (no-op for memory). */
	int (*sync)(struct sqk_file *f);
	void (*destroy)(struct sqk_file *f);
	/*
	 * Cut or extend the file to size bytes (zeros); NULL for a file that
	 * cannot (callbacks). A writer that rewound over bytes it wrote cuts
	 * what it no longer wants.
	 */
	int (*truncate)(struct sqk_file *f, uint64_t size);
	/*
	 * Where byte 0 of this file lies in the file it is read from at the
	 * bottom (a window's start, through every wrapper over it): the offset
	 * an image was found or opened at. Set when made; 0 for a whole file.
	 */
	uint64_t origin;
	/* Counters, for bench and tests. */
	uint64_t reads, bytes_read;
	/*
	 * The errno of the last system call that failed (0: none did): a code
	 * says SQK_ERR_IO from any thread, this says which error it was.
	 */
	int errnum;
};

enum {
	SQK_FILE_READ = 0,
	SQK_FILE_WRITE = 1, /* create or truncate, read-write */
	/*
	 * Read-only with O_DIRECT: every read reaches the device, none is
	 * served by the page cache (each is widened to the device's alignment).
	 */
	SQK_FILE_DIRECT = 2,
};

/* Open a POSIX file. On failure returns NULL and sets *err (errno kept). */
struct sqk_file *sqk_file_open(const char *path, int mode, int *err);
/* Wrap an open descriptor; the file closes it on destroy when own is set. */
struct sqk_file *sqk_file_fdopen(int fd, int own);
/* The descriptor behind a POSIX file, or -1. */
int sqk_file_fd(struct sqk_file *f);
/* Whether fd is open on a regular file (a device or a pipe keeps its size: no truncation). */
int sqk_fd_is_regular(int fd);

/*
 * Write all of buf to fd (at off, or at the file position when off is
 * SQK_NO_OFFSET), retrying short counts and EINTR. A write that takes no
 * byte is ENOSPC, as coreutils reads it. Returns 0, or -1 with errno set.
 */
#define SQK_NO_OFFSET UINT64_MAX
int sqk_write_full(int fd, const void *buf, size_t len, uint64_t off);
/* Read exactly len bytes at off: 0, 1 at the end of the file, or -1 with errno set. */
int sqk_read_full(int fd, void *buf, size_t len, uint64_t off);

/* An in-memory file over a copy of data (len bytes); writable grows. */
struct sqk_file *sqk_file_mem(const void *data, size_t len);
/* The contents of a memory file (valid until the next write). */
const uint8_t *sqk_file_mem_data(struct sqk_file *f, size_t *len);

/*
 * A read-only file through a caller's callbacks (copied; io->close is
 * called on destroy, or at once when this fails for want of memory).
 */
struct sqk_io;
struct sqk_file *sqk_file_io(const struct sqk_io *io);
/* The callbacks behind a file made by sqk_file_io, or NULL. */
const struct sqk_io *sqk_file_io_of(const struct sqk_file *f);

static inline void sqk_file_destroy(struct sqk_file *f)
{
	if (f)
		f->destroy(f);
}

/*
 * Windows (file_window.c). A read-only view of inner from base on; it
 * owns inner. NULL without memory.
 */
struct sqk_file *sqk_file_window(struct sqk_file *inner, uint64_t base);
/*
 * A read-write view of inner from base on, for writing an image after
 * bytes kept in front of it; inner stays the caller's. NULL without memory.
 */
struct sqk_file *sqk_file_window_rw(struct sqk_file *inner, uint64_t base);
/* Where a window starts in its inner file; 0 for a file that is no window. */
uint64_t sqk_file_window_base(struct sqk_file *f);
/* The file a window looks into; NULL for a file that is no window. */
struct sqk_file *sqk_file_window_inner(struct sqk_file *f);

#endif
