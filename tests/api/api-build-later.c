// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-build-later OUT FAILED: when a build reads what it is given, and the
 * times of the directories it makes itself. Builds OUT with:
 *   /a/b/fn: 100000 bytes from a read callback, which must not be called
 *     before sqk_build_finish() (the buffer it reads changes after the add:
 *     the image holds what it held at the finish);
 *   /a/b/data: bytes copied at the add (the buffer is changed after);
 *   /x: an empty file of mtime 1700000000, the newest; /a/b/fn and
 *     /a/b/data have 1600000000. /a and /a/b are made by the build.
 * Then builds FAILED with a callback that fails: the finish fails, naming
 * the entry. Prints "calls during add N", "total calls N", "finish-failed CODE
 * MESSAGE"; exits 1 on a failed call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

#define SIZE 100000

static unsigned char content[SIZE];
static unsigned calls;

static int read_content(void *ctx, uint64_t off, void *buf, size_t len)
{
	calls++;
	memcpy(buf, content + off, len);
	return 0;
}

static int read_fails(void *ctx, uint64_t off, void *buf, size_t len)
{
	return SQK_ERR_IO;
}

static int die(const char *what)
{
	fprintf(stderr, "api-build-later: %s: %s\n", what, sqk_error_message());
	return 1;
}

int main(int argc, char **argv)
{
	struct sqk_attr old = {0644, 0, 0, 1600000000}, newest = {0644, 0, 0, 1700000000};
	unsigned char data[64];
	struct sqk_build_opts *o;
	struct sqk_build *b;
	int err;

	if (argc != 3)
		return 2;
	o = sqk_build_opts_create();
	if (!o || sqk_build_opts_set(o, "force", NULL) || sqk_build_opts_set(o, "block-size", "4K"))
		return die("options");
	memset(content, 'A', SIZE);
	memset(data, 'D', sizeof(data));
	if (sqk_build_create(argv[1], o, &b))
		return die("create");
	if (sqk_build_add_file_fn(b, "a/b/fn", &old, SIZE, read_content, NULL))
		return die("add_file_fn");
	if (sqk_build_add_file_data(b, "a/b/data", &old, data, sizeof(data)))
		return die("add_file_data");
	if (sqk_build_add_file_data(b, "x", &newest, "", 0))
		return die("add x");
	printf("calls during add %u\n", calls);
	/* What the file holds is what the callback gives at the finish. */
	memset(content, 'B', SIZE);
	memset(data, 'E', sizeof(data));
	if (sqk_build_finish(b))
		return die("finish");
	printf("total calls %u\n", calls);
	sqk_build_destroy(b);

	if (sqk_build_create(argv[2], o, &b))
		return die("create");
	if (sqk_build_add_file_fn(b, "dir/broken", &old, SIZE, read_fails, NULL))
		return die("add_file_fn (failing)");
	err = sqk_build_finish(b);
	printf("finish-failed %d %s\n", err, sqk_error_message());
	sqk_build_destroy(b);
	sqk_build_opts_destroy(o);
	return 0;
}
