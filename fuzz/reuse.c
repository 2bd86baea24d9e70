// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: mkimage --reuse with the input as the earlier image. A small
 * tree (made once, in a scratch directory) is built with the compressor,
 * options and block size the input's superblock names, plainly and with
 * the input to copy blocks from (core/write/reuse.c, data_reuse.c). The two
 * images must be equal byte for byte or, where a block of the input was
 * altered in a way that still decodes to the same bytes (a header field
 * the decoder does not check), hold the same tree: every path and every
 * byte of every file read back the same. Anything else aborts. With
 * SQK_FUZZ_SEEDS=DIR in the environment it writes the images of its tree,
 * one per compressor, into DIR (the seed corpus) and exits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tests/unit/mem_image.h"
#include "read/data.h"
#include "read/image.h"
#include "util/error.h"
#include "util/le.h"
#include "walk/walk.h"
#include "write/data_writer.h"
#include "write/reuse.h"

static char tree[] = "/tmp/sqk-fuzz-reuse.XXXXXX";

/* The last plain build, kept: most inputs name the settings of their seed. */
static struct sqk_comp_config plain_comp;
static uint32_t plain_bs;
static uint8_t *plain;
static size_t plain_len;

/* The tree an image holds, as one hash of every path and every file's bytes. */
struct digest {
	struct sqk_sink sink;
	struct sqk_image *img;
	uint64_t h;
};

static void mix(struct digest *d, const void *p, size_t n)
{
	d->h = (d->h * 0x100000001b3ull) ^ sqk_hash64(p, n);
}

static int dg_dir(struct sqk_sink *sk, const char *path, struct sqk_inode *ino)
{
	mix((struct digest *)sk, path, strlen(path) + 1);
	return 0;
}

static int dg_dir_end(struct sqk_sink *sk, const char *path, struct sqk_inode *ino)
{
	return 0;
}

static int dg_node(struct sqk_sink *sk, const char *path, struct sqk_inode *ino,
		   const char *link_to)
{
	struct digest *d = (struct digest *)sk;
	static uint8_t buf[65536];
	uint64_t off = 0;

	mix(d, path, strlen(path) + 1);
	while ((ino->mode & 0170000) == 0100000 && off < ino->size) {
		size_t got = 0;
		int err = sqk_data_pread(d->img, ino, off, buf, sizeof(buf), &got);

		if (err || !got)
			return err ? err : SQK_ERR_CORRUPT;
		mix(d, buf, got);
		off += got;
	}
	return 0;
}

static int digest(const uint8_t *img, size_t len, uint64_t *h)
{
	struct digest d = {.sink = {.dir_begin = dg_dir, .dir_end = dg_dir_end, .node = dg_node}};
	struct sqk_image_opts io;
	struct sqk_walk w;
	int err;

	sqk_image_opts_default(&io);
	err = sqk_image_open(sqk_file_mem(img, len), &io, &d.img);
	if (err)
		return err;
	memset(&w, 0, sizeof(w));
	w.img = d.img;
	w.sink = &d.sink;
	err = sqk_walk(&w);
	sqk_image_destroy(d.img);
	*h = d.h;
	return err;
}

static void remove_tree(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	if (system(cmd) != 0)
		fprintf(stderr, "reuse: could not remove %s\n", tree);
}

static uint8_t *build(const struct sqk_codec *codec, const struct sqk_comp_config *comp,
		      uint32_t bs, struct sqk_image *old, size_t *len)
{
	struct sqk_mkfs_opts o;

	memset(&o, 0, sizeof(o));
	o.codec = codec;
	o.comp = *comp;
	o.block_size = bs;
	o.threads = 2;
	o.reuse = old ? &old : NULL;
	o.nreuse = old ? 1 : 0;
	return mem_image_build_opts(tree, &o, NULL, len);
}

/* Every compressor's image of the tree, cut to its bytes_used. */
static void seeds(const char *dir)
{
	size_t i, len;

	for (i = 0; sqk_codecs[i]; i++) {
		struct sqk_comp_config c;
		char path[4096];
		uint8_t *img;
		FILE *fp;

		sqk_comp_config_init(&c, sqk_codecs[i]->id, 4096);
		img = build(sqk_codecs[i], &c, 4096, NULL, &len);
		snprintf(path, sizeof(path), "%s/%s", dir, sqk_codecs[i]->name);
		fp = img ? fopen(path, "w") : NULL;
		if (fp) {
			fwrite(img, 1, (size_t)get_le64(img + 40), fp);
			fclose(fp);
		}
		free(img);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[128];
	int i;

	if (!mkdtemp(tree))
		abort();
	atexit(remove_tree);
	mem_image_tree(tree, 24, 1531, 13000, 20000);
	/* A block that does not compress, and a file of one block exactly. */
	snprintf(path, sizeof(path), "%s/raw", tree);
	{
		FILE *fp = fopen(path, "w");

		for (i = 0; fp && i < 6000; i++)
			fputc((i * 7919 + i / 13 * 31) % 251, fp);
		if (fp)
			fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/one-block", tree);
	mem_image_text(path, 4096, 5);
	if (getenv("SQK_FUZZ_SEEDS")) {
		seeds(getenv("SQK_FUZZ_SEEDS"));
		exit(0);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sqk_image_opts io;
	struct sqk_image *old;
	const struct sqk_super *sb;
	const struct sqk_codec *codec;
	struct sqk_comp_config comp;
	uint8_t *got;
	size_t len;

	sqk_image_opts_default(&io);
	io.decompressors = 3;
	if (sqk_image_open(sqk_file_mem(data, size), &io, &old))
		return 0;
	sb = sqk_image_super(old);
	codec = sqk_codec_by_id(sb->compressor);
	comp = *sqk_image_comp(old);
	if (!codec || sqk_reuse_check(old, codec, &comp, sb->block_size, 0, 0)) {
		sqk_image_destroy(old);
		return 0;
	}
	if (!plain || plain_bs != sb->block_size || memcmp(&plain_comp, &comp, sizeof(comp))) {
		free(plain);
		plain = build(codec, &comp, sb->block_size, NULL, &plain_len);
		plain_comp = comp;
		plain_bs = sb->block_size;
	}
	got = build(codec, &comp, sb->block_size, old, &len);
	/* The plain build may fail only for want of memory; the other must then too. */
	if (plain && (!got || len != plain_len || memcmp(got, plain, len) != 0)) {
		uint64_t a = 0, b = 1;

		if (!got || digest(plain, plain_len, &a) || digest(got, len, &b) || a != b) {
			fprintf(stderr, "reuse: the build with --reuse does not hold the tree\n");
			abort();
		}
	}
	free(got);
	sqk_image_destroy(old);
	return 0;
}
