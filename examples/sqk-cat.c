// SPDX-License-Identifier: BSD-2-Clause
/*
 * sqk-cat IMAGE PATH: write the file at PATH in the SquashFS image IMAGE to
 * standard output.
 *
 * Build it with libsquashkit's pkg-config file:
 *
 *   cc -o sqk-cat sqk-cat.c $(pkg-config --cflags --libs squashkit)
 */
#include <stdio.h>

#include <squashkit/squashkit.h>

int main(int argc, char **argv)
{
	struct sqk_image *img = NULL;
	struct sqk_inode *ino = NULL;
	static char buf[1 << 16];
	uint64_t off = 0;
	size_t got;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: sqk-cat IMAGE PATH\n");
		return 2;
	}
	err = sqk_image_open_path(argv[1], NULL, &img);
	if (!err)
		err = sqk_inode_open(img, argv[2], &ino);
	while (!err && !(err = sqk_inode_pread(img, ino, off, buf, sizeof(buf), &got)) && got) {
		if (fwrite(buf, 1, got, stdout) != got) {
			perror("sqk-cat: stdout");
			return 1;
		}
		off += got;
	}
	if (err)
		fprintf(stderr, "sqk-cat: %s\n", sqk_error_message());
	sqk_inode_destroy(ino);
	sqk_image_destroy(img);
	return err || fflush(stdout) ? 1 : 0;
}
