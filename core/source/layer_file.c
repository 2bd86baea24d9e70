// SPDX-License-Identifier: BSD-2-Clause
/*
 * A layer read from a file (--archive with --whiteouts), or from standard
 * input, which is kept in a temporary file as it is first read when the
 * layer will be read again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layers.h"
#include "util/error.h"

struct sqk_layer_file {
	const char *path, *name; /* name: "stdin" for "-" */
	int fd;
	FILE *spool;	/* standard input as read so far */
	int keep;	/* this read goes into the spool */
	int from_spool; /* this read is of the spool */
	int err;	/* a read failed: every read after it fails so */
	uint8_t buf[1 << 16];
};

static int read_failed(struct sqk_src_ctx *c, const char *what, int e)
{
	errno = e;
	sqk_src_fail(c, what, "%s", strerror(e));
	return e == ENOSPC ? SQK_ERR_NOSPACE : SQK_ERR_IO;
}

static int file_open(void *ctx, struct sqk_src_ctx *c, int again)
{
	struct sqk_layer_file *f = ctx;

	f->keep = f->from_spool = f->err = 0;
	if (strcmp(f->path, "-") != 0) {
		do
			f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
		while (f->fd < 0 && errno == EINTR);
		return f->fd < 0 ? read_failed(c, f->name, errno) : 0;
	}
	if (f->spool) {
		/* Read once already: again from what was kept. */
		if (fflush(f->spool) != 0 || fseeko(f->spool, 0, SEEK_SET) != 0)
			return read_failed(c, "temporary file", errno);
		f->fd = fileno(f->spool);
		f->from_spool = 1;
		return 0;
	}
	f->fd = STDIN_FILENO;
	if (again) {
		f->spool = tmpfile();
		if (!f->spool)
			return read_failed(c, "temporary file", errno);
		f->keep = 1;
	}
	return 0;
}

static ssize_t file_read(void *ctx, struct sqk_src_ctx *c, const void **buf)
{
	struct sqk_layer_file *f = ctx;
	ssize_t n;

	if (f->err)
		return f->err;
	if (f->from_spool) {
		n = (ssize_t)fread(f->buf, 1, sizeof(f->buf), f->spool);
		if (n == 0 && ferror(f->spool))
			return f->err = read_failed(c, "temporary file", errno);
	} else {
		do
			n = read(f->fd, f->buf, sizeof(f->buf));
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return f->err = read_failed(c, f->name, errno);
		if (n > 0 && f->keep && fwrite(f->buf, 1, (size_t)n, f->spool) != (size_t)n)
			return f->err = read_failed(c, "temporary file", errno);
	}
	*buf = f->buf;
	return n;
}

/* Nothing to check; standard input is read to its end, as a writer into a pipe expects. */
static int file_finish(void *ctx, struct sqk_src_ctx *c)
{
	struct sqk_layer_file *f = ctx;
	const void *buf;
	ssize_t n = 0;

	if (f->fd == STDIN_FILENO && !f->from_spool)
		while ((n = file_read(f, c, &buf)) > 0)
			;
	return n < 0 ? (int)n : 0;
}

static void file_close(void *ctx)
{
	struct sqk_layer_file *f = ctx;

	if (f->fd >= 0 && f->fd != STDIN_FILENO && !f->from_spool)
		close(f->fd);
	f->fd = -1;
}

static const struct sqk_layer_ops file_ops = {file_open, file_read, file_finish, file_close};

int sqk_layer_file_create(const char *path, struct sqk_layer *l, struct sqk_layer_file **out)
{
	struct sqk_layer_file *f = calloc(1, sizeof(*f));

	if (!f)
		return SQK_ERR_NOMEM;
	f->path = path;
	f->name = strcmp(path, "-") == 0 ? "stdin" : path;
	f->fd = -1;
	*l = (struct sqk_layer){f->name, &file_ops, f, SQK_LAYER_ANY};
	*out = f;
	return 0;
}

void sqk_layer_file_destroy(struct sqk_layer_file *f)
{
	if (!f)
		return;
	if (f->spool)
		fclose(f->spool);
	free(f);
}

int sqk_src_layer_files(struct sqk_src_ctx *c, const char *const *paths, size_t n)
{
	struct sqk_layer_file **files = calloc(n + 1, sizeof(*files));
	struct sqk_layer *layers = calloc(n + 1, sizeof(*layers));
	size_t i;
	int err = files && layers ? 0 : SQK_ERR_NOMEM;

	for (i = 0; i < n && !err; i++)
		err = sqk_layer_file_create(paths[i], &layers[i], &files[i]);
	if (!err)
		err = sqk_src_layers(c, layers, n, SQK_LAYERS_APPLY);
	for (i = 0; files && i < n; i++)
		sqk_layer_file_destroy(files[i]);
	free(files);
	free(layers);
	return err;
}
