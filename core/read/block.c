// SPDX-License-Identifier: GPL-2.0-or-later
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "error.h"
#include "fmt_meta.h"
#include "format.h"

/* A decompressor instance and the scratch buffer its input is read into. */
struct decomp {
	struct sqk_compressor *comp;
	uint8_t *scratch;
};

struct sqk_blocks {
	struct sqk_file *file;
	uint64_t bytes_used;
	uint32_t block_size;
	struct sqk_cache *comp_cache;
	/* decompressors: a stack of free instances */
	pthread_mutex_t lock;
	pthread_cond_t free_cond;
	struct decomp *decomp;
	unsigned ndecomp, nfree;
	struct decomp **free;
	size_t scratch_size;
	uint64_t decompressions;
};

int sqk_blocks_create(struct sqk_file *file, uint64_t bytes_used, uint32_t block_size,
		      const struct sqk_codec *codec, const struct sqk_comp_config *comp,
		      unsigned decompressors, struct sqk_cache *comp_cache, struct sqk_blocks **out)
{
	struct sqk_blocks *b = calloc(1, sizeof(*b));
	unsigned i, n = decompressors ? decompressors : 1;

	*out = NULL;
	if (!b)
		return SQK_ERR_NOMEM;
	b->file = file;
	b->bytes_used = bytes_used;
	b->block_size = block_size;
	b->comp_cache = comp_cache;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->free_cond, NULL);
	b->scratch_size = block_size > SQK_META_SIZE ? block_size : SQK_META_SIZE;
	b->decomp = calloc(n, sizeof(*b->decomp));
	b->free = calloc(n, sizeof(*b->free));
	if (!b->decomp || !b->free) {
		sqk_blocks_destroy(b);
		return SQK_ERR_NOMEM;
	}
	for (i = 0; i < n; i++) {
		b->decomp[i].comp = codec->create(comp);
		b->decomp[i].scratch = malloc(b->scratch_size);
		b->ndecomp++;
		if (!b->decomp[i].comp || !b->decomp[i].scratch) {
			sqk_blocks_destroy(b);
			return SQK_ERR_NOMEM;
		}
		b->free[b->nfree++] = &b->decomp[i];
	}
	*out = b;
	return 0;
}

void sqk_blocks_destroy(struct sqk_blocks *b)
{
	unsigned i;

	if (!b)
		return;
	for (i = 0; i < b->ndecomp; i++) {
		if (b->decomp[i].comp)
			b->decomp[i].comp->destroy(b->decomp[i].comp);
		free(b->decomp[i].scratch);
	}
	free(b->decomp);
	free(b->free);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->free_cond);
	free(b);
}

uint64_t sqk_blocks_decompressions(const struct sqk_blocks *b)
{
	return __atomic_load_n(&b->decompressions, __ATOMIC_RELAXED);
}

int sqk_blocks_pread(struct sqk_blocks *b, uint64_t pos, void *buf, size_t len)
{
	if (pos > b->bytes_used || len > b->bytes_used - pos)
		return SQK_ERR_CORRUPT;
	return b->file->read_at(b->file, pos, buf, len);
}

static struct decomp *decomp_get(struct sqk_blocks *b)
{
	struct decomp *d;

	pthread_mutex_lock(&b->lock);
	while (b->nfree == 0)
		pthread_cond_wait(&b->free_cond, &b->lock);
	d = b->free[--b->nfree];
	pthread_mutex_unlock(&b->lock);
	return d;
}

static void decomp_put(struct sqk_blocks *b, struct decomp *d)
{
	pthread_mutex_lock(&b->lock);
	b->free[b->nfree++] = d;
	pthread_cond_signal(&b->free_cond);
	pthread_mutex_unlock(&b->lock);
}

/* The compressed-block cache's fill: the raw bytes, as the device holds them. */
static int fill_raw(void *arg, struct sqk_cache_entry *e)
{
	struct sqk_blocks *b = arg;

	e->length = e->info & SQK_BLOCK_SIZE_MASK;
	return sqk_blocks_pread(b, e->block, e->data, e->length);
}

int sqk_block_read(struct sqk_blocks *b, uint64_t pos, uint32_t size_word, uint8_t *dst, size_t cap,
		   size_t *outlen)
{
	uint32_t size = size_word & SQK_BLOCK_SIZE_MASK;
	struct sqk_cache_entry *raw = NULL;
	struct decomp *d;
	int err = 0;

	if (size == 0 || size_word & ~(SQK_BLOCK_SIZE_MASK | SQK_BLOCK_UNCOMPRESSED))
		return SQK_ERR_CORRUPT;
	if (size_word & SQK_BLOCK_UNCOMPRESSED) {
		if (size > cap)
			return SQK_ERR_CORRUPT;
		err = sqk_blocks_pread(b, pos, dst, size);
		*outlen = size;
		return err;
	}
	if (size > b->scratch_size)
		return SQK_ERR_CORRUPT;
	/*
	 * With a compressed-block cache, a block read again after its
	 * decompressed copy was evicted costs a decompression but no read of
	 * the device.
	 */
	if (b->comp_cache) {
		err = sqk_cache_get(b->comp_cache, pos, size, fill_raw, b, &raw);
		if (err)
			return err;
	}
	d = decomp_get(b);
	if (!raw)
		err = sqk_blocks_pread(b, pos, d->scratch, size);
	if (!err)
		err = d->comp->decompress(d->comp, raw ? raw->data : d->scratch, size, dst, cap,
					  outlen);
	decomp_put(b, d);
	sqk_cache_put(raw);
	if (!err)
		__atomic_add_fetch(&b->decompressions, 1, __ATOMIC_RELAXED);
	return err;
}

int sqk_block_decode(struct sqk_blocks *b, const uint8_t *src, uint32_t size_word, uint8_t *dst,
		     size_t cap, size_t *outlen)
{
	uint32_t size = size_word & SQK_BLOCK_SIZE_MASK;
	struct decomp *d;
	int err;

	if (size == 0 || size_word & ~(SQK_BLOCK_SIZE_MASK | SQK_BLOCK_UNCOMPRESSED))
		return SQK_ERR_CORRUPT;
	if (size_word & SQK_BLOCK_UNCOMPRESSED) {
		if (size > cap)
			return SQK_ERR_CORRUPT;
		memcpy(dst, src, size);
		*outlen = size;
		return 0;
	}
	d = decomp_get(b);
	err = d->comp->decompress(d->comp, src, size, dst, cap, outlen);
	decomp_put(b, d);
	if (!err)
		__atomic_add_fetch(&b->decompressions, 1, __ATOMIC_RELAXED);
	return err;
}

/* Read the header at e->block, then the block; e->next follows it. */
static int fill_meta(void *arg, struct sqk_cache_entry *e)
{
	struct sqk_blocks *b = arg;
	struct sqk_fmt_meta_hdr h;
	uint8_t raw[SQK_FMT_META_HDR_SIZE];
	int err;

	err = sqk_fmt_meta_pos_check(e->block, b->bytes_used, NULL);
	if (!err)
		err = sqk_blocks_pread(b, e->block, raw, sizeof(raw));
	if (err)
		return err;
	sqk_fmt_meta_hdr_decode(&h, raw);
	err = sqk_fmt_meta_hdr_check(&h, e->block, b->bytes_used, NULL);
	if (!err)
		err = sqk_block_read(b, e->block + SQK_FMT_META_HDR_SIZE, sqk_fmt_meta_word(&h),
				     e->data, SQK_META_SIZE, &e->length);
	if (!err)
		err = sqk_fmt_meta_len_check(e->length, NULL);
	if (err)
		return err;
	e->next = sqk_fmt_meta_next(&h, e->block);
	return 0;
}

int sqk_block_meta(struct sqk_blocks *b, struct sqk_cache *meta, uint64_t pos,
		   struct sqk_cache_entry **e)
{
	return sqk_cache_get(meta, pos, 0, fill_meta, b, e);
}

struct data_fill {
	struct sqk_blocks *b;
	uint32_t expect; /* the block's length in the file; 0 = no check (fragments) */
};

static int fill_data(void *arg, struct sqk_cache_entry *e)
{
	struct data_fill *f = arg;
	int err;

	err = sqk_block_read(f->b, e->block, e->info, e->data, f->b->block_size, &e->length);
	if (err)
		return err;
	if (f->expect && e->length != f->expect)
		return SQK_ERR_CORRUPT;
	return 0;
}

int sqk_block_data(struct sqk_blocks *b, struct sqk_cache *cache, uint64_t pos, uint32_t word,
		   uint32_t expect, struct sqk_cache_entry **e)
{
	struct data_fill f = {b, expect};

	return sqk_cache_get(cache, pos, word, fill_data, &f, e);
}

int sqk_block_load_meta(struct sqk_file *file, uint64_t end, struct sqk_compressor *c, uint64_t pos,
			uint8_t *dst, uint32_t *len, uint64_t *next, struct sqk_fmt_report *r)
{
	uint8_t hdr[SQK_FMT_META_HDR_SIZE], raw[SQK_META_SIZE];
	struct sqk_fmt_meta_hdr h;
	size_t out = 0;
	int err;

	err = sqk_fmt_meta_pos_check(pos, end, r);
	if (!err)
		err = file->read_at(file, pos, hdr, sizeof(hdr));
	if (err)
		return err;
	sqk_fmt_meta_hdr_decode(&h, hdr);
	err = sqk_fmt_meta_hdr_check(&h, pos, end, r);
	if (err)
		return err;
	if (h.raw) {
		err = file->read_at(file, pos + SQK_FMT_META_HDR_SIZE, dst, h.size);
		out = h.size;
	} else {
		err = file->read_at(file, pos + SQK_FMT_META_HDR_SIZE, raw, h.size);
		if (!err)
			err = c->decompress(c, raw, h.size, dst, SQK_META_SIZE, &out);
	}
	if (!err)
		err = sqk_fmt_meta_len_check(out, r);
	if (err)
		return err;
	*len = (uint32_t)out;
	*next = sqk_fmt_meta_next(&h, pos);
	return 0;
}
