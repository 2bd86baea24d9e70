// SPDX-License-Identifier: BSD-2-Clause
/*
 * sqk-pack IMAGE < LIST: build the SquashFS image IMAGE (zstd, replacing
 * it) from the host paths LIST names, one a line: each directory, file and
 * symlink goes into the image at its own path (without a leading "/"),
 * with its mode, owner and time; the directories on the way that the list
 * does not name are made (0755, root).
 *
 *   find etc -xdev | sqk-pack etc.img
 *
 * Build it with libsquashkit's pkg-config file:
 *
 *   cc -o sqk-pack sqk-pack.c $(pkg-config --cflags --libs squashkit)
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

static int add(struct sqk_build *b, const char *path)
{
	const char *at = path + strspn(path, "/");
	char target[PATH_MAX + 1];
	struct sqk_attr a;
	struct stat st;
	ssize_t n;

	if (lstat(path, &st)) {
		perror(path);
		return -1;
	}
	a = (struct sqk_attr){st.st_mode & 07777, st.st_uid, st.st_gid, (uint32_t)st.st_mtime};
	switch (st.st_mode & S_IFMT) {
	case S_IFDIR:
		return sqk_build_mkdir(b, at, &a);
	case S_IFREG:
		return sqk_build_add_file(b, at, &a, path);
	case S_IFLNK:
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0) {
			perror(path);
			return -1;
		}
		target[n] = '\0';
		return sqk_build_symlink(b, at, &a, target);
	default:
		return sqk_build_mknod(b, at, st.st_mode & S_IFMT, &a, st.st_rdev);
	}
}

int main(int argc, char **argv)
{
	struct sqk_build_opts *o = sqk_build_opts_create();
	struct sqk_build *b = NULL;
	char line[PATH_MAX + 2];
	int err = o ? 0 : -1;

	if (argc != 2) {
		fprintf(stderr, "usage: sqk-pack IMAGE < LIST\n");
		return 2;
	}
	if (!err)
		err = sqk_build_opts_set(o, "compressor", "zstd");
	if (!err)
		err = sqk_build_opts_set(o, "force", NULL);
	if (!err)
		err = sqk_build_create(argv[1], o, &b);
	while (!err && fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (*line && strcmp(line, ".") && strcmp(line, "/"))
			err = add(b, line);
	}
	if (!err)
		err = sqk_build_finish(b);
	if (err)
		fprintf(stderr, "sqk-pack: %s\n", sqk_error_message());
	sqk_build_destroy(b);
	sqk_build_opts_destroy(o);
	return err ? 1 : 0;
}
