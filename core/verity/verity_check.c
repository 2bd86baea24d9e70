// SPDX-License-Identifier: BSD-2-Clause
/* A whole image checked against its tree (verity_check.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/file.h"
#include "verity_blocks.h"
#include "verity_check.h"

struct check {
	const struct sqk_verity_area *a;
	const struct sqk_verity_geo *g;
	sqk_verity_bad_fn fn;
	void *ctx;
	uint64_t nbad;
	uint8_t *tree;			    /* the stored hash blocks, from the tree's first */
	uint8_t *ok[SQK_VERITY_MAX_LEVELS]; /* per level and block: checked up to the root */
};

static void report(struct check *k, int level, uint64_t block, uint64_t pos,
		   enum sqk_verity_why why)
{
	struct sqk_verity_bad b = {level, block, pos, why, block, 1, 0};

	if (level >= 0)
		sqk_verity_covers(k->g, (unsigned)level, block, &b.covers, &b.ncovers);
	b.top = level + 1 == (int)k->g->levels;
	k->nbad++;
	if (k->fn)
		k->fn(k->ctx, &b);
}

/* Hash block j of level l as stored. */
static const uint8_t *stored(const struct check *k, unsigned l, uint64_t j)
{
	return k->tree + (k->g->level_block[l] + j - k->g->tree_block) * k->g->hash_bs;
}

/* The children of level l (data blocks for level 0, else the blocks of level l - 1). */
static uint64_t children(const struct check *k, unsigned l)
{
	return l ? k->g->level_size[l - 1] : k->g->data_blocks;
}

/* Are the bytes of block j of level l that no digest uses all zero? */
static int spare_zero(const struct check *k, unsigned l, uint64_t j)
{
	const struct sqk_verity_geo *g = k->g;
	const uint8_t *b = stored(k, l, j);
	uint64_t per = (uint64_t)1 << g->per_bits, used = children(k, l) - j * per, i, e;

	if (used > per)
		used = per;
	for (i = 0; i < used; i++)
		for (e = g->digest; e < g->slot; e++)
			if (b[i * g->slot + e])
				return 0;
	for (i = used * g->slot; i < g->hash_bs; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Top down: a hash block is sound when its parent is and its digest is the parent's entry. */
static int hash_levels(struct check *k, struct sqk_verity_ctx *c)
{
	const struct sqk_verity_geo *g = k->g;
	uint8_t d[SQK_VERITY_DIGEST_MAX];
	int l, err;

	for (l = (int)g->levels - 1; l >= 0; l--) {
		uint64_t j;

		k->ok[l] = calloc(g->level_size[l], 1);
		if (!k->ok[l])
			return SQK_ERR_NOMEM;
		for (j = 0; j < g->level_size[l]; j++) {
			const uint8_t *want = k->a->root;
			uint64_t pb;
			uint32_t off;

			if (l + 1 < (int)g->levels) {
				sqk_verity_parent(g, j, &pb, &off);
				if (!k->ok[l + 1][pb])
					continue; /* stands under a bad block, reported */
				want = stored(k, (unsigned)l + 1, pb) + off;
			}
			err = sqk_verity_hash(&k->a->h, c, stored(k, (unsigned)l, j), g->hash_bs,
					      d);
			if (err)
				return err;
			if (memcmp(d, want, g->digest)) {
				report(k, l, j, sqk_verity_hash_pos(g, (unsigned)l, j),
				       SQK_VERITY_MISMATCH);
				continue;
			}
			k->ok[l][j] = 1;
			if (!spare_zero(k, (unsigned)l, j))
				report(k, l, j, sqk_verity_hash_pos(g, (unsigned)l, j),
				       SQK_VERITY_SPARE);
		}
	}
	return 0;
}

/* Each data block against its digest, where the hash block holding it is sound. */
static void data_blocks(struct check *k, const uint8_t *got, const uint8_t *failed)
{
	const struct sqk_verity_geo *g = k->g;
	uint64_t i;

	for (i = 0; i < g->data_blocks; i++) {
		const uint8_t *want = k->a->root;
		uint64_t hb;
		uint32_t off;

		if (g->levels) {
			sqk_verity_parent(g, i, &hb, &off);
			if (!k->ok[0][hb])
				continue;
			want = stored(k, 0, hb) + off;
		}
		if (failed[i])
			report(k, -1, i, i * g->data_bs, SQK_VERITY_UNREADABLE);
		else if (memcmp(got + i * g->slot, want, g->digest))
			report(k, -1, i, i * g->data_bs, SQK_VERITY_MISMATCH);
	}
}

int sqk_verity_check(const struct sqk_verity_area *a, struct sqk_file *image, unsigned threads,
		     sqk_verity_bad_fn fn, void *ctx, uint64_t *nbad)
{
	const struct sqk_verity_geo *g = &a->g;
	struct check k = {.a = a, .g = g, .fn = fn, .ctx = ctx};
	uint64_t tree_bytes = g->end - g->tree_block * g->hash_bs;
	struct sqk_verity_run run = {
		.h = &a->h,
		.f = image,
		.bs = g->data_bs,
		.n = g->data_blocks,
		.slot = g->slot,
		.threads = threads,
	};
	struct sqk_verity_ctx *c = sqk_verity_ctx_new();
	int err = 0;
	unsigned l;

	*nbad = 0;
	if (g->data_blocks > SIZE_MAX / g->slot || tree_bytes > SIZE_MAX)
		err = SQK_ERR_NOMEM;
	run.out = err ? NULL : malloc((size_t)(g->data_blocks * g->slot));
	run.failed = err ? NULL : calloc((size_t)g->data_blocks, 1);
	k.tree = tree_bytes ? malloc((size_t)tree_bytes) : NULL;
	if (!c || !run.out || !run.failed || (tree_bytes && !k.tree)) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	if (tree_bytes) {
		err = a->hash->read_at(a->hash, g->tree_block * g->hash_bs, k.tree,
				       (size_t)tree_bytes);
		if (err) {
			errno = a->hash->errnum;
			goto out;
		}
	}
	/* A data block that cannot be read is reported; only memory stops the check. */
	err = sqk_verity_hash_run(&run);
	if (err && err != SQK_ERR_NOMEM)
		err = 0;
	if (!err)
		err = hash_levels(&k, c);
	if (!err)
		data_blocks(&k, run.out, run.failed);
	*nbad = k.nbad;
out:
	for (l = 0; l < g->levels; l++)
		free(k.ok[l]);
	free(k.tree);
	free(run.out);
	free(run.failed);
	sqk_verity_ctx_free(c);
	return err;
}
