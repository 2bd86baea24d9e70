// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkimage --reuse OLD: the earlier images are opened by the reader before
 * anything is written. One that is not an image is an error; one whose
 * blocks cannot serve this build (another compressor, block size or
 * options) gets a note and is not used. The library does the rest
 * (core/write/reuse.c): the new image is written beside IMAGE and renamed
 * as always, so OLD may be IMAGE itself, read to the end through the
 * descriptor opened here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compressors/compressor.h"
#include "imageopt.h"
#include "mkimage.h"
#include "read/image.h"
#include "util/file.h"
#include "write/reuse.h"

/* Why img cannot serve the build, as a note; 0 when it can. */
static int refusal(struct sqk_image *img, const struct args *a, char *why, size_t cap)
{
	return sqk_reuse_refusal(img, a->o.codec, &a->o.comp, a->o.block_size,
				 !!(a->o.raw & SQK_RAW_DATA), !!(a->o.raw & SQK_RAW_FRAGMENTS), why,
				 cap);
}

int cli_mkimage_reuse_open(struct args *a, struct sqk_reuse_set *r)
{
	struct sqk_image_opts io;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!a->reuse.n)
		return 0;
	r->v = calloc(a->reuse.n, sizeof(*r->v));
	r->used = calloc(a->reuse.n, sizeof(*r->used));
	if (!r->v || !r->used) {
		cli_error(NULL, "out of memory");
		return EXIT_FAIL;
	}
	sqk_image_opts_default(&io);
	/* Every worker and the main thread prove blocks at once. */
	io.decompressors = a->o.threads + 1;
	for (i = 0; i < a->reuse.n; i++) {
		struct sqk_reuse_given *g = &r->v[r->n++];

		g->path = a->reuse.v[i];
		/* Each image is looked for afresh: --reuse-offset auto is per file. */
		if (cli_offset_option(a->reuse_offset ? a->reuse_offset : "0") != 0)
			return EXIT_USAGE;
		g->img = cli_open_image(g->path, &io);
		if (!g->img)
			return EXIT_FAIL;
		if (refusal(g->img, a, g->why, sizeof(g->why))) {
			cli_error(g->path, "%s: nothing reused", g->why);
			sqk_image_close(g->img);
			g->img = NULL;
			continue;
		}
		r->used[a->o.nreuse++] = g->img;
	}
	a->o.reuse = r->used;
	return 0;
}

void cli_mkimage_reuse_done(struct sqk_reuse_set *r, const struct sqk_mkfs *m)
{
	size_t i, k = 0;

	for (i = 0; i < r->n; i++) {
		struct sqk_reuse_given *g = &r->v[i];

		if (!g->img)
			continue;
		g->st = sqk_mkfs_reuse(m, k++);
	}
}

void cli_mkimage_reuse_notes(const struct sqk_reuse_set *r)
{
	size_t i;

	/* A damaged or unreadable earlier image is worth knowing of, though the build is sound. */
	for (i = 0; i < r->n; i++) {
		const struct sqk_reuse_stats *s = r->v[i].st;
		char blocks[48] = "", entries[48] = "";
		int e;

		if (!s || (!s->unreadable && !s->skipped))
			continue;
		if (s->unreadable)
			snprintf(blocks, sizeof(blocks), "%" PRIu64 " block%s", s->unreadable,
				 s->unreadable == 1 ? "" : "s");
		if (s->skipped)
			snprintf(entries, sizeof(entries), "%" PRIu64 " entr%s", s->skipped,
				 s->skipped == 1 ? "y" : "ies");
		/* A failed read says its errno; what read but did not decode is damage. */
		e = __atomic_load_n(&sqk_image_file(r->v[i].img)->errnum, __ATOMIC_RELAXED);
		cli_error(r->v[i].path, "%s%s%s could not be read back (%s); compressed afresh",
			  blocks, *blocks && *entries ? " and " : "", entries,
			  e ? strerror(e) : "damaged");
	}
}

void cli_mkimage_reuse_print(const struct sqk_reuse_set *r, const struct sqk_mkfs_stats *st)
{
	size_t i;

	printf("reuse            %" PRIu64 " blocks (%" PRIu64 " bytes) copied, %" PRIu64
	       " compressed\n",
	       st->reused_blocks, st->reused_bytes, st->compressed_blocks);
	for (i = 0; i < r->n; i++) {
		const struct sqk_reuse_given *g = &r->v[i];
		const struct sqk_reuse_stats *s = g->st;

		printf("  %s: ", g->path);
		if (!s) {
			printf("not used (%s)\n", g->why);
			continue;
		}
		printf("%" PRIu64 " blocks (%" PRIu64 " bytes stored) copied, %" PRIu64
		       " rejected, %" PRIu64 " unreadable, %" PRIu64 " entries skipped%s\n",
		       s->blocks, s->stored, s->rejected, s->unreadable, s->skipped,
		       s->differs < 0 ? ""
		       : s->differs   ? "; compressed otherwise than this build compresses"
				      : "; stored as this build stores");
	}
}

void cli_mkimage_reuse_close(struct sqk_reuse_set *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].img)
			sqk_image_close(r->v[i].img);
	free(r->v);
	free(r->used);
	memset(r, 0, sizeof(*r));
}
