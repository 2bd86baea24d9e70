// SPDX-License-Identifier: BSD-2-Clause
/*
 * The mount's file-system object without FUSE: an image built in memory by
 * the writer, read through kernel-sized caches (8 metadata, 3 fragment, 1
 * data block, one decompressor, the herd policy). Lookups and forgets keep
 * the node table to what is looked up; node ids are inode numbers with the
 * root and 1 swapped; directory offsets name the same entry in any order;
 * reads at any offset and length give the source's bytes, holes included;
 * eight threads looking up, reading and forgetting at once agree with one
 * and leave only the root behind. And the search for an image inside a
 * file. make check runs it under ThreadSanitizer too (TSAN_UNIT).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "compressors/compressor.h"
#include "mem_image.h"
#include "mkfs/mkfs.h"
#include "mount/fs.h"
#include "read/image.h"
#include "read/offset.h"
#include "tap.h"
#include "util/error.h"
#include "util/file.h"

#define NFILES 24

static char names[NFILES][32];
static uint8_t *want[NFILES];
static size_t want_len[NFILES];
static int have_xattr;

static void put_file(const char *dir, int i, size_t size, unsigned seed)
{
	char path[512];
	FILE *fp;
	size_t k;

	snprintf(names[i], sizeof(names[i]), "file-%02d", i);
	snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
	want[i] = malloc(size ? size : 1);
	for (k = 0; k < size; k++)
		want[i][k] = (uint8_t)("squashkit mount test\n"[(k * seed + k / 61) % 21] + seed);
	want_len[i] = size;
	fp = fopen(path, "w");
	if (fp) {
		fwrite(want[i], 1, size, fp);
		fclose(fp);
	}
}

static uint8_t *build(const char *dir, size_t *len)
{
	char path[512], target[512];
	FILE *fp;
	int i;

	for (i = 0; i < NFILES - 2; i++)
		put_file(dir, i, (size_t)(i * 4099) % 30000, (unsigned)i + 1);
	put_file(dir, NFILES - 2, 200000, 5);
	/* A hole of several blocks between two runs of data. */
	snprintf(names[NFILES - 1], sizeof(names[0]), "holes");
	snprintf(path, sizeof(path), "%s/holes", dir);
	want_len[NFILES - 1] = 40000;
	want[NFILES - 1] = calloc(1, 40000);
	memset(want[NFILES - 1], 'a', 3000);
	memset(want[NFILES - 1] + 30000, 'b', 10000);
	fp = fopen(path, "w");
	if (fp) {
		fwrite(want[NFILES - 1], 1, 3000, fp);
		fseek(fp, 30000, SEEK_SET);
		fwrite(want[NFILES - 1] + 30000, 1, 10000, fp);
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/sub", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/link", dir);
	if (symlink(names[NFILES - 2], path) != 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/hard", dir);
	snprintf(target, sizeof(target), "%s/%s", dir, names[NFILES - 2]);
	if (link(target, path) != 0)
		return NULL;
	have_xattr = setxattr(target, "user.k", "value", 5, 0) == 0;

	return mem_image_of_dir(dir, sqk_codec_by_name("gzip"), 2, len);
}

static struct sqk_image *open_small(const uint8_t *img, size_t len)
{
	struct sqk_image_opts o;
	struct sqk_image *image;

	sqk_image_opts_default(&o);
	o.policy = SQK_WAIT_HERD;
	o.stall_ms = 50;
	return sqk_image_open(sqk_file_mem(img, len), &o, &image) ? NULL : image;
}

/* The whole file through sqk_fs_read, compared with the source. */
static int read_back(struct sqk_fs *fs, const char *name, int i)
{
	struct sqk_fs_file *f;
	struct stat st;
	uint64_t node;
	uint8_t *buf;
	size_t got = 0;
	int err, same;

	err = sqk_fs_lookup(fs, SQK_FS_ROOT, name, &node, &st);
	if (err)
		return err;
	err = sqk_fs_open(fs, node, &f);
	if (err) {
		sqk_fs_forget(fs, node, 1);
		return err;
	}
	buf = malloc(want_len[i] + 100);
	err = sqk_fs_read(fs, f, 0, buf, want_len[i] + 100, &got);
	same = !err && got == want_len[i] && !memcmp(buf, want[i], got);
	free(buf);
	sqk_fs_close(f);
	sqk_fs_forget(fs, node, 1);
	return err ? err : same ? 0 : SQK_ERR_CORRUPT;
}

struct worker {
	struct sqk_fs *fs;
	unsigned seed;
	int failures;
};

static void *work(void *p)
{
	struct worker *w = p;
	int n;

	for (n = 0; n < 60; n++) {
		int i = (int)(rand_r(&w->seed) % NFILES);

		if (read_back(w->fs, names[i], i) != 0)
			w->failures++;
	}
	return NULL;
}

static void check_fs(struct sqk_fs *fs)
{
	struct sqk_fs_dirent ent, again;
	struct sqk_fs_dir *d;
	struct sqk_fs_file *f;
	struct stat st, st2;
	struct statvfs sv;
	uint64_t node, node2, off, count = 0;
	uint32_t root;
	char *target;
	int i, bad = 0, err;

	is_int(sqk_fs_nodes(fs), 1, "a new file system knows its root only");
	is_int(sqk_fs_getattr(fs, SQK_FS_ROOT, &st), 0, "getattr of node 1");
	ok(S_ISDIR(st.st_mode), "node 1 is the root directory");
	root = (uint32_t)st.st_ino;
	ok(root != 1, "the root's inode number is not 1 (%u): the swap is tested", root);

	is_int(sqk_fs_lookup(fs, SQK_FS_ROOT, names[NFILES - 2], &node, &st), 0, "lookup a file");
	is_int(sqk_fs_lookup(fs, SQK_FS_ROOT, "hard", &node2, &st2), 0, "lookup its hard link");
	ok(node == node2 && st.st_ino == st2.st_ino && st.st_nlink == 2,
	   "both names are one node with st_ino %llu and two links", (unsigned long long)st.st_ino);
	ok(node == (st.st_ino == 1 ? root : st.st_ino), "the node id is the inode number");
	is_int(st.st_size, 200000, "st_size");
	is_int(sqk_fs_nodes(fs), 2, "the table holds the root and the file");
	sqk_fs_forget(fs, node, 1);
	is_int(sqk_fs_nodes(fs), 2, "one of two lookups forgotten: the node stays");
	sqk_fs_forget(fs, node, 1);
	is_int(sqk_fs_nodes(fs), 1, "both forgotten: the node goes");
	sqk_fs_forget(fs, SQK_FS_ROOT, 1);
	is_int(sqk_fs_getattr(fs, SQK_FS_ROOT, &st), 0, "the root is never forgotten");

	is_int(sqk_fs_lookup(fs, SQK_FS_ROOT, "no-such", &node, &st), SQK_ERR_NOENT,
	       "a missing name");
	is_int(sqk_fs_getattr(fs, 7777, &st), SQK_ERR_NOENT, "an unknown node");

	/* Every entry: its node id follows the swap, and st_ino stays the number. */
	is_int(sqk_fs_opendir(fs, SQK_FS_ROOT, &d), 0, "opendir the root");
	for (off = 0; (err = sqk_fs_readdir(fs, d, off, &ent)) == 1; off++) {
		count++;
		if (off < 2)
			continue;
		if (sqk_fs_entry_lookup(fs, &ent, &node, &st) != 0 || st.st_ino != ent.number ||
		    node != (ent.number == root ? 1
			     : ent.number == 1	? root
						: ent.number) ||
		    (st.st_mode & S_IFMT) != ent.type)
			bad++;
		else
			sqk_fs_forget(fs, node, 1);
	}
	is_int(err, 0, "the listing ends cleanly");
	is_int(count, 2 + NFILES + 3, "., .., the files, sub, link and hard");
	is_int(bad, 0, "every entry: node id, st_ino and type as the listing says");
	for (i = 0; i < 50; i++) {
		off = (uint64_t)(i * 7919) % count;
		sqk_fs_readdir(fs, d, off, &again);
		sqk_fs_readdir(fs, d, off, &ent);
		if (strcmp(again.name, ent.name) != 0 || again.number != ent.number)
			bad++;
	}
	is_int(bad, 0, "an offset names the same entry every time, in any order");
	is_int(sqk_fs_readdir(fs, d, count + 5, &ent), 0, "past the end: nothing");
	sqk_fs_closedir(d);
	is_int(sqk_fs_nodes(fs), 1, "the listing's lookups are all forgotten");

	for (i = 0; i < NFILES; i++)
		if (read_back(fs, names[i], i) != 0)
			bad++;
	is_int(bad, 0, "every file reads back as written, holes as zeros");

	/* Pieces at odd offsets: never past one block, never past the end. */
	sqk_fs_lookup(fs, SQK_FS_ROOT, names[NFILES - 2], &node, &st);
	is_int(sqk_fs_open(fs, node, &f), 0, "open the large file");
	for (i = 0; i < 300; i++) {
		struct sqk_fs_piece p;
		uint64_t at = (uint64_t)i * 7717 % 200500;
		size_t len = (size_t)(i * 131) % 9000 + 1;

		if (sqk_fs_read_piece(fs, f, at, len, &p) != 0) {
			bad++;
			continue;
		}
		if (at >= 200000 ? p.len != 0
				 : (p.len == 0 || p.len > len || at % 4096 + p.len > 4096 ||
				    memcmp(p.data, want[NFILES - 2] + at, p.len)))
			bad++;
		sqk_fs_piece_put(&p);
	}
	is_int(bad, 0, "pieces at 300 offsets: within a block, the right bytes");
	sqk_fs_close(f);

	/* Without an open: the node's own file, made once, gone with the node. */
	{
		struct sqk_fs_file *f1, *f2;
		uint8_t buf[100];
		size_t got;

		ok(sqk_fs_file_of(fs, node, &f1) == 0 && sqk_fs_file_of(fs, node, &f2) == 0 &&
			   f1 == f2,
		   "a node's file is made once and kept");
		ok(sqk_fs_read(fs, f1, 150000, buf, sizeof(buf), &got) == 0 && got == 100 &&
			   !memcmp(buf, want[NFILES - 2] + 150000, 100),
		   "and reads");
		is_int(sqk_fs_file_of(fs, SQK_FS_ROOT, &f1), SQK_ERR_ARG, "a directory has none");
	}
	{
		struct sqk_fs_dir *d1, *d2;

		ok(sqk_fs_dir_of(fs, SQK_FS_ROOT, &d1) == 0 &&
			   sqk_fs_dir_of(fs, SQK_FS_ROOT, &d2) == 0 && d1 == d2 &&
			   sqk_fs_readdir(fs, d1, 2 + NFILES, &ent) == 1,
		   "a directory node's listing is made once, kept and read");
		is_int(sqk_fs_dir_of(fs, node, &d1), SQK_ERR_NOTDIR, "a file has none");
	}

	is_int(sqk_fs_readlink(fs, SQK_FS_ROOT, &target), SQK_ERR_ARG, "readlink of a directory");
	sqk_fs_lookup(fs, SQK_FS_ROOT, "link", &node2, &st);
	is_int(sqk_fs_readlink(fs, node2, &target), 0, "readlink");
	ok(target && !strcmp(target, names[NFILES - 2]), "the target");
	free(target);
	sqk_fs_forget(fs, node2, 1);

	if (have_xattr) {
		char *list;
		uint8_t *value;
		size_t len;

		is_int(sqk_fs_listxattr(fs, node, 1, &list, &len), 0, "listxattr");
		ok(len == 7 && !memcmp(list, "user.k", 7), "user.k is listed");
		free(list);
		is_int(sqk_fs_getxattr(fs, node, "user.k", &value, &len), 0, "getxattr");
		ok(len == 5 && !memcmp(value, "value", 5), "its value");
		free(value);
		is_int(sqk_fs_getxattr(fs, node, "user.x", &value, &len), SQK_ERR_NOENT,
		       "a missing attribute");
		sqk_fs_getattr(fs, node, &st);
		is_int(st.st_blocks, 391 + 1, "st_blocks: the data's 391 and the xattrs' 1");
	} else {
		printf("ok # skip no user xattrs on the scratch file system\n");
	}
	sqk_fs_forget(fs, node, 1);

	sqk_fs_statfs(fs, &sv);
	ok(sv.f_bsize == 4096 && sv.f_files > NFILES && sv.f_namemax == 256 && sv.f_bfree == 0,
	   "statfs: block size, inodes, name length, nothing free");
	is_int(sqk_fs_nodes(fs), 1, "everything forgotten again");
}

static void check_threads(struct sqk_fs *fs)
{
	struct worker w[8];
	pthread_t t[8];
	int i, failures = 0;

	for (i = 0; i < 8; i++) {
		w[i].fs = fs;
		w[i].seed = (unsigned)i * 77 + 1;
		w[i].failures = 0;
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		failures += w[i].failures;
	}
	is_int(failures, 0, "8 threads, kernel-sized caches: 480 lookups, reads, forgets agree");
	is_int(sqk_fs_nodes(fs), 1, "and leave the root alone in the table");
}

static void check_offsets(const uint8_t *img, size_t len)
{
	uint8_t *buf = malloc(2 * len + 1000);
	struct sqk_image *image;
	struct sqk_file *f;
	uint64_t at[2];
	unsigned n;

	memset(buf, 'h', 1000);
	memcpy(buf + 1000, img, len);
	f = sqk_file_mem(buf, len + 1000);
	ok(sqk_find_images(f, at, &n) == 0 && n == 1 && at[0] == 1000,
	   "an image after 1000 bytes is found there");
	f = sqk_file_window(f, 1000);
	ok(f && sqk_image_open(f, NULL, &image) == 0, "and opens through a window");
	sqk_image_destroy(image);
	memcpy(buf + 1000 + len, img, len);
	f = sqk_file_mem(buf, 2 * len + 1000);
	ok(sqk_find_images(f, at, &n) == 0 && n == 2 && at[1] == 1000 + len,
	   "two images are two candidates");
	ok(sqk_find_images_before(f, 1000 + len, at, 2, &n) == 0 && n == 1 && at[0] == 1000,
	   "a search that stops before the second finds the first alone");
	ok(sqk_find_images_before(f, 1000, at, 2, &n) == 0 && n == 0,
	   "one that stops at the first finds none");
	sqk_file_destroy(f);
	f = sqk_file_mem(buf, 1000);
	ok(sqk_find_images(f, at, &n) == 0 && n == 0, "no image, no candidate");
	sqk_file_destroy(f);
	free(buf);
}

int main(void)
{
	char dir[] = "/tmp/sqk-pool-mount.XXXXXX";
	struct sqk_image *image;
	struct sqk_fs *fs;
	uint8_t *img;
	size_t len;
	int i, skip;

	img = mem_image_scratch(dir, build, &len, &skip);
	if (skip) {
		printf("1..0 # SKIP cannot make a scratch directory\n");
		return 0;
	}
	if (!ok(img != NULL, "the writer builds an image in memory"))
		return tap_done();
	image = open_small(img, len);
	if (!ok(image != NULL, "the image opens with kernel-sized caches"))
		return tap_done();
	is_int(sqk_fs_create(image, &fs), 0, "a file system over it");
	check_fs(fs);
	check_threads(fs);
	sqk_fs_destroy(fs);
	sqk_image_destroy(image);
	check_offsets(img, len);
	free(img);
	for (i = 0; i < NFILES; i++)
		free(want[i]);
	return tap_done();
}
