// SPDX-License-Identifier: BSD-2-Clause
/*
 * locate: where the stored bytes of one block of an image lie, so a test
 * can damage exactly that block.
 *
 *   locate IMAGE data PATH [N]   the Nth (default 0) data block of file PATH
 *   locate IMAGE frag PATH       the fragment block holding PATH's tail
 *   locate IMAGE inode PATH      the metadata block holding PATH's inode
 *   locate IMAGE dir PATH        the metadata block where directory PATH's
 *                                listing starts
 *
 * Prints "START SIZE": the block's first stored byte (for a metadata block,
 * the one after its 2-byte header) and its stored size, both in bytes from
 * the start of the file. Exit 1 when PATH has no such block.
 *
 *   locate IMAGE users KIND PATH ...
 *
 * Prints every entry of the image (its path, no leading '/') whose KIND
 * block (frag, inode or dir, as above) is that of one of the PATHs: what
 * damaging those blocks takes away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_meta.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "read/inode.h"
#include "util/error.h"
#include "util/file.h"
#include "walk/walk.h"

static int fail(const char *what)
{
	fprintf(stderr, "locate: %s\n", what);
	return 1;
}

/* The metadata block at pos: its payload's start and stored size. */
static int meta_block(struct sqk_image *img, uint64_t pos)
{
	struct sqk_fmt_meta_hdr h;
	uint8_t raw[2];

	if (sqk_image_pread(img, pos, raw, sizeof(raw)) != 0)
		return fail("cannot read a metadata block header");
	sqk_fmt_meta_hdr_decode(&h, raw);
	printf("%llu %u\n", (unsigned long long)(pos + SQK_FMT_META_HDR_SIZE), h.size);
	return 0;
}

static int locate(struct sqk_image *img, const char *kind, const char *path, unsigned n)
{
	const struct sqk_super *sb = sqk_image_super(img);
	struct sqk_inode ino;
	uint64_t start;
	uint32_t size, i;
	int rc = 1;

	if (sqk_resolve(img, path, &ino) != 0)
		return fail("no such path");
	if (strcmp(kind, "inode") == 0) {
		rc = meta_block(img, sb->inode_table + SQK_REF_BLOCK(ino.ref));
	} else if (strcmp(kind, "dir") == 0) {
		if (sqk_basic_type(ino.type) == SQK_DIR)
			rc = meta_block(img, sb->dir_table + ino.dir_block);
		else
			fail("not a directory");
	} else if (strcmp(kind, "data") == 0) {
		if (n < ino.nblocks && (ino.blocks[n] & SQK_BLOCK_SIZE_MASK)) {
			for (start = ino.blocks_start, i = 0; i < n; i++)
				start += ino.blocks[i] & SQK_BLOCK_SIZE_MASK;
			printf("%llu %u\n", (unsigned long long)start,
			       ino.blocks[n] & SQK_BLOCK_SIZE_MASK);
			rc = 0;
		} else {
			fail("no such data block");
		}
	} else if (strcmp(kind, "frag") == 0) {
		if (ino.frag_index != SQK_INVALID_FRAG &&
		    sqk_fragment_entry(img, ino.frag_index, &start, &size) == 0) {
			printf("%llu %u\n", (unsigned long long)start, size & SQK_BLOCK_SIZE_MASK);
			rc = 0;
		} else {
			fail("no fragment");
		}
	} else {
		fail("unknown kind");
	}
	sqk_inode_free(&ino);
	return rc;
}

/* The entries sharing a block with the PATHs: the blocks first, then a walk. */
struct users {
	struct sqk_sink sink;
	const char *kind;
	uint64_t *want;
	int nwant;
};

static int block_of(const char *kind, const struct sqk_inode *ino, uint64_t *block)
{
	if (strcmp(kind, "inode") == 0)
		*block = SQK_REF_BLOCK(ino->ref);
	else if (strcmp(kind, "dir") == 0 && sqk_basic_type(ino->type) == SQK_DIR)
		*block = ino->dir_block;
	else if (strcmp(kind, "frag") == 0 && ino->frag_index != SQK_INVALID_FRAG)
		*block = ino->frag_index;
	else
		return 0;
	return 1;
}

static int user(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct users *u = (struct users *)s;
	uint64_t b;

	if (*path && block_of(u->kind, ino, &b))
		for (int i = 0; i < u->nwant; i++)
			if (u->want[i] == b) {
				printf("%s\n", path);
				break;
			}
	return 0;
}

static int user_node(struct sqk_sink *s, const char *path, struct sqk_inode *ino,
		     const char *link_to)
{
	return user(s, path, ino);
}

static int no_end(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	return 0;
}

static int users(struct sqk_image *img, const char *kind, char **paths, int n)
{
	uint64_t want[64];
	struct users u = {.sink = {.dir_begin = user, .dir_end = no_end, .node = user_node},
			  .kind = kind,
			  .want = want};
	struct sqk_walk w = {.img = img, .sink = &u.sink};

	for (int i = 0; i < n && i < 64; i++) {
		struct sqk_inode ino;

		if (sqk_resolve(img, paths[i], &ino) != 0)
			return fail("no such path");
		if (block_of(kind, &ino, &want[u.nwant]))
			u.nwant++;
		sqk_inode_free(&ino);
	}
	return sqk_walk(&w) == 0 ? 0 : fail("the walk failed");
}

int main(int argc, char **argv)
{
	struct sqk_image_opts io;
	struct sqk_image *img;
	struct sqk_file *f;
	int err, rc;

	if (argc < 4 || (argc > 5 && strcmp(argv[2], "users") != 0)) {
		fputs("usage: locate IMAGE data|frag|inode|dir PATH [N]\n"
		      "       locate IMAGE users frag|inode|dir PATH...\n",
		      stderr);
		return 2;
	}
	f = sqk_file_open(argv[1], SQK_FILE_READ, &err);
	if (!f)
		return fail("cannot open the image");
	sqk_image_opts_default(&io);
	err = sqk_image_open(f, &io, &img);
	if (err)
		return fail(sqk_strerror(err));
	if (strcmp(argv[2], "users") == 0)
		rc = argc > 4 ? users(img, argv[3], argv + 4, argc - 4) : fail("no PATH");
	else
		rc = locate(img, argv[2], argv[3], argc == 5 ? (unsigned)atoi(argv[4]) : 0);
	sqk_image_destroy(img);
	return rc;
}
