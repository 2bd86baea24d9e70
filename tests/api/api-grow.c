// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-grow IMAGE OUT: the structs a caller allocates grow without a new
 * soname. Built against api-grow-old.h (the structs before fields were
 * added), it reads IMAGE's facts and the inode /d into those structs with
 * guard bytes after them, opens IMAGE through struct sqk_io, and builds OUT
 * with a directory of its struct sqk_attr; built with -DNEW_HEADER, against
 * <squashkit/squashkit.h>, it prints the fields added too. It also hands the
 * library a struct too small to be any version (refused) and a newer one
 * with a field the library does not know set (refused) or zero (taken).
 * Prints what it read, one fact a line, for api-grow.t to compare with the
 * kernel's mount; exits 1 on a failed check.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef NEW_HEADER
#include <squashkit/squashkit.h>
#else
#include "api-grow-old.h"
#endif

#define GUARD 0xa5

static int failed;

#define CHECK(cond, what)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "api-grow: %s: %s\n", what, sqk_error_message());         \
			failed = 1;                                                                \
		}                                                                                  \
	} while (0)

static int untouched(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++ != GUARD)
			return 0;
	return 1;
}

struct mem {
	unsigned char *data;
	size_t size;
	int closed;
};

static int mem_read(void *ctx, uint64_t pos, void *buf, size_t len)
{
	struct mem *m = ctx;

	if (pos > m->size || len > m->size - pos)
		return -10;
	memcpy(buf, m->data + pos, len);
	return 0;
}

static uint64_t mem_size(void *ctx)
{
	return ((struct mem *)ctx)->size;
}

static void mem_close(void *ctx)
{
	((struct mem *)ctx)->closed++;
}

static void load(const char *path, struct mem *m)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	memset(m, 0, sizeof(*m));
	if (fd < 0 || fstat(fd, &st) || !(m->data = malloc((size_t)st.st_size)) ||
	    read(fd, m->data, (size_t)st.st_size) != st.st_size) {
		perror(path);
		exit(1);
	}
	m->size = (size_t)st.st_size;
	close(fd);
}

int main(int argc, char **argv)
{
	struct {
		struct sqk_image_info info;
		unsigned char guard[64];
	} i;
	struct {
		struct sqk_stat st;
		unsigned char guard[64];
	} s;
	struct {
		struct sqk_attr a;
		uint64_t later; /* a field of a newer header */
	} newer = {{0750, 7, 8, 1600000000}, 0};
	struct sqk_io io;
	struct mem m;
	struct sqk_image *img, *mimg;
	struct sqk_inode *ino;
	struct sqk_build_opts *o;
	struct sqk_build *b;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: api-grow IMAGE OUT\n");
		return 2;
	}
	if (sqk_image_open_path(argv[1], NULL, &img) || sqk_inode_open(img, "/d", &ino)) {
		fprintf(stderr, "api-grow: %s\n", sqk_error_message());
		return 1;
	}
	printf("sizes info %zu stat %zu attr %zu io %zu\n", sizeof(struct sqk_image_info),
	       sizeof(struct sqk_stat), sizeof(struct sqk_attr), sizeof(struct sqk_io));

	memset(&i, GUARD, sizeof(i));
	CHECK(sqk_image_info(img, &i.info) == 0, "sqk_image_info");
	CHECK(untouched(i.guard, sizeof(i.guard)), "sqk_image_info wrote past the struct");
	printf("info inodes %u block_size %u bytes_used %llu compressor %s\n", i.info.inodes,
	       i.info.block_size, (unsigned long long)i.info.bytes_used, i.info.compressor);

	memset(&s, GUARD, sizeof(s));
	CHECK(sqk_inode_stat(ino, &s.st) == 0, "sqk_inode_stat");
	CHECK(untouched(s.guard, sizeof(s.guard)), "sqk_inode_stat wrote past the struct");
	printf("stat /d ino %u mode %o nlink %u uid %u gid %u mtime %u\n", s.st.ino,
	       (unsigned)s.st.mode, s.st.nlink, s.st.uid, s.st.gid, s.st.mtime);
#ifdef NEW_HEADER
	printf("new version %u.%u parent %u\n", i.info.version_major, i.info.version_minor,
	       s.st.parent);
#endif

	/* Smaller than any version: refused, nothing written. */
	memset(&s, GUARD, sizeof(s));
	err = (sqk_inode_stat)(ino, &s.st, 8);
	CHECK(err == SQK_ERR_ARG, "a struct sqk_stat of 8 bytes is refused");
	CHECK(untouched((unsigned char *)&s, sizeof(s)), "a refused struct sqk_stat was written");
	printf("small %d\n", err);

	/* Read through callbacks, the struct as this program knows it. */
	load(argv[1], &m);
	io.read_at = mem_read;
	io.size = mem_size;
	io.close = mem_close;
	io.ctx = &m;
	CHECK(sqk_image_open_io(&io, NULL, &mimg) == 0, "sqk_image_open_io");
	if (mimg) {
		memset(&i, GUARD, sizeof(i));
		CHECK(sqk_image_info(mimg, &i.info) == 0, "sqk_image_info (io)");
		printf("io inodes %u\n", i.info.inodes);
		sqk_image_destroy(mimg);
	}
	printf("io closed %d\n", m.closed);

	/* A build with this program's struct sqk_attr; a newer one's unknown field. */
	o = sqk_build_opts_create();
	CHECK(o && !sqk_build_opts_set(o, "force", NULL), "options");
	CHECK(sqk_build_create(argv[2], o, &b) == 0, "sqk_build_create");
	CHECK(sqk_build_mkdir(b, "old", &newer.a) == 0, "sqk_build_mkdir");
	newer.later = 1;
	err = (sqk_build_mkdir)(b, "later-set", &newer.a, sizeof(newer));
	CHECK(err == SQK_ERR_UNSUPPORTED, "a newer struct sqk_attr with a field set is refused");
	printf("newer set %d\n", err);
	newer.later = 0;
	CHECK((sqk_build_mkdir)(b, "later-zero", &newer.a, sizeof(newer)) == 0,
	      "a newer struct sqk_attr with its new field 0 is taken");
	CHECK(sqk_build_finish(b) == 0, "sqk_build_finish");
	sqk_build_destroy(b);
	sqk_build_opts_destroy(o);

	/* An inode may outlive its image (inode.h): stat it once the image is gone. */
	sqk_image_destroy(img);
	memset(&s, GUARD, sizeof(s));
	CHECK(sqk_inode_stat(ino, &s.st) == 0 && untouched(s.guard, sizeof(s.guard)),
	      "sqk_inode_stat after sqk_image_destroy");
	printf("after the image ino %u\n", s.st.ino);
	sqk_inode_destroy(ino);
	free(m.data);
	return failed;
}
