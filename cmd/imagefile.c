// SPDX-License-Identifier: BSD-2-Clause
/* The image file fsck checks, read through callbacks (imagefile.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "imagefile.h"
#include "imageopt.h"
#include "remoteopt.h"

/* Exactly len bytes at pos of the image: 0, SQK_ERR_TRUNCATED at the end, SQK_ERR_IO. */
static int read_at(void *ctx, uint64_t pos, void *buf, size_t len)
{
	struct cli_image_file *f = ctx;
	uint8_t *p = buf;
	uint64_t off = f->base + pos;

	__atomic_add_fetch(&f->bytes_read, len, __ATOMIC_RELAXED);
	if (f->fd < 0)
		return f->remote.read_at(f->remote.ctx, off, buf, len);
	while (len > 0) {
		ssize_t n = pread(f->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			__atomic_store_n(&f->errnum, errno, __ATOMIC_RELAXED);
			return SQK_ERR_IO;
		}
		if (n == 0)
			return SQK_ERR_TRUNCATED;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static uint64_t size_of(void *ctx)
{
	return ((struct cli_image_file *)ctx)->size;
}

/* The bytes of the file fd: a block device (an image on a partition) has no st_size. */
static uint64_t file_bytes(int fd)
{
	struct stat st;
	uint64_t bytes;

	if (fstat(fd, &st) != 0)
		return 0;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, &bytes) == 0 ? bytes : 0;
	return (uint64_t)st.st_size;
}

/* A remote image, read through the library's callbacks for its URL. */
static struct cli_image_file *open_url(const char *path, const struct sqk_offset *o)
{
	struct cli_image_file *f = calloc(1, sizeof(*f));
	uint64_t bytes;

	if (!f) {
		cli_error_code(path, SQK_ERR_NOMEM);
		return NULL;
	}
	f->fd = -1;
	if (cli_remote_io(path, &f->remote)) {
		free(f);
		return NULL;
	}
	bytes = f->remote.size(f->remote.ctx);
	if (o->at && o->at >= bytes) {
		cli_error(path, "offset %llu is past the end of the file",
			  (unsigned long long)o->at);
		cli_image_file_close(f);
		return NULL;
	}
	f->base = o->at;
	f->size = bytes - o->at;
	return f;
}

struct cli_image_file *cli_image_file_open(const char *path)
{
	struct sqk_offset *o = cli_offset_setting();
	struct cli_image_file *f;
	uint64_t bytes;
	int fd;

	if (o->is_auto && cli_offset_find(path, o) != 0)
		return NULL;
	if (cli_is_url(path))
		return open_url(path, o);
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		cli_error_code(path, SQK_ERR_IO);
		return NULL;
	}
	bytes = file_bytes(fd);
	if (o->at && o->at >= bytes) {
		cli_error(path, "offset %llu is past the end of the file",
			  (unsigned long long)o->at);
		close(fd);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		cli_error_code(path, SQK_ERR_NOMEM);
		close(fd);
		return NULL;
	}
	f->fd = fd;
	f->base = o->at;
	f->size = bytes - o->at;
	return f;
}

struct sqk_io cli_image_file_io(struct cli_image_file *f)
{
	return (struct sqk_io){read_at, size_of, NULL, f};
}

void cli_image_file_close(struct cli_image_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	else if (f->remote.close)
		f->remote.close(f->remote.ctx);
	free(f);
}
