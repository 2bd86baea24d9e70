// SPDX-License-Identifier: BSD-2-Clause
/*
 * The earlier images of --reuse, indexed: their regular files by path key
 * and by size, the fragment blocks their tails are in with the length the
 * tails fill. The tree is read with the reader (directories, inodes, the
 * fragment table, an entry when a fragment is first a candidate), so
 * every rule it keeps holds here; what it refuses is skipped and counted,
 * never trusted. The index only names candidates: a block is
 * copied only after the pipeline has decompressed it and compared.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_block.h"
#include "format/format.h"
#include "read/data.h"
#include "read/dir.h"
#include "read/image.h"
#include "read/inode.h"
#include "reuse.h"
#include "tree.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/u64set.h"

struct old_file {
	uint64_t size, blocks_start;
	size_t words; /* index of its first size word in the image's words */
	uint32_t nblocks, frag, frag_offset;
};

/* A fragment block some tail is in: its entry is read when first asked for. */
struct old_frag {
	uint64_t start;
	uint32_t idx, word, len;
	int state; /* FRAG_* */
};

enum { FRAG_UNREAD, FRAG_OK, FRAG_BAD };

struct old_image {
	struct sqk_image *img;
	uint64_t area_start, area_end;
	struct old_file *files;
	size_t nfiles, files_cap;
	uint32_t *words;
	size_t nwords, words_cap;
	struct old_frag *frags;
	size_t nused_frags, frags_cap;
	uint32_t nfrags;			    /* in its fragment table */
	struct sqk_hash by_key, by_size, by_number; /* file index + 1 */
	struct sqk_hash by_frag;		    /* fragment index -> frags index + 1 */
	struct sqk_reuse_stats st;
};

struct sqk_reuse {
	const struct sqk_codec *codec;
	struct sqk_comp_config comp;
	uint32_t bs;
	int data, fragments; /* which kinds of block may be copied */
	struct old_image *imgs;
	size_t n, cap;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

uint64_t sqk_reuse_key(uint64_t dir, const char *name, size_t len)
{
	uint64_t h = mix(dir ^ len);
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
	/* Never 0: a file without a key has 0. */
	return mix(h) | 1;
}

uint64_t sqk_reuse_entry_key(const struct sqk_node *dir, const char *name, size_t len)
{
	/* A directory of the tree knows its own key (tree.c). */
	return sqk_reuse_key(dir->dir.key, name, len);
}

int sqk_reuse_check(struct sqk_image *img, const struct sqk_codec *codec,
		    const struct sqk_comp_config *comp, uint32_t block_size, int raw_data,
		    int raw_fragments)
{
	const struct sqk_super *sb = sqk_image_super(img);
	struct sqk_comp_config a = *sqk_image_comp(img), b = *comp;
	uint8_t oa[64], ob[64];
	size_t la = 0, lb = 0;
	int data, frags;

	if (sb->compressor != codec->id)
		return SQK_REUSE_CODEC;
	if (sb->block_size != block_size)
		return SQK_REUSE_BLOCK_SIZE;
	/* The same settings, whether an options block says them or the defaults stand. */
	a.has_options = b.has_options = 1;
	if (codec->write_options(&a, oa, sizeof(oa), &la) ||
	    codec->write_options(&b, ob, sizeof(ob), &lb) || la != lb || memcmp(oa, ob, la))
		return SQK_REUSE_OPTIONS;
	data = !raw_data && !(sb->flags & SQK_FLAG_UNCOMPRESSED_DATA);
	frags = !raw_fragments && !(sb->flags & SQK_FLAG_UNCOMPRESSED_FRAGMENTS);
	return data || frags ? SQK_REUSE_OK : SQK_REUSE_RAW;
}

int sqk_reuse_refusal(struct sqk_image *img, const struct sqk_codec *codec,
		      const struct sqk_comp_config *comp, uint32_t block_size, int raw_data,
		      int raw_fragments, char *why, size_t cap)
{
	const struct sqk_super *sb = sqk_image_super(img);
	const struct sqk_codec *its = sqk_codec_by_id(sb->compressor);

	switch (sqk_reuse_check(img, codec, comp, block_size, raw_data, raw_fragments)) {
	case SQK_REUSE_OK:
		return 0;
	case SQK_REUSE_CODEC:
		snprintf(why, cap, "compressed with %s, not %s", its ? its->name : "?",
			 codec->name);
		break;
	case SQK_REUSE_BLOCK_SIZE:
		snprintf(why, cap, "block size %" PRIu32 ", not %" PRIu32, sb->block_size,
			 block_size);
		break;
	case SQK_REUSE_OPTIONS:
		snprintf(why, cap, "other %s options than this build's", codec->name);
		break;
	default:
		snprintf(why, cap, "its blocks or this build's are stored uncompressed");
		break;
	}
	return 1;
}

int sqk_reuse_create(const struct sqk_codec *codec, const struct sqk_comp_config *comp,
		     uint32_t block_size, int raw_data, int raw_fragments, struct sqk_reuse **res)
{
	struct sqk_reuse *r = calloc(1, sizeof(*r));

	if (!r)
		return SQK_ERR_NOMEM;
	r->codec = codec;
	r->comp = *comp;
	r->bs = block_size;
	r->data = !raw_data;
	r->fragments = !raw_fragments;
	*res = r;
	return 0;
}

void sqk_reuse_destroy(struct sqk_reuse *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		struct old_image *o = &r->imgs[i];

		free(o->files);
		free(o->words);
		free(o->frags);
		sqk_hash_release(&o->by_key);
		sqk_hash_release(&o->by_size);
		sqk_hash_release(&o->by_number);
		sqk_hash_release(&o->by_frag);
	}
	free(r->imgs);
	free(r);
}

/* The tails of fragment idx end at least at end. */
static int frag_tail(struct old_image *o, uint32_t idx, uint32_t end)
{
	uint64_t v = sqk_hash_get(&o->by_frag, idx);
	struct old_frag *f;

	if (!v) {
		if (SQK_ARRAY_GROW(o->frags, o->frags_cap, o->nused_frags + 1))
			return SQK_ERR_NOMEM;
		o->frags[o->nused_frags++] = (struct old_frag){0, idx, 0, 0, FRAG_UNREAD};
		v = o->nused_frags;
		if (sqk_hash_add(&o->by_frag, idx, v))
			return SQK_ERR_NOMEM;
	}
	f = &o->frags[v - 1];
	if (end > f->len)
		f->len = end;
	return 0;
}

/* A file of the image: kept when its blocks lie where blocks may. */
static int add_file(struct sqk_reuse *r, struct old_image *o, const struct sqk_inode *ino,
		    uint64_t key)
{
	struct old_file *f;
	uint64_t pos = ino->blocks_start;
	uint32_t i, tail = sqk_inode_tail(ino, r->bs);
	int err;

	for (i = 0; i < ino->nblocks; i++) {
		uint32_t size = sqk_fmt_block_size(ino->blocks[i]);

		if (sqk_fmt_block_check(ino->blocks[i], r->bs,
					sqk_fmt_block_len(ino->size, i, r->bs)) ||
		    !sqk_fmt_block_in_area(pos, size, o->area_start, o->area_end))
			return SQK_ERR_CORRUPT;
		pos += size;
	}
	if (ino->frag_index != SQK_INVALID_FRAG &&
	    (ino->frag_index >= o->nfrags || (uint64_t)ino->nblocks * r->bs + tail != ino->size))
		return SQK_ERR_CORRUPT;
	if (SQK_ARRAY_GROW(o->files, o->files_cap, o->nfiles + 1) ||
	    SQK_ARRAY_GROW(o->words, o->words_cap, o->nwords + ino->nblocks))
		return SQK_ERR_NOMEM;
	f = &o->files[o->nfiles];
	*f = (struct old_file){ino->size,    ino->blocks_start, o->nwords,
			       ino->nblocks, ino->frag_index,	ino->frag_offset};
	if (ino->nblocks)
		memcpy(o->words + o->nwords, ino->blocks, ino->nblocks * sizeof(uint32_t));
	o->nwords += ino->nblocks;
	o->nfiles++;
	/* The fragment's length is the end of its last tail. */
	err = 0;
	if (tail && ino->frag_offset + (uint64_t)tail <= r->bs)
		err = frag_tail(o, ino->frag_index, ino->frag_offset + tail);
	else
		f->frag = SQK_INVALID_FRAG;
	if (!err)
		err = sqk_hash_add(&o->by_key, key, o->nfiles);
	if (!err)
		err = sqk_hash_add(&o->by_size, ino->size, o->nfiles);
	if (!err)
		err = sqk_hash_add(&o->by_number, ino->number, o->nfiles);
	return err;
}

/* One entry of a directory; directories go on the stack. */
struct pending {
	uint64_t ref, key;
};

static int index_entry(struct sqk_reuse *r, struct old_image *o, const struct sqk_dir_entry *ent,
		       uint64_t key, struct sqk_u64set *dirs, struct pending **todo, size_t *n,
		       size_t *cap)
{
	struct sqk_inode ino;
	uint64_t have;
	int err;

	if (ent->type == SQK_DIR) {
		/* A directory met twice is a loop of a damaged image: once is enough. */
		err = sqk_u64set_add(dirs, ent->number);
		if (err)
			return err < 0 ? err : 0;
		if (SQK_ARRAY_GROW(*todo, *cap, *n + 1))
			return SQK_ERR_NOMEM;
		(*todo)[(*n)++] = (struct pending){ent->ref, key};
		return 0;
	}
	if (ent->type != SQK_FILE)
		return 0;
	/* A hard link: the file is indexed already, under its first path. */
	have = sqk_hash_get(&o->by_number, ent->number);
	if (have)
		return sqk_hash_add(&o->by_key, key, have);
	err = sqk_inode_read(o->img, ent->ref, &ino);
	if (err) {
		o->st.skipped++;
		return 0;
	}
	err = sqk_basic_type(ino.type) == SQK_FILE && ino.number == ent->number
		      ? add_file(r, o, &ino, key)
		      : SQK_ERR_CORRUPT;
	sqk_inode_free(&ino);
	if (err == SQK_ERR_CORRUPT) {
		o->st.skipped++;
		return 0;
	}
	return err;
}

static int index_dir(struct sqk_reuse *r, struct old_image *o, struct pending p,
		     struct sqk_u64set *dirs, struct pending **todo, size_t *n, size_t *cap)
{
	struct sqk_inode ino;
	struct sqk_dir_iter it;
	struct sqk_dir_entry ent;
	int err, got;

	err = sqk_inode_read(o->img, p.ref, &ino);
	if (!err) {
		err = sqk_basic_type(ino.type) == SQK_DIR ? sqk_dir_iter_open(o->img, &ino, &it)
							  : SQK_ERR_CORRUPT;
		sqk_inode_free(&ino);
	}
	if (err) {
		o->st.skipped++;
		return 0;
	}
	while ((got = sqk_dir_iter_next(&it, &ent)) == 1) {
		err = index_entry(r, o, &ent, sqk_reuse_key(p.key, ent.name, ent.name_len), dirs,
				  todo, n, cap);
		if (err)
			break;
	}
	sqk_dir_iter_close(&it);
	/* The rest of a listing that breaks off is not read. */
	if (!err && got < 0)
		o->st.skipped++;
	return err;
}

int sqk_reuse_add(struct sqk_reuse *r, struct sqk_image *img)
{
	const struct sqk_super *sb = sqk_image_super(img);
	struct sqk_u64set dirs = {0};
	struct pending *todo = NULL;
	size_t ntodo = 0, todo_cap = 0;
	struct old_image *o;
	int err;

	/* Blocks of another codec or settings would be read back as garbage: never. */
	if (sqk_reuse_check(img, r->codec, &r->comp, r->bs, !r->data, !r->fragments))
		return SQK_ERR_ARG;
	if (SQK_ARRAY_GROW(r->imgs, r->cap, r->n + 1))
		return SQK_ERR_NOMEM;
	o = &r->imgs[r->n++];
	memset(o, 0, sizeof(*o));
	o->img = img;
	o->st.differs = -1;
	o->nfrags = sb->fragment_count;
	sqk_image_data_area(img, &o->area_start, &o->area_end);
	err = SQK_ARRAY_GROW(todo, todo_cap, 1) ? SQK_ERR_NOMEM : 0;
	if (!err)
		todo[ntodo++] = (struct pending){sb->root_inode, SQK_REUSE_ROOT_KEY};
	while (!err && ntodo) {
		struct pending p = todo[--ntodo];

		err = index_dir(r, o, p, &dirs, &todo, &ntodo, &todo_cap);
	}
	free(todo);
	sqk_u64set_free(&dirs);
	return err;
}

size_t sqk_reuse_count(const struct sqk_reuse *r)
{
	return r ? r->n : 0;
}

const struct sqk_reuse_stats *sqk_reuse_stats(const struct sqk_reuse *r, size_t i)
{
	return &r->imgs[i].st;
}

struct sqk_reuse_stats *sqk_reuse_stats_rw(struct sqk_reuse *r, unsigned img)
{
	return &r->imgs[img].st;
}

struct sqk_blocks *sqk_reuse_blocks(const struct sqk_reuse *r, unsigned img)
{
	return sqk_image_blocks(r->imgs[img].img);
}

uint32_t sqk_reuse_block_size(const struct sqk_reuse *r)
{
	return r->bs;
}

/* Add file v - 1 of image i to out unless it is there already or can give nothing. */
static size_t take(const struct sqk_reuse *r, unsigned i, uint64_t v, struct sqk_reuse_file *out,
		   size_t n)
{
	const struct old_image *o = &r->imgs[i];
	const struct old_file *f = &o->files[v - 1];
	/* An image whose files are all fragments has no words at all. */
	const uint32_t *words = o->words ? o->words + f->words : NULL;
	struct sqk_reuse_file c = {f->size, f->blocks_start, words, f->nblocks,
				   f->frag, f->frag_offset,  i};
	size_t k;

	if (!r->data)
		c.nblocks = 0;
	if (!r->fragments)
		c.frag = SQK_INVALID_FRAG;
	if (!c.nblocks && c.frag == SQK_INVALID_FRAG)
		return n;
	for (k = 0; k < n; k++)
		if (out[k].img == i && out[k].words == c.words && out[k].frag == c.frag &&
		    out[k].frag_offset == c.frag_offset && out[k].blocks_start == c.blocks_start)
			return n;
	out[n] = c;
	return n + 1;
}

size_t sqk_reuse_files(const struct sqk_reuse *r, uint64_t key, uint64_t size,
		       struct sqk_reuse_file *out, size_t max)
{
	struct sqk_hash_iter it;
	size_t n = 0;
	unsigned i;
	uint64_t v;

	for (i = 0; key && i < r->n && n < max; i++)
		for (v = sqk_hash_first(&r->imgs[i].by_key, key, &it); v && n < max;
		     v = sqk_hash_next(&it))
			n = take(r, i, v, out, n);
	/* A file of the same size at its path is the one: others of that size would cost in vain.
	 */
	for (i = 0; i < n; i++)
		if (out[i].size == size)
			return n;
	for (i = 0; i < r->n && n < max; i++)
		for (v = sqk_hash_first(&r->imgs[i].by_size, size, &it); v && n < max;
		     v = sqk_hash_next(&it))
			n = take(r, i, v, out, n);
	return n;
}

int sqk_reuse_fragment(struct sqk_reuse *r, unsigned img, uint32_t idx, uint64_t *start,
		       uint32_t *word, uint32_t *len)
{
	struct old_image *o = &r->imgs[img];
	uint64_t v = sqk_hash_get(&o->by_frag, idx);
	struct old_frag *f;

	if (!v)
		return SQK_ERR_NOENT;
	f = &o->frags[v - 1];
	if (f->state == FRAG_UNREAD) {
		f->state =
			sqk_fragment_entry(o->img, idx, &f->start, &f->word) ? FRAG_BAD : FRAG_OK;
		o->st.skipped += f->state == FRAG_BAD;
	}
	if (f->state != FRAG_OK)
		return SQK_ERR_NOENT;
	*start = f->start;
	*word = f->word;
	*len = f->len;
	return 0;
}
