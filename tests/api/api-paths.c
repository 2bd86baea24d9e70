// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-paths IMAGE open PATH: sqk_inode_open(), and "mode OCTAL" of what it
 * opened, or "error CODE ERRNO" (sqk_error_errno()).
 * api-paths IMAGE walk PATH: sqk_walk_tree() from PATH, each path visited
 * a line, or "error CODE ERRNO".
 * Exit 0, or 1 after a failure.
 */
#include <stdio.h>
#include <string.h>

#include <squashkit/squashkit.h>

static int visit(void *ctx, const char *path, const struct sqk_stat *st, const char *link_to)
{
	printf("%s\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	struct sqk_image *img;
	struct sqk_inode *ino;
	struct sqk_stat st;
	int err;

	if (argc != 4)
		return fprintf(stderr, "usage: api-paths IMAGE open|walk PATH\n"), 2;
	err = sqk_image_open_path(argv[1], NULL, &img);
	if (err)
		return printf("error %d %d\n", err, sqk_error_errno()), 1;
	if (!strcmp(argv[2], "walk")) {
		err = sqk_walk_tree(img, argv[3], visit, NULL);
	} else {
		err = sqk_inode_open(img, argv[3], &ino);
		if (!err) {
			sqk_inode_stat(ino, &st);
			printf("mode %o\n", (unsigned)st.mode);
			sqk_inode_destroy(ino);
		}
	}
	if (err)
		printf("error %d %d\n", err, sqk_error_errno());
	sqk_image_destroy(img);
	return err ? 1 : 0;
}
