// SPDX-License-Identifier: BSD-2-Clause
/*
 * mkimage --reuse OLD: each earlier image is opened before anything is
 * written, for the lines --reuse-offset gives and to refuse one that is no
 * image. The library does the rest: it leaves out, with a note here, an
 * image whose blocks cannot serve this build (another compressor, block
 * size or options), and copies the blocks of the others. The new image is
 * written beside IMAGE and renamed as always, so OLD may be IMAGE itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "imageopt.h"
#include "mkimage.h"

int cli_mkimage_reuse_check(const struct args *a)
{
	size_t i;

	cli_offset_quiet(a->quiet);
	for (i = 0; i < a->reuse.n; i++) {
		/* Errors name --reuse-offset: an OLD further in is found by it. */
		struct sqk_offset o = {.option = "--reuse-offset"};
		struct sqk_image *img;

		/* Each image is looked for afresh: --reuse-offset auto is per file. */
		if (a->reuse_offset && cli_offset_parse(a->reuse_offset, &o) != 0)
			return EXIT_USAGE;
		img = cli_open_image_at(a->reuse.v[i], &o, NULL);
		if (!img)
			return EXIT_FAIL;
		sqk_image_destroy(img);
	}
	return 0;
}

void cli_mkimage_reuse_refused(const struct args *a, const struct sqk_build *b)
{
	size_t i;

	for (i = 0; i < a->reuse.n; i++) {
		const char *why = sqk_build_reuse_why(b, i);

		if (why && *why)
			cli_error(a->reuse.v[i], "%s: nothing reused", why);
	}
}

/* A figure of what earlier image i gave; 0 when it gave none. */
static uint64_t given(const struct sqk_build *b, size_t i, const char *name)
{
	uint64_t v = 0;

	return sqk_build_reuse_stat(b, i, name, &v) ? 0 : v;
}

void cli_mkimage_reuse_notes(const struct args *a, const struct sqk_build *b)
{
	size_t i;

	/* A damaged or unreadable earlier image is worth knowing of, though the build is sound. */
	for (i = 0; i < a->reuse.n; i++) {
		uint64_t unreadable = given(b, i, "unreadable"), skipped = given(b, i, "skipped");
		char blocks[48] = "", entries[48] = "";
		int e;

		if (!unreadable && !skipped)
			continue;
		if (unreadable)
			snprintf(blocks, sizeof(blocks), "%" PRIu64 " block%s", unreadable,
				 unreadable == 1 ? "" : "s");
		if (skipped)
			snprintf(entries, sizeof(entries), "%" PRIu64 " entr%s", skipped,
				 skipped == 1 ? "y" : "ies");
		/* A failed read says its errno; what read but did not decode is damage. */
		e = (int)given(b, i, "errno");
		cli_error(a->reuse.v[i], "%s%s%s could not be read back (%s); compressed afresh",
			  blocks, *blocks && *entries ? " and " : "", entries,
			  e ? strerror(e) : "damaged");
	}
}

void cli_mkimage_reuse_print(const struct args *a, const struct sqk_build *b)
{
	size_t i;

	printf("reuse            %" PRIu64 " blocks (%" PRIu64 " bytes) copied, %" PRIu64
	       " compressed\n",
	       cli_mkimage_stat(b, "reused_blocks"), cli_mkimage_stat(b, "reused_bytes"),
	       cli_mkimage_stat(b, "compressed_blocks"));
	for (i = 0; i < a->reuse.n; i++) {
		const char *why = sqk_build_reuse_why(b, i);
		uint64_t same;
		int differs;

		printf("  %s: ", a->reuse.v[i]);
		if (*why) {
			printf("not used (%s)\n", why);
			continue;
		}
		differs = sqk_build_reuse_stat(b, i, "same_compression", &same) ? -1 : !same;
		printf("%" PRIu64 " blocks (%" PRIu64 " bytes stored) copied, %" PRIu64
		       " rejected, %" PRIu64 " unreadable, %" PRIu64 " entries skipped%s\n",
		       given(b, i, "blocks"), given(b, i, "stored_bytes"), given(b, i, "rejected"),
		       given(b, i, "unreadable"), given(b, i, "skipped"),
		       differs < 0 ? ""
		       : differs   ? "; compressed otherwise than this build compresses"
				   : "; stored as this build stores");
	}
}
