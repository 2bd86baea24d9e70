// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-trace IMAGE PATH [relative] [nofollow]: open PATH with
 * sqk_inode_open_trace and print each thing the callback hears of, one a
 * line: "link PATH", "parent PATH", "result PATH"; then "mode OCTAL" of
 * the inode opened, or "error CODE MESSAGE". Exit 0, or 1 after a failure.
 */
#include <stdio.h>
#include <string.h>

#include <squashkit/squashkit.h>

static int trace(void *ctx, const char *path, enum sqk_trace_kind kind)
{
	static const char *const names[] = {"parent", "link", "result"};

	printf("%s %s\n", names[kind], path);
	return 0;
}

int main(int argc, char **argv)
{
	struct sqk_image *img;
	struct sqk_inode *ino;
	struct sqk_stat st;
	unsigned flags = 0;
	int i, err;

	if (argc < 3)
		return fprintf(stderr, "usage: api-trace IMAGE PATH [relative] [nofollow]\n"), 2;
	for (i = 3; i < argc; i++)
		flags |=
			!strcmp(argv[i], "relative") ? SQK_TRACE_RELATIVE_ONLY : SQK_TRACE_NOFOLLOW;
	err = sqk_image_open_path(argv[1], NULL, &img);
	if (err)
		return printf("error %d %s\n", err, sqk_error_message()), 1;
	err = sqk_inode_open_trace(img, argv[2], flags, trace, NULL, &ino);
	if (err) {
		printf("error %d %s\n", err, sqk_error_message());
	} else {
		sqk_inode_stat(ino, &st);
		printf("mode %o\n", (unsigned)st.mode);
		sqk_inode_destroy(ino);
	}
	sqk_image_destroy(img);
	return err ? 1 : 0;
}
