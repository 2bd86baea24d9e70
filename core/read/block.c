// SPDX-License-Identifier: BSD-2-Clause
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "format/fmt_block.h"
#include "format/fmt_meta.h"
#include "format/format.h"
#include "util/error.h"
#include "util/u64set.h"

/*
 * A buffer a block's compressed bytes are read into. They are read before
 * a decompressor is taken, so that however few decompressors there are,
 * every thread can wait for the device at once; a buffer is kept for the
 * next read once its block is decompressed.
 */
struct inbuf {
	struct inbuf *next;
	uint8_t data[];
};

struct sqk_blocks {
	struct sqk_file *file;
	uint64_t bytes_used;
	uint32_t block_size;
	struct sqk_cache *comp_cache;
	/* decompressors: a stack of free instances; and the free input buffers */
	pthread_mutex_t lock;
	pthread_cond_t free_cond;
	struct sqk_compressor **decomp;
	unsigned ndecomp, nfree;
	struct sqk_compressor **free;
	struct inbuf *inbufs;
	size_t scratch_size;
	uint64_t decompressions;
	int strict;
	struct sqk_u64set refused; /* under lock */
	size_t nrefused;	   /* atomic: readers look only when there are some */
};

int sqk_blocks_create(struct sqk_file *file, uint64_t bytes_used, uint32_t block_size,
		      const struct sqk_codec *codec, const struct sqk_comp_config *comp,
		      unsigned decompressors, int strict, struct sqk_cache *comp_cache,
		      struct sqk_blocks **out)
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
	b->strict = strict;
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
		b->decomp[i] = codec->create(comp);
		b->ndecomp++;
		if (!b->decomp[i]) {
			sqk_blocks_destroy(b);
			return SQK_ERR_NOMEM;
		}
		b->free[b->nfree++] = b->decomp[i];
	}
	*out = b;
	return 0;
}

void sqk_blocks_destroy(struct sqk_blocks *b)
{
	unsigned i;

	if (!b)
		return;
	for (i = 0; i < b->ndecomp; i++)
		if (b->decomp[i])
			b->decomp[i]->destroy(b->decomp[i]);
	while (b->inbufs) {
		struct inbuf *in = b->inbufs;

		b->inbufs = in->next;
		free(in);
	}
	free(b->decomp);
	free(b->free);
	sqk_u64set_free(&b->refused);
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

int sqk_blocks_refused(struct sqk_blocks *b, uint64_t pos)
{
	int r;

	if (!__atomic_load_n(&b->nrefused, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&b->lock);
	r = sqk_u64set_has(&b->refused, pos);
	pthread_mutex_unlock(&b->lock);
	return r;
}

static int note_refused(struct sqk_blocks *b, uint64_t pos)
{
	int r;

	pthread_mutex_lock(&b->lock);
	r = sqk_u64set_add(&b->refused, pos);
	if (r >= 0)
		__atomic_store_n(&b->nrefused, b->refused.count, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&b->lock);
	return r < 0 ? r : 0;
}

/*
 * Decompress with c, as readers do, or with refused as the kernel does: a
 * block its decoder refuses is then read as readers read it, and *refused
 * says so.
 */
static int decode(struct sqk_compressor *c, const uint8_t *src, size_t srclen, uint8_t *dst,
		  size_t cap, size_t *outlen, int *refused)
{
	int err;

	if (!refused || !c->decompress_kernel)
		return c->decompress(c, src, srclen, dst, cap, outlen);
	err = c->decompress_kernel(c, src, srclen, dst, cap, outlen);
	if (err != SQK_ERR_COMPRESSOR)
		return err;
	err = c->decompress(c, src, srclen, dst, cap, outlen);
	*refused = !err;
	return err;
}

static struct sqk_compressor *decomp_get(struct sqk_blocks *b)
{
	struct sqk_compressor *d;

	pthread_mutex_lock(&b->lock);
	while (b->nfree == 0)
		pthread_cond_wait(&b->free_cond, &b->lock);
	d = b->free[--b->nfree];
	pthread_mutex_unlock(&b->lock);
	return d;
}

static void decomp_put(struct sqk_blocks *b, struct sqk_compressor *d)
{
	pthread_mutex_lock(&b->lock);
	b->free[b->nfree++] = d;
	pthread_cond_signal(&b->free_cond);
	pthread_mutex_unlock(&b->lock);
}

/* A free input buffer, or a new one: as many as reads ever waited at once. */
static struct inbuf *inbuf_get(struct sqk_blocks *b)
{
	struct inbuf *in;

	pthread_mutex_lock(&b->lock);
	in = b->inbufs;
	if (in)
		b->inbufs = in->next;
	pthread_mutex_unlock(&b->lock);
	return in ? in : malloc(sizeof(*in) + b->scratch_size);
}

static void inbuf_put(struct sqk_blocks *b, struct inbuf *in)
{
	pthread_mutex_lock(&b->lock);
	in->next = b->inbufs;
	b->inbufs = in;
	pthread_mutex_unlock(&b->lock);
}

/*
 * The compressed-block cache holds blocks as the device holds them, so
 * that a block read again after its decompressed copy was evicted costs
 * a decompression but no read of the device. A data or fragment block is
 * keyed by its size word; a metadata block, whose size is in its header,
 * by COMP_META, and its entry holds the header and the block.
 */
#define COMP_META 0

static int fill_raw(void *arg, struct sqk_cache_entry *e)
{
	struct sqk_blocks *b = arg;

	e->length = sqk_fmt_block_size(e->info);
	return sqk_blocks_pread(b, e->block, e->data, e->length);
}

/* Read a metadata block's header at pos and check it: 0 and *h, or the error. */
static int read_meta_hdr(struct sqk_blocks *b, uint64_t pos, uint8_t *raw,
			 struct sqk_fmt_meta_hdr *h)
{
	int err = sqk_fmt_meta_pos_check(pos, b->bytes_used, NULL);

	if (!err)
		err = sqk_blocks_pread(b, pos, raw, SQK_FMT_META_HDR_SIZE);
	if (err)
		return err;
	sqk_fmt_meta_hdr_decode(h, raw);
	return sqk_fmt_meta_hdr_check(h, pos, b->bytes_used, NULL);
}

static int fill_raw_meta(void *arg, struct sqk_cache_entry *e)
{
	struct sqk_blocks *b = arg;
	struct sqk_fmt_meta_hdr h;
	int err = read_meta_hdr(b, e->block, e->data, &h);

	if (!err)
		err = sqk_blocks_pread(b, e->block + SQK_FMT_META_HDR_SIZE,
				       e->data + SQK_FMT_META_HDR_SIZE, h.size);
	e->length = SQK_FMT_META_HDR_SIZE + h.size;
	return err;
}

/*
 * Decompress size stored bytes at src, of the block at pos, into dst with a
 * decompressor of the set, as readers do or, in a strict block layer, as the
 * kernel does (a block only the readers' decoder reads is then noted as
 * refused, see decode()).
 */
static int decompress(struct sqk_blocks *b, uint64_t pos, const uint8_t *src, uint32_t size,
		      uint8_t *dst, size_t cap, size_t *outlen)
{
	struct sqk_compressor *d = decomp_get(b);
	int refused = 0;
	int err = decode(d, src, size, dst, cap, outlen, b->strict ? &refused : NULL);

	decomp_put(b, d);
	if (refused)
		err = note_refused(b, pos);
	if (!err)
		__atomic_add_fetch(&b->decompressions, 1, __ATOMIC_RELAXED);
	return err;
}

/* Decompress the stored bytes src of the block at pos (copy them, when stored raw) into dst. */
static int unpack(struct sqk_blocks *b, uint64_t pos, const uint8_t *src, uint32_t size_word,
		  uint8_t *dst, size_t cap, size_t *outlen)
{
	uint32_t size = sqk_fmt_block_size(size_word);

	if (sqk_fmt_block_raw(size_word)) {
		if (size > cap)
			return SQK_ERR_CORRUPT;
		memcpy(dst, src, size);
		*outlen = size;
		return 0;
	}
	return decompress(b, pos, src, size, dst, cap, outlen);
}

int sqk_block_read(struct sqk_blocks *b, uint64_t pos, uint32_t size_word, uint8_t *dst, size_t cap,
		   size_t *outlen)
{
	uint32_t size = sqk_fmt_block_size(size_word);
	struct sqk_cache_entry *raw;
	struct inbuf *in;
	int err;

	if (size == 0 || sqk_fmt_block_check(size_word, b->scratch_size, SQK_FMT_BLOCK_ANY_LEN))
		return SQK_ERR_CORRUPT;
	if (sqk_fmt_block_raw(size_word) && size > cap)
		return SQK_ERR_CORRUPT;
	if (b->comp_cache) {
		err = sqk_cache_get(b->comp_cache, pos, size_word, fill_raw, b, &raw);
		if (err)
			return err;
		err = unpack(b, pos, raw->data, size_word, dst, cap, outlen);
		sqk_cache_put(raw);
		return err;
	}
	if (sqk_fmt_block_raw(size_word)) {
		*outlen = size;
		return sqk_blocks_pread(b, pos, dst, size);
	}
	in = inbuf_get(b);
	if (!in)
		return SQK_ERR_NOMEM;
	err = sqk_blocks_pread(b, pos, in->data, size);
	if (!err)
		err = decompress(b, pos, in->data, size, dst, cap, outlen);
	inbuf_put(b, in);
	return err;
}

/* A metadata block whose header and stored bytes the compressed-block cache holds. */
static int fill_meta_cached(struct sqk_blocks *b, struct sqk_cache_entry *e,
			    struct sqk_fmt_meta_hdr *h)
{
	struct sqk_cache_entry *raw;
	int err = sqk_cache_get(b->comp_cache, e->block, COMP_META, fill_raw_meta, b, &raw);

	if (err)
		return err;
	sqk_fmt_meta_hdr_decode(h, raw->data);
	err = unpack(b, e->block + SQK_FMT_META_HDR_SIZE, raw->data + SQK_FMT_META_HDR_SIZE,
		     sqk_fmt_meta_word(h), e->data, SQK_META_SIZE, &e->length);
	sqk_cache_put(raw);
	return err;
}

int sqk_block_decode(struct sqk_blocks *b, const uint8_t *src, uint32_t size_word, uint8_t *dst,
		     size_t cap, size_t *outlen)
{
	uint32_t size = sqk_fmt_block_size(size_word);
	struct sqk_compressor *d;
	int err;

	if (size == 0 || sqk_fmt_block_check(size_word, b->scratch_size, SQK_FMT_BLOCK_ANY_LEN))
		return SQK_ERR_CORRUPT;
	if (sqk_fmt_block_raw(size_word))
		return unpack(b, 0, src, size_word, dst, cap, outlen);
	d = decomp_get(b);
	err = (d->decompress_kernel ? d->decompress_kernel : d->decompress)(d, src, size, dst, cap,
									    outlen);
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

	if (b->comp_cache) {
		err = fill_meta_cached(b, e, &h);
	} else {
		err = read_meta_hdr(b, e->block, raw, &h);
		if (!err)
			err = sqk_block_read(b, e->block + SQK_FMT_META_HDR_SIZE,
					     sqk_fmt_meta_word(&h), e->data, SQK_META_SIZE,
					     &e->length);
	}
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
			uint8_t *dst, uint32_t *len, uint64_t *next, struct sqk_fmt_report *r,
			int *refused)
{
	uint8_t hdr[SQK_FMT_META_HDR_SIZE], raw[SQK_META_SIZE];
	struct sqk_fmt_meta_hdr h;
	size_t out = 0;
	int err;

	if (refused)
		*refused = 0;
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
			err = decode(c, raw, h.size, dst, SQK_META_SIZE, &out, refused);
	}
	if (!err)
		err = sqk_fmt_meta_len_check(out, r);
	if (err)
		return err;
	*len = (uint32_t)out;
	*next = sqk_fmt_meta_next(&h, pos);
	return 0;
}
