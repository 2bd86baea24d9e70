// SPDX-License-Identifier: BSD-2-Clause
/* The levels above the data blocks' digests, the root and the hash area (verity_tree.h). */
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/file.h"
#include "verity_tree.h"

uint64_t sqk_verity_leaves_bytes(const struct sqk_verity_geo *g)
{
	return g->levels ? g->level_size[0] * g->hash_bs : g->slot;
}

void sqk_verity_params_sb(const struct sqk_verity_params *p, struct sqk_verity_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->version = 1;
	sb->hash_type = p->hash_type;
	memcpy(sb->uuid, p->uuid, 16);
	memcpy(sb->algorithm, p->algorithm, sizeof(sb->algorithm));
	sb->data_block_size = p->data_block_size;
	sb->hash_block_size = p->hash_block_size;
	sb->data_blocks = p->data_blocks;
	sb->salt_size = p->salt_size;
	memcpy(sb->salt, p->salt, p->salt_size);
}

void sqk_verity_sb_params(const struct sqk_verity_sb *sb, uint64_t hash_offset,
			  struct sqk_verity_params *p)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->algorithm, sb->algorithm, sizeof(p->algorithm));
	p->hash_type = sb->hash_type;
	memcpy(p->uuid, sb->uuid, 16);
	p->data_block_size = sb->data_block_size;
	p->hash_block_size = sb->hash_block_size;
	p->data_blocks = sb->data_blocks;
	p->salt_size = sb->salt_size;
	memcpy(p->salt, sb->salt, sb->salt_size);
	p->hash_offset = hash_offset;
	p->superblock = 1;
}

/* The superblock, and zeros to the tree's first block. */
static int write_sb(const struct sqk_verity_params *p, const struct sqk_verity_geo *g,
		    struct sqk_file *out)
{
	uint64_t len = g->tree_block * g->hash_bs - p->hash_offset;
	struct sqk_verity_sb sb;
	uint8_t *buf = calloc(1, (size_t)len);
	int err;

	if (!buf)
		return SQK_ERR_NOMEM;
	sqk_verity_params_sb(p, &sb);
	sqk_verity_sb_encode(&sb, buf);
	err = out->write_at(out, p->hash_offset, buf, (size_t)len);
	free(buf);
	return err;
}

int sqk_verity_tree_write(const struct sqk_verity_params *p, const struct sqk_verity_geo *g,
			  const struct sqk_verity_hasher *h, const uint8_t *leaves,
			  struct sqk_file *out, uint8_t *root)
{
	struct sqk_verity_ctx *c = sqk_verity_ctx_new();
	const uint8_t *level = leaves;
	uint8_t *next = NULL, *prev = NULL;
	unsigned l;
	int err = 0;

	if (!c)
		return SQK_ERR_NOMEM;
	if (out && p->superblock)
		err = write_sb(p, g, out);
	if (!g->levels) {
		/* One data block: its hash is the root. */
		memcpy(root, leaves, g->digest);
		goto done;
	}
	for (l = 0; !err && l < g->levels; l++) {
		uint64_t n = g->level_size[l], i;

		if (out)
			err = out->write_at(out, sqk_verity_hash_pos(g, l, 0), level,
					    (size_t)(n * g->hash_bs));
		if (err)
			break;
		if (l + 1 == g->levels) {
			err = sqk_verity_hash(h, c, level, g->hash_bs, root);
			break;
		}
		next = calloc(g->level_size[l + 1], g->hash_bs);
		if (!next) {
			err = SQK_ERR_NOMEM;
			break;
		}
		for (i = 0; !err && i < n; i++)
			err = sqk_verity_hash(h, c, level + i * g->hash_bs, g->hash_bs,
					      next + i * g->slot);
		free(prev);
		prev = next;
		level = next;
		next = NULL;
	}
	free(prev);
done:
	sqk_verity_ctx_free(c);
	return err;
}
