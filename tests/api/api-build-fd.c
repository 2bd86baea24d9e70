// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-build-fd IMAGE SRCDIR: build IMAGE through a descriptor
 * (sqk_build_create_fd) from SRCDIR and a pseudo definition over one of
 * its files ("plain"), under "pseudo-warn", with a progress and a warning
 * callback. Prints each warning as "warn WHERE: WHAT", then "calls N done
 * D total T" for the progress calls (the last call's figures) and
 * "monotonic 1" when done never went back or past total, "built N files"
 * (sqk_build_stat). Then opens IMAGE by the same descriptor and prints
 * "read back: N inodes, B bytes used" from the reader. The
 * refusals of a build to a descriptor are checked on the way. A failure
 * is "error CODE MESSAGE" on standard error and exit 1.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

struct seen {
	unsigned calls;
	uint64_t done, total;
	int monotonic;
};

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	struct seen *s = ctx;

	if (done < s->done || done > total)
		s->monotonic = 0;
	s->calls++;
	s->done = done;
	s->total = total;
}

static void warn(void *ctx, const char *where, const char *what)
{
	printf("warn %s: %s\n", where, what);
}

/* A build to a descriptor takes neither "append" nor "offset". */
static int refusals(int fd)
{
	static const char *const names[][2] = {{"append", NULL}, {"offset", "100"}};
	struct sqk_build *b = NULL;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < 2; i++) {
		struct sqk_build_opts *o = sqk_build_opts_create();

		err = !o || sqk_build_opts_set(o, names[i][0], names[i][1]) ||
		      sqk_build_create_fd(fd, o, &b) != SQK_ERR_ARG || b;
		sqk_build_opts_destroy(o);
	}
	return err ? SQK_ERR_ARG : 0;
}

int main(int argc, char **argv)
{
	struct seen s = {0, 0, 0, 1};
	struct sqk_build_opts *o = sqk_build_opts_create();
	struct sqk_build *b = NULL;
	struct sqk_image *img = NULL;
	struct sqk_image_info info;
	uint64_t files = 0;
	int fd, err = o ? 0 : SQK_ERR_NOMEM;

	if (argc != 3)
		return fprintf(stderr, "usage: api-build-fd IMAGE SRCDIR\n"), 2;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return perror(argv[1]), 1;
	err = err ? err : refusals(fd);
	if (!err) {
		sqk_build_opts_progress(o, progress, &s);
		sqk_build_opts_warn(o, warn, NULL);
		err = sqk_build_opts_set(o, "pseudo-warn", NULL);
	}
	if (!err)
		err = sqk_build_create_fd(fd, o, &b);
	sqk_build_opts_destroy(o);
	if (!err)
		err = sqk_build_add_dir(b, argv[2]);
	if (!err)
		err = sqk_build_add_pseudo(b, "plain f 644 0 0 echo new");
	if (!err)
		err = sqk_build_finish(b);
	if (!err)
		err = sqk_build_stat(b, "files", &files);
	if (!err)
		printf("calls %u done %llu total %llu\nmonotonic %d\nbuilt %llu files\n", s.calls,
		       (unsigned long long)s.done, (unsigned long long)s.total, s.monotonic,
		       (unsigned long long)files);
	sqk_build_destroy(b);
	if (!err)
		err = sqk_image_open_fd(fd, NULL, &img);
	if (!err)
		err = sqk_image_info(img, &info);
	if (!err)
		printf("read back: %u inodes, %llu bytes used\n", info.inodes,
		       (unsigned long long)info.bytes_used);
	if (err)
		fprintf(stderr, "error %d %s\n", err, sqk_error_message());
	sqk_image_destroy(img);
	close(fd);
	return err ? 1 : 0;
}
