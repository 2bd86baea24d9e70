// SPDX-License-Identifier: GPL-2.0-or-later
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "image.h"
#include "le.h"
#include "meta.h"

/* A decompressor instance and the scratch buffer its input is read into. */
struct decomp {
	struct sqk_compressor *comp;
	uint8_t *scratch;
};

struct sqk_image {
	struct sqk_file *file;
	struct sqfs_super sb;
	const struct sqk_codec *codec;
	struct sqk_comp_config comp;
	struct sqk_cache *cache[SQK_CACHE_COUNT];
	/* decompressors: a stack of free instances */
	pthread_mutex_t dlock;
	pthread_cond_t dfree;
	struct decomp *decomp;
	unsigned ndecomp, nfree;
	struct decomp **free;
	size_t scratch_size;
	uint64_t decompressions;
	/* tables read at open */
	uint32_t *ids;
	struct sqk_lookup_table table[SQK_TABLE_COUNT];
	uint64_t xattr_kv, xattr_ids_start;
	uint32_t xattr_count;
	uint64_t data_start; /* after the superblock and the options block */
	uint64_t ends[16];
	unsigned nends;
};

void sqk_image_opts_default(struct sqk_image_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->policy = SQK_POLICY_KEYED;
	o->lookup = SQK_LOOKUP_SCAN;
	o->meta_entries = 8;
	o->frag_entries = 3;
	o->data_entries = 1;
	o->decompressors = 1;
	o->stall_ms = 1000;
}

const struct sqfs_super *sqk_image_super(const struct sqk_image *img)
{
	return &img->sb;
}

const struct sqk_comp_config *sqk_image_comp(const struct sqk_image *img)
{
	return &img->comp;
}

struct sqk_file *sqk_image_file(const struct sqk_image *img)
{
	return img->file;
}

struct sqk_cache *sqk_image_cache(const struct sqk_image *img, int which)
{
	return img->cache[which];
}

const struct sqk_lookup_table *sqk_image_lookup(const struct sqk_image *img, int which)
{
	return &img->table[which];
}

void sqk_image_xattr_info(const struct sqk_image *img, uint64_t *kv_start, uint32_t *count)
{
	*kv_start = img->xattr_kv;
	*count = img->xattr_count;
}

uint64_t sqk_image_decompressions(const struct sqk_image *img)
{
	return __atomic_load_n(&img->decompressions, __ATOMIC_RELAXED);
}

int sqk_image_pread(struct sqk_image *img, uint64_t pos, void *buf, size_t len)
{
	if (pos > img->sb.bytes_used || len > img->sb.bytes_used - pos)
		return SQK_ERR_CORRUPT;
	return img->file->read_at(img->file, pos, buf, len);
}

uint64_t sqk_image_table_end(const struct sqk_image *img, uint64_t start)
{
	uint64_t end = img->sb.bytes_used;
	unsigned i;

	for (i = 0; i < img->nends; i++)
		if (img->ends[i] > start && img->ends[i] < end)
			end = img->ends[i];
	return end;
}

static void add_end(struct sqk_image *img, uint64_t pos)
{
	if (pos != SQFS_INVALID_TABLE && img->nends < sizeof(img->ends) / sizeof(img->ends[0]))
		img->ends[img->nends++] = pos;
}

static struct decomp *decomp_get(struct sqk_image *img)
{
	struct decomp *d;

	pthread_mutex_lock(&img->dlock);
	while (img->nfree == 0)
		pthread_cond_wait(&img->dfree, &img->dlock);
	d = img->free[--img->nfree];
	pthread_mutex_unlock(&img->dlock);
	return d;
}

static void decomp_put(struct sqk_image *img, struct decomp *d)
{
	pthread_mutex_lock(&img->dlock);
	img->free[img->nfree++] = d;
	pthread_cond_signal(&img->dfree);
	pthread_mutex_unlock(&img->dlock);
}

/* The compressed-block cache's fill: the raw bytes, as the device holds them. */
static int fill_raw(void *arg, struct sqk_cache_entry *e)
{
	struct sqk_image *img = arg;

	e->length = e->info & SQFS_BLOCK_SIZE_MASK;
	return sqk_image_pread(img, e->block, e->data, e->length);
}

int sqk_image_read_block(struct sqk_image *img, uint64_t pos, uint32_t size_word, uint8_t *dst,
			 size_t cap, size_t *outlen)
{
	uint32_t size = size_word & SQFS_BLOCK_SIZE_MASK;
	struct sqk_cache_entry *raw = NULL;
	struct decomp *d;
	int err = 0;

	if (size == 0 || size_word & ~(SQFS_BLOCK_SIZE_MASK | SQFS_BLOCK_UNCOMPRESSED))
		return SQK_ERR_CORRUPT;
	if (size_word & SQFS_BLOCK_UNCOMPRESSED) {
		if (size > cap)
			return SQK_ERR_CORRUPT;
		err = sqk_image_pread(img, pos, dst, size);
		*outlen = size;
		return err;
	}
	if (size > img->scratch_size)
		return SQK_ERR_CORRUPT;
	/*
	 * With a compressed-block cache, a block read again after its
	 * decompressed copy was evicted costs a decompression but no read of
	 * the device.
	 */
	if (img->cache[SQK_CACHE_COMP]) {
		err = sqk_cache_get(img->cache[SQK_CACHE_COMP], pos, size, fill_raw, img, &raw);
		if (err)
			return err;
	}
	d = decomp_get(img);
	if (!raw)
		err = sqk_image_pread(img, pos, d->scratch, size);
	if (!err)
		err = d->comp->decompress(d->comp, raw ? raw->data : d->scratch, size, dst, cap,
					  outlen);
	decomp_put(img, d);
	sqk_cache_put(raw);
	if (!err)
		__atomic_add_fetch(&img->decompressions, 1, __ATOMIC_RELAXED);
	return err;
}

/* The options block: a metadata block right after the superblock. */
static int read_comp_options(struct sqk_image *img)
{
	uint8_t hdr[2], raw[SQFS_META_SIZE], out[SQFS_META_SIZE];
	uint32_t size;
	size_t len;
	int err;

	img->codec->defaults(&img->comp, img->sb.block_size);
	img->data_start = SQFS_SUPER_SIZE;
	if (!(img->sb.flags & SQFS_FLAG_COMPRESSOR_OPTIONS))
		return 0;
	err = sqk_image_pread(img, SQFS_SUPER_SIZE, hdr, 2);
	if (err)
		return err;
	size = get_le16(hdr) & SQFS_META_SIZE_MASK;
	if (size == 0 || size > SQFS_META_SIZE)
		return SQK_ERR_CORRUPT;
	err = sqk_image_pread(img, SQFS_SUPER_SIZE + 2, raw, size);
	if (err)
		return err;
	img->data_start = SQFS_SUPER_SIZE + 2 + size;
	if (get_le16(hdr) & SQFS_META_UNCOMPRESSED) {
		memcpy(out, raw, size);
		len = size;
	} else {
		struct sqk_compressor *c = img->codec->create(&img->comp);

		if (!c)
			return SQK_ERR_NOMEM;
		err = c->decompress(c, raw, size, out, sizeof(out), &len);
		c->destroy(c);
		if (err)
			return err;
	}
	return img->codec->read_options(&img->comp, out, len);
}

/* Read a lookup list of nblocks u64 positions at start; each must lie in [lo, start). */
static int read_lookup(struct sqk_image *img, uint64_t start, uint64_t entries,
		       uint32_t entry_size, struct sqk_lookup_table *t)
{
	uint64_t nblocks = (entries * entry_size + SQFS_META_SIZE - 1) / SQFS_META_SIZE;
	uint8_t *raw;
	uint32_t i;
	int err;

	if (nblocks == 0)
		return 0;
	if (start == SQFS_INVALID_TABLE || nblocks * 8 > img->sb.bytes_used - start)
		return SQK_ERR_CORRUPT;
	raw = malloc(nblocks * 8);
	t->pos = malloc(nblocks * sizeof(*t->pos));
	if (!raw || !t->pos) {
		free(raw);
		free(t->pos);
		t->pos = NULL;
		return SQK_ERR_NOMEM;
	}
	err = sqk_image_pread(img, start, raw, nblocks * 8);
	for (i = 0; !err && i < nblocks; i++) {
		t->pos[i] = get_le64(raw + 8 * i);
		if (t->pos[i] < SQFS_SUPER_SIZE || t->pos[i] >= start)
			err = SQK_ERR_CORRUPT;
	}
	free(raw);
	/* The caller's table stays empty: read_ids keeps its table on the stack. */
	if (err) {
		free(t->pos);
		t->pos = NULL;
		return err;
	}
	t->count = (uint32_t)nblocks;
	add_end(img, t->pos[0]);
	return 0;
}

static int read_ids(struct sqk_image *img)
{
	struct sqk_lookup_table t = {NULL, 0};
	uint32_t i;
	int err;

	err = read_lookup(img, img->sb.id_table, img->sb.id_count, 4, &t);
	if (err)
		return err;
	img->ids = malloc(img->sb.id_count * sizeof(*img->ids));
	if (!img->ids) {
		free(t.pos);
		return SQK_ERR_NOMEM;
	}
	for (i = 0; i < img->sb.id_count && !err; i++) {
		uint8_t raw[4];

		err = sqk_meta_table_entry(img, t.pos, t.count, 4, i, raw);
		img->ids[i] = get_le32(raw);
	}
	free(t.pos);
	return err;
}

static int read_xattr_header(struct sqk_image *img)
{
	uint8_t raw[16];
	int err;

	if (img->sb.xattr_table == SQFS_INVALID_TABLE)
		return 0;
	err = sqk_image_pread(img, img->sb.xattr_table, raw, 16);
	if (err)
		return err;
	img->xattr_kv = get_le64(raw);
	img->xattr_count = get_le32(raw + 8);
	if (img->xattr_kv < SQFS_SUPER_SIZE || img->xattr_kv >= img->sb.xattr_table)
		return SQK_ERR_CORRUPT;
	add_end(img, img->xattr_kv);
	return read_lookup(img, img->sb.xattr_table + 16, img->xattr_count, SQFS_XATTR_ID_SIZE,
			   &img->table[SQK_TABLE_XATTR]);
}

static int make_caches(struct sqk_image *img, const struct sqk_image_opts *o)
{
	unsigned n[SQK_CACHE_COUNT] = {o->meta_entries, o->frag_entries, o->data_entries,
				       o->comp_entries};
	size_t bs = img->sb.block_size > SQFS_META_SIZE ? img->sb.block_size : SQFS_META_SIZE;
	size_t size[SQK_CACHE_COUNT] = {SQFS_META_SIZE, img->sb.block_size, img->sb.block_size, bs};
	static const char *names[SQK_CACHE_COUNT] = {"metadata", "fragment", "data", "compressed"};
	int i;

	for (i = 0; i < SQK_CACHE_COUNT; i++) {
		if (i == SQK_CACHE_COMP && n[i] == 0)
			continue;
		img->cache[i] = sqk_cache_create(names[i], n[i] ? n[i] : 1, size[i], o->policy,
						 o->lookup);
		if (!img->cache[i])
			return SQK_ERR_NOMEM;
		sqk_cache_set_stall_timeout(img->cache[i], o->stall_ms);
	}
	return 0;
}

static int make_decompressors(struct sqk_image *img, unsigned n)
{
	unsigned i;

	if (n == 0)
		n = 1;
	img->scratch_size = img->sb.block_size > SQFS_META_SIZE ? img->sb.block_size : SQFS_META_SIZE;
	img->decomp = calloc(n, sizeof(*img->decomp));
	img->free = calloc(n, sizeof(*img->free));
	if (!img->decomp || !img->free)
		return SQK_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		img->decomp[i].comp = img->codec->create(&img->comp);
		img->decomp[i].scratch = malloc(img->scratch_size);
		img->ndecomp++;
		if (!img->decomp[i].comp || !img->decomp[i].scratch)
			return SQK_ERR_NOMEM;
		img->free[img->nfree++] = &img->decomp[i];
	}
	return 0;
}

int sqk_image_open(struct sqk_file *file, const struct sqk_image_opts *opts,
		   struct sqk_image **out)
{
	struct sqk_image_opts defaults;
	uint8_t raw[SQFS_SUPER_SIZE];
	struct sqk_image *img;
	int err;

	*out = NULL;
	if (!opts) {
		sqk_image_opts_default(&defaults);
		opts = &defaults;
	}
	img = calloc(1, sizeof(*img));
	if (!img) {
		sqk_file_destroy(file);
		return SQK_ERR_NOMEM;
	}
	img->file = file;
	pthread_mutex_init(&img->dlock, NULL);
	pthread_cond_init(&img->dfree, NULL);

	err = file->read_at(file, 0, raw, sizeof(raw));
	if (err == SQK_ERR_TRUNCATED) {
		/* A short file is truncated only if it starts like an image. */
		err = SQK_ERR_MAGIC;
		if (file->size(file) >= 4 && file->read_at(file, 0, raw, 4) == 0 &&
		    get_le32(raw) == SQFS_MAGIC)
			err = SQK_ERR_TRUNCATED;
	}
	if (err)
		goto fail;
	sqfs_super_decode(&img->sb, raw);
	err = sqfs_super_check(&img->sb, file->size(file));
	if (err)
		goto fail;
	img->codec = sqk_codec_by_id(img->sb.compressor);
	if (!img->codec) {
		err = SQK_ERR_UNSUPPORTED;
		goto fail;
	}
	add_end(img, img->sb.inode_table);
	add_end(img, img->sb.dir_table);
	add_end(img, img->sb.fragment_table);
	add_end(img, img->sb.export_table);
	add_end(img, img->sb.id_table);
	add_end(img, img->sb.xattr_table);

	err = read_comp_options(img);
	if (!err)
		err = make_decompressors(img, opts->decompressors);
	if (!err)
		err = make_caches(img, opts);
	if (!err)
		err = read_lookup(img, img->sb.fragment_table, img->sb.fragment_count,
				  SQFS_FRAG_ENTRY_SIZE, &img->table[SQK_TABLE_FRAG]);
	if (!err && (img->sb.flags & SQFS_FLAG_EXPORTABLE) &&
	    img->sb.export_table != SQFS_INVALID_TABLE)
		err = read_lookup(img, img->sb.export_table, img->sb.inode_count, 8,
				  &img->table[SQK_TABLE_EXPORT]);
	if (!err)
		err = read_xattr_header(img);
	if (!err)
		err = read_ids(img);
	if (err)
		goto fail;
	*out = img;
	return 0;
fail:
	sqk_image_close(img);
	return err;
}

void sqk_image_close(struct sqk_image *img)
{
	unsigned i;

	if (!img)
		return;
	for (i = 0; i < SQK_CACHE_COUNT; i++)
		sqk_cache_destroy(img->cache[i]);
	for (i = 0; i < img->ndecomp; i++) {
		if (img->decomp[i].comp)
			img->decomp[i].comp->destroy(img->decomp[i].comp);
		free(img->decomp[i].scratch);
	}
	for (i = 0; i < SQK_TABLE_COUNT; i++)
		free(img->table[i].pos);
	free(img->decomp);
	free(img->free);
	free(img->ids);
	pthread_mutex_destroy(&img->dlock);
	pthread_cond_destroy(&img->dfree);
	sqk_file_destroy(img->file);
	free(img);
}

int sqk_image_id(const struct sqk_image *img, uint32_t index, uint32_t *id)
{
	if (index >= img->sb.id_count)
		return SQK_ERR_CORRUPT;
	*id = img->ids[index];
	return 0;
}

void sqk_image_data_area(const struct sqk_image *img, uint64_t *start, uint64_t *end)
{
	*start = img->data_start;
	*end = img->sb.inode_table;
}
