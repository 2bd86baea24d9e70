// SPDX-License-Identifier: BSD-2-Clause
/* Finding and opening a hash area (verity_area.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/file.h"
#include "verity_area.h"
#include "verity_tree.h"

static int said(const char **why, const char *what, int err)
{
	*why = what;
	return err;
}

int sqk_verity_where_root(struct sqk_verity_where *w, const char *hex)
{
	size_t n;

	if (sqk_verity_unhex(hex, w->root, sizeof(w->root), &n) || n < 16)
		return SQK_ERR_ARG;
	w->root_len = (uint32_t)n;
	return 0;
}

int sqk_verity_where_plain(struct sqk_verity_where *w, const char *algorithm, const char *salt,
			   const char **why)
{
	size_t n = 0;

	if (!algorithm)
		algorithm = "sha256";
	if (strlen(algorithm) >= sizeof(w->algorithm) || !sqk_verity_digest_size(algorithm))
		return said(why, "unknown hash algorithm", SQK_ERR_ARG);
	if (salt && sqk_verity_unhex(salt, w->salt, sizeof(w->salt), &n))
		return said(why, "the salt is no hex of at most 256 bytes (- for none)",
			    SQK_ERR_ARG);
	strcpy(w->algorithm, algorithm);
	w->salt_size = (uint16_t)n;
	w->no_superblock = 1;
	return 0;
}

/* The parameters: the superblock's, or those given. */
static int params(struct sqk_verity_area *a, const struct sqk_verity_where *w, const char **why)
{
	struct sqk_verity_params *p = &a->p;
	uint8_t raw[SQK_VERITY_SB_SIZE];
	struct sqk_verity_sb sb;
	int err;

	if (w->no_superblock) {
		strcpy(p->algorithm, w->algorithm[0] ? w->algorithm : "sha256");
		p->hash_type = 1;
		p->data_block_size = p->hash_block_size = SQK_VERITY_BLOCK;
		p->data_blocks = w->data_blocks ? w->data_blocks : a->image_end / SQK_VERITY_BLOCK;
		p->salt_size = w->salt_size;
		memcpy(p->salt, w->salt, w->salt_size);
		return 0;
	}
	err = a->hash->read_at(a->hash, p->hash_offset, raw, sizeof(raw));
	if (err == SQK_ERR_TRUNCATED)
		return said(why, "the file ends before a verity superblock would", SQK_ERR_MAGIC);
	if (err) {
		errno = a->hash->errnum;
		return said(why, NULL, err);
	}
	err = sqk_verity_sb_decode(raw, &sb, why);
	if (!err)
		sqk_verity_sb_params(&sb, p->hash_offset, p);
	return err;
}

/* The tree must fit its file, and cover the image, and not the other way round. */
static int fits(struct sqk_verity_area *a, struct sqk_file *image, const char **why)
{
	uint64_t covered = a->p.data_blocks * a->p.data_block_size;

	if (a->p.data_blocks > UINT64_MAX / a->p.data_block_size)
		return said(why, "more data blocks than a device holds", SQK_ERR_CORRUPT);
	if (a->hash->size(a->hash) < a->g.end)
		return said(why, "the file ends before the hash tree does", SQK_ERR_TRUNCATED);
	if (!a->own_hash && covered > a->p.hash_offset)
		return said(why, "the data blocks overlap the hash area", SQK_ERR_CORRUPT);
	if (covered < a->image_end)
		return said(why, "the tree covers fewer bytes than the image holds",
			    SQK_ERR_CORRUPT);
	if (image->size(image) < covered)
		return said(why, "the image's file ends before the data blocks the tree covers",
			    SQK_ERR_TRUNCATED);
	return 0;
}

int sqk_verity_area_open(struct sqk_file *image, uint64_t end, const struct sqk_verity_where *w,
			 struct sqk_verity_area **out, const char **why)
{
	struct sqk_verity_area *a = calloc(1, sizeof(*a));
	int err = 0;

	*out = NULL;
	*why = NULL;
	if (!a)
		return SQK_ERR_NOMEM;
	a->image_end = (end + SQK_VERITY_BLOCK - 1) / SQK_VERITY_BLOCK * SQK_VERITY_BLOCK;
	if (w->hash_path) {
		errno = 0;
		a->hash = sqk_file_open(w->hash_path, SQK_FILE_READ, &err);
		a->own_hash = 1;
		if (!a->hash) {
			free(a);
			return err;
		}
	} else {
		a->hash = image;
	}
	a->p.hash_offset = w->offset != SQK_VERITY_AT_END ? w->offset
			   : w->hash_path		  ? 0
							  : a->image_end;
	err = params(a, w, why);
	if (!err && sqk_verity_hasher_init(&a->h, &a->p))
		err = said(why, "a hash algorithm this library does not read", SQK_ERR_UNSUPPORTED);
	if (!err && a->h.digest != w->root_len)
		err = said(why, "the root hash is not as long as the tree's algorithm makes them",
			   SQK_ERR_ARG);
	if (!err && sqk_verity_geometry(&a->p, a->h.digest, &a->g))
		err = said(why, "no tree can be laid out with these parameters", SQK_ERR_CORRUPT);
	if (!err)
		err = fits(a, image, why);
	if (err) {
		int e = errno;

		sqk_verity_area_free(a);
		errno = e;
		return err;
	}
	memcpy(a->root, w->root, w->root_len);
	*out = a;
	return 0;
}

void sqk_verity_area_free(struct sqk_verity_area *a)
{
	if (!a)
		return;
	if (a->own_hash)
		sqk_file_destroy(a->hash);
	free(a);
}

void sqk_verity_bad_text(const struct sqk_verity_bad *b, char *buf, size_t cap)
{
	unsigned long long i = b->block, pos = b->pos;
	unsigned long long c = b->covers, n = b->ncovers;

	if (b->level < 0) {
		switch (b->why) {
		case SQK_VERITY_UNREADABLE:
			snprintf(buf, cap, "data block %llu (bytes %llu..%llu) cannot be read", i,
				 pos, pos + SQK_VERITY_BLOCK - 1);
			break;
		case SQK_VERITY_UNCOVERED:
			snprintf(buf, cap,
				 "data block %llu (bytes from %llu) is not in the hash tree", i,
				 pos);
			break;
		default:
			snprintf(buf, cap, "data block %llu (bytes %llu..%llu) does not match %s",
				 i, pos, pos + SQK_VERITY_BLOCK - 1,
				 b->top ? "the root hash" : "its hash");
		}
		return;
	}
	switch (b->why) {
	case SQK_VERITY_SPARE:
		snprintf(buf, cap,
			 "hash block %llu of level %d (at byte %llu): its bytes after the digests "
			 "are not zero",
			 i, b->level, pos);
		break;
	case SQK_VERITY_UNREADABLE:
		snprintf(buf, cap,
			 "hash block %llu of level %d (at byte %llu) cannot be read: data blocks "
			 "%llu..%llu cannot be checked",
			 i, b->level, pos, c, c + n - 1);
		break;
	default:
		snprintf(buf, cap,
			 "hash block %llu of level %d (at byte %llu) does not match %s: data "
			 "blocks %llu..%llu cannot be checked",
			 i, b->level, pos,
			 b->top ? "the root hash" : "its digest in the level above", c, c + n - 1);
	}
}
