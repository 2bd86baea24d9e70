// SPDX-License-Identifier: BSD-2-Clause
/*
 * A listing a piece at a time (read/dir.h sqk_dir_list), and the public
 * iterator over it: a directory of 100 entries, its metadata stored
 * uncompressed, read whole and in pieces of SQK_DIR_PIECE; then its 71st
 * name broken (a '/' in it): checked whole, the list refuses it at open and
 * names it; read lazily, the 70 entries before it come first, then the
 * error; sqk_dir_next() gives the same. Meanwhile a one-entry metadata cache serves other readers
 * between pieces: no block is held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

#include "compressors/compressor.h"
#include "mem_image.h"
#include "read/dir.h"
#include "read/image.h"
#include "read/inode.h"
#include "tap.h"
#include "util/error.h"
#include "util/file.h"

#define N   100
#define BAD 70

static uint8_t *img_bytes;
static size_t img_len;

static struct sqk_image *open_mem(void)
{
	struct sqk_image_opts o;
	struct sqk_image *img = NULL;

	sqk_image_opts_default(&o);
	o.meta_entries = 1; /* a held block would leave no entry to anyone else */
	if (sqk_image_open(sqk_file_mem(img_bytes, img_len), &o, &img) != 0)
		return NULL;
	return img;
}

static int dir_of(struct sqk_image *img, struct sqk_inode *d)
{
	struct sqk_inode root;
	struct sqk_dir_entry e;
	int err = sqk_inode_read(img, sqk_image_super(img)->root_inode, &root);

	if (!err)
		err = sqk_dir_lookup(img, &root, "d", 1, &e);
	sqk_inode_free(&root);
	return err ? err : sqk_inode_read(img, e.ref, d);
}

/* Every entry of d, piece by piece, another inode read between pieces: names seen, 1 when in order.
 */
static int read_pieces(struct sqk_image *img, struct sqk_inode *d, int check, size_t *seen,
		       int *error, size_t *pieces)
{
	struct sqk_dir_list l;
	struct sqk_inode other;
	int in_order = 1, err = sqk_dir_list_open(img, d, check, &l);

	*seen = *pieces = 0;
	*error = err;
	if (err)
		return 0;
	while (l.n) {
		size_t i;

		(*pieces)++;
		in_order &= l.first == *seen && l.n <= SQK_DIR_PIECE;
		for (i = 0; i < l.n; i++) {
			char want[16];

			snprintf(want, sizeof(want), "f%03zu", *seen);
			in_order &= strcmp(l.ents[i].name, want) == 0;
			(*seen)++;
		}
		/* The one metadata cache entry is free: another reader gets it. */
		err = sqk_inode_read(img, l.ents[0].ref, &other);
		in_order &= err == 0;
		sqk_inode_free(&other);
		if (l.error) {
			*error = l.error;
			break;
		}
		sqk_dir_list_next(&l);
	}
	sqk_dir_list_close(&l);
	return in_order;
}

/* The offset of name in the image (its first occurrence past the data). */
static size_t find_name(const char *name)
{
	size_t k, len = strlen(name);

	for (k = 0; k + len <= img_len; k++)
		if (memcmp(img_bytes + k, name, len) == 0)
			return k;
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/sqk-dirlist-XXXXXX", path[600];
	struct sqk_mkfs_opts o;
	struct sqk_image *img;
	struct sqk_inode d;
	size_t seen, pieces, at, i;
	int err, in_order;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/d", dir);
	mkdir(path, 0755);
	for (i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "%s/d/f%03zu", dir, i);
		mem_image_text(path, i % 7, (unsigned)i + 1);
	}
	memset(&o, 0, sizeof(o));
	o.codec = sqk_codec_by_name("gzip");
	o.block_size = 4096;
	o.codec->defaults(&o.comp, o.block_size);
	o.threads = 1;
	o.raw = SQK_RAW_INODES;
	img_bytes = mem_image_build_opts(dir, &o, NULL, &img_len);
	if (!img_bytes) {
		printf("Bail out! the image cannot be built\n");
		return 1;
	}

	img = open_mem();
	ok(img && dir_of(img, &d) == 0, "an image with a directory of %d entries", N);
	in_order = read_pieces(img, &d, 1, &seen, &err, &pieces);
	ok(in_order && seen == N && !err,
	   "checked whole, then read in pieces: %zu entries in order", seen);
	is_int(pieces, (N + SQK_DIR_PIECE - 1) / SQK_DIR_PIECE, "  in pieces of %d", SQK_DIR_PIECE);
	in_order = read_pieces(img, &d, 0, &seen, &err, &pieces);
	ok(in_order && seen == N && !err, "read lazily: the same");
	sqk_inode_free(&d);
	sqk_image_destroy(img);

	/* f070 becomes "f/70": a name with a '/' is corruption. */
	at = find_name("f070");
	ok(at > 0, "the name f070 is found in the uncompressed directory table");
	img_bytes[at + 1] = '/';
	img = open_mem();
	ok(img && dir_of(img, &d) == 0, "the damaged image opens");
	{
		struct sqk_dir_list l;

		err = sqk_dir_list_open(img, &d, 1, &l);
		is_int(err, SQK_ERR_BADNAME, "checked whole: refused at open, before any entry");
		ok(l.bad.name_len == 4 && memcmp(l.bad.name, "f/70", 4) == 0,
		   "  naming the entry ('%.*s')", (int)l.bad.name_len, l.bad.name);
	}
	in_order = read_pieces(img, &d, 0, &seen, &err, &pieces);
	ok(in_order && seen == BAD && err == SQK_ERR_BADNAME,
	   "read lazily: the %zu entries before it, then the error", seen);
	{
		struct sqk_dirent e;
		struct sqk_dir *pd;
		int r = sqk_dir_open(img, &d, &pd);
		size_t n = 0;

		while (r == 0 && (r = sqk_dir_next(pd, &e)) == 1) {
			n++;
			r = 0;
		}
		ok(n == BAD && r == SQK_ERR_BADNAME, "sqk_dir_next: %zu entries, then the error",
		   n);
		ok(strstr(sqk_error_message(), "f/70") != NULL, "  whose message names it (%s)",
		   sqk_error_message());
		sqk_dir_destroy(pd);
	}
	sqk_inode_free(&d);
	sqk_image_destroy(img);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		printf("# could not remove %s\n", dir);
	free(img_bytes);
	return tap_done();
}
