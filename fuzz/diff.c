// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the comparison of two images. The input is opened twice,
 * as A and as B, and compared (every block and fragment then compares by
 * its stored bytes: the size words, positions and fragment entries of a
 * hostile image are checked before any byte is read); then it is compared
 * with a copy in which one byte of the data area is flipped, so that some
 * blocks differ and are decompressed on both sides. Contents are compared
 * on one worker thread, and the output goes nowhere.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/dtree.h"
#include "format/format.h"
#include "read/image.h"
#include "util/file.h"

struct count {
	struct sqk_diff_sink sink;
	size_t bytes;
};

static int count(struct sqk_diff_sink *s, const struct sqk_diff_change *c)
{
	struct count *k = (struct count *)s;

	/* Touch every string, so a bad one is caught here. */
	k->bytes += (c->path ? strlen(c->path) : 0) + (c->name ? strlen(c->name) : 0);
	if (c->sa)
		k->bytes += memchr(c->sa, 0, c->la) ? 1 : c->la;
	if (c->sb)
		k->bytes += memchr(c->sb, 0, c->lb) ? 1 : c->lb;
	return 0;
}

static struct sqk_image *open_image(const uint8_t *data, size_t size)
{
	struct sqk_image_opts o;
	struct sqk_image *img = NULL;
	struct sqk_file *f = sqk_file_mem(data, size);

	if (!f)
		return NULL;
	sqk_image_opts_default(&o);
	o.stall_ms = 100;
	o.data_entries = 2;
	o.frag_entries = 4;
	if (sqk_image_open(f, &o, &img) != 0)
		return NULL;
	return img;
}

static void compare(const uint8_t *a, const uint8_t *b, size_t size)
{
	struct sqk_image *ia = open_image(a, size), *ib = ia ? open_image(b, size) : NULL;
	struct sqk_dtree *ta = NULL, *tb = NULL;
	struct count k = {{count}, 0};
	struct sqk_diff_conf o = {0};
	struct sqk_diff_stats st;
	struct sqk_diff_error e;

	o.threads = 1;
	o.times = 1;
	o.super = 1;
	if (ia && ib && sqk_dtree_image(ia, &ta) == 0 && sqk_dtree_image(ib, &tb) == 0)
		sqk_diff(ta, tb, &o, &k.sink, &st, &e);
	sqk_dtree_destroy(ta);
	sqk_dtree_destroy(tb);
	if (ia)
		sqk_image_destroy(ia);
	if (ib)
		sqk_image_destroy(ib);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size <= SQK_SUPER_SIZE)
		return 0;
	compare(data, data, size);
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[SQK_SUPER_SIZE + (size - SQK_SUPER_SIZE) / 3] ^= 0x10;
	compare(data, copy, size);
	free(copy);
	return 0;
}
