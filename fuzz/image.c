// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the reader. Opens an image from the input bytes, walks the
 * whole tree, reads every file's data and every xattr list, and resolves
 * paths seen on the way and a few that are not there: every path a reader
 * command takes through core/. Then, when the files claim little enough
 * data, walks again into the archive sink (pax, to /dev/null), as
 * unimage --tar does.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/data.h"
#include "read/image.h"
#include "read/xattr.h"
#include "util/file.h"
#include "walk/archive_sink.h"
#include "walk/walk.h"

/* Work bounds, so that a file claiming terabytes of holes does not time out. */
#define FILE_BYTES    (256u * 1024)
#define TOTAL_BYTES   (4u * 1024 * 1024)
#define PATHS	      8
#define ARCHIVE_BYTES (16u * 1024 * 1024)

struct fuzz_sink {
	struct sqk_sink sink;
	struct sqk_image *img;
	uint64_t total;
	uint64_t claimed; /* bytes the files say they hold */
	char *paths[PATHS];
	unsigned npaths;
};

static void keep_path(struct fuzz_sink *s, const char *path)
{
	if (s->npaths < PATHS)
		s->paths[s->npaths++] = strdup(path);
}

static void read_xattrs(struct fuzz_sink *s, const struct sqk_inode *ino)
{
	struct sqk_xattr *xs;
	uint32_t n, i;

	if (sqk_xattr_read(s->img, ino->xattr, &xs, &n) != 0)
		return;
	for (i = 0; i < n; i++)
		s->total += strlen(xs[i].name) + xs[i].value_len;
	sqk_xattr_free(xs, n);
}

static int fz_dir_begin(struct sqk_sink *sk, const char *path, struct sqk_inode *ino)
{
	struct fuzz_sink *s = (struct fuzz_sink *)sk;

	keep_path(s, path);
	read_xattrs(s, ino);
	return 0;
}

static int fz_dir_end(struct sqk_sink *sk, const char *path, struct sqk_inode *ino)
{
	return 0;
}

static int fz_node(struct sqk_sink *sk, const char *path, struct sqk_inode *ino,
		   const char *link_to)
{
	struct fuzz_sink *s = (struct fuzz_sink *)sk;
	static uint8_t buf[65536];
	uint64_t off = 0;

	keep_path(s, path);
	read_xattrs(s, ino);
	if ((ino->mode & 0170000) != 0100000)
		return 0;
	s->claimed += ino->size;
	while (off < ino->size && off < FILE_BYTES && s->total < TOTAL_BYTES) {
		size_t got = 0;

		if (sqk_data_pread(s->img, ino, off, buf, sizeof(buf), &got) != 0 || got == 0)
			break;
		off += got;
		s->total += got;
	}
	/* The tail, by itself, when the loop stopped before it. */
	if (ino->size > sizeof(buf)) {
		size_t got;

		sqk_data_pread(s->img, ino, ino->size - 1, buf, 1, &got);
	}
	return 0;
}

/* The archive sink reads everything again; its output goes nowhere. */
/* --keep-going: every entry that cannot be read is passed over. */
static int go_on(void *ctx, const struct sqk_fault *f)
{
	return 0;
}

static void to_archive(struct sqk_image *img)
{
	struct sqk_archive_sink *a = NULL;
	struct sqk_walk w;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (sqk_archive_sink_create(img, fd, "pax", 0, NULL, NULL, &a) == 0) {
		memset(&w, 0, sizeof(w));
		w.img = img;
		w.sink = sqk_archive_sink_sink(a);
		w.lost = go_on;
		if (sqk_walk(&w) == 0)
			sqk_archive_sink_finish(a);
		sqk_archive_sink_destroy(a);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const absent[] = {"", "/", "a", "a/b/c", "..", "././x", "//x//"};
	struct fuzz_sink s = {
		.sink = {.dir_begin = fz_dir_begin, .dir_end = fz_dir_end, .node = fz_node}};
	struct sqk_image_opts o;
	struct sqk_walk w;
	struct sqk_inode ino;
	struct sqk_file *f;
	unsigned i;

	f = sqk_file_mem(data, size);
	if (!f)
		return 0;
	sqk_image_opts_default(&o);
	o.stall_ms = 100;
	if (sqk_image_open(f, &o, &s.img) != 0)
		return 0;
	memset(&w, 0, sizeof(w));
	w.img = s.img;
	w.sink = &s.sink;
	sqk_walk(&w);
	for (i = 0; i < s.npaths; i++) {
		if (s.paths[i] && sqk_resolve(s.img, s.paths[i], &ino) == 0)
			sqk_inode_free(&ino);
		free(s.paths[i]);
	}
	for (i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		if (sqk_resolve(s.img, absent[i], &ino) == 0)
			sqk_inode_free(&ino);
	if (s.claimed <= ARCHIVE_BYTES)
		to_archive(s.img);
	sqk_image_destroy(s.img);
	return 0;
}
