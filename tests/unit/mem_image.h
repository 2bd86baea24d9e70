/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Images in memory for the unit tests: a directory packed by the writer, and
 * fsck run over an image. Static inline, so that a test includes only what
 * it uses (every .c here is a test program of its own).
 */
#ifndef SQK_TEST_MEM_IMAGE_H
#define SQK_TEST_MEM_IMAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compressors/compressor.h"
#include "fsck/fsck.h"
#include "mkfs/mkfs.h"
#include "util/file.h"

/* A file of SIZE bytes of text that compresses, other for each SEED. */
static inline void mem_image_text(const char *path, size_t size, unsigned seed)
{
	FILE *fp = fopen(path, "w");
	size_t i;

	for (i = 0; fp && i < size; i++)
		fputc("squashkit test data, a line\n"[(i * seed + i / 97) % 28], fp);
	if (fp)
		fclose(fp);
}

/*
 * In DIR: N files of text ((i * STEP) % MAX bytes each), one in two in
 * DIR/sub, and DIR/big of BIG bytes: blocks, tails and small files.
 */
static inline void mem_image_tree(const char *dir, int n, size_t step, size_t max, size_t big)
{
	char path[512];
	int i;

	snprintf(path, sizeof(path), "%s/sub", dir);
	mkdir(path, 0755);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/file-%02d", dir, i % 2 ? "sub" : ".", i);
		mem_image_text(path, (size_t)i * step % max, (unsigned)i + 3);
	}
	snprintf(path, sizeof(path), "%s/big", dir);
	mem_image_text(path, big, 7);
}

/*
 * DIR packed as O says, all times 0; its summary in ST when not NULL: a
 * malloc'd copy of the image, or NULL.
 */
static inline uint8_t *mem_image_build_opts(const char *dir, struct sqk_mkfs_opts *o,
					    struct sqk_mkfs_stats *st, size_t *len)
{
	struct sqk_mkfs_stats mine;
	struct sqk_mkfs *m;
	struct sqk_file *out = sqk_file_mem(NULL, 0);
	const uint8_t *data;
	uint8_t *copy = NULL;
	int err;

	o->set_mtime = o->set_fstime = 1;
	err = sqk_mkfs_create(o, out, &m);
	if (!err)
		err = sqk_mkfs_add_dir(m, dir);
	if (!err)
		err = sqk_mkfs_finish(m, st ? st : &mine);
	sqk_mkfs_destroy(m);
	if (!err) {
		data = sqk_file_mem_data(out, len);
		copy = malloc(*len);
		if (copy)
			memcpy(copy, data, *len);
	}
	sqk_file_destroy(out);
	return copy;
}

/*
 * DIR packed with CODEC in 4K blocks by THREADS threads, copying blocks
 * from the NREUSE images REUSE (mkimage --reuse).
 */
static inline uint8_t *mem_image_build(const char *dir, const struct sqk_codec *codec,
				       unsigned threads, struct sqk_image *const *reuse,
				       size_t nreuse, struct sqk_mkfs_stats *st, size_t *len)
{
	struct sqk_mkfs_opts o;

	memset(&o, 0, sizeof(o));
	o.codec = codec;
	o.block_size = 4096;
	o.codec->defaults(&o.comp, o.block_size);
	o.threads = threads;
	o.reuse = reuse;
	o.nreuse = nreuse;
	return mem_image_build_opts(dir, &o, st, len);
}

/* DIR packed with CODEC in 4K blocks by THREADS threads, all times 0. */
static inline uint8_t *mem_image_of_dir(const char *dir, const struct sqk_codec *codec,
					unsigned threads, size_t *len)
{
	return mem_image_build(dir, codec, threads, NULL, 0, NULL, len);
}

/*
 * BUILD's image of what it makes in a scratch directory from TMPL
 * (mkdtemp's pattern), removed after; NULL when it fails, and *skip set
 * when no scratch directory can be made.
 */
static inline uint8_t *mem_image_scratch(char *tmpl, uint8_t *(*build)(const char *, size_t *),
					 size_t *len, int *skip)
{
	char cmd[600];
	uint8_t *img;

	*skip = !mkdtemp(tmpl);
	if (*skip)
		return NULL;
	img = build(tmpl, len);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", tmpl);
	return img;
}

/* fsck with O over the LEN bytes at IMG; its counts in C when it ran. */
static inline int mem_image_fsck(const uint8_t *img, size_t len, const struct sqk_fsck_opts *o,
				 struct sqk_fsck_counts *c)
{
	struct sqk_fsck *f;
	int err;

	err = sqk_fsck_create(sqk_file_mem(img, len), o, &f);
	if (!err)
		err = sqk_fsck_run(f);
	if (!err)
		sqk_fsck_counts(f, c);
	sqk_fsck_destroy(f);
	return err;
}

#endif
