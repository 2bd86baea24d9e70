// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_meta.h"
#include "format/fmt_super.h"
#include "format/fmt_table.h"
#include "image.h"
#include "util/error.h"
#include "util/store.h"

struct sqk_image {
	struct sqk_file *file;
	struct sqk_super sb;
	const struct sqk_codec *codec;
	struct sqk_comp_config comp;
	struct sqk_cache *cache[SQK_CACHE_COUNT];
	struct sqk_blocks *blocks;
	/* read at open */
	struct sqk_layout layout;
	uint32_t *ids;
	struct sqk_spill budget;
};

void sqk_image_opts_default(struct sqk_image_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->policy = SQK_WAIT_KEYED;
	o->lookup = SQK_LOOKUP_SCAN;
	o->meta_entries = 8;
	o->frag_entries = 3;
	o->data_entries = 1;
	o->decompressors = 1;
	o->stall_ms = 1000;
}

struct sqk_spill *sqk_image_budget(struct sqk_image *img)
{
	return &img->budget;
}

const struct sqk_super *sqk_image_super(const struct sqk_image *img)
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

struct sqk_blocks *sqk_image_blocks(const struct sqk_image *img)
{
	return img->blocks;
}

const struct sqk_layout *sqk_image_layout(const struct sqk_image *img)
{
	return &img->layout;
}

const struct sqk_table *sqk_image_table(const struct sqk_image *img, int which)
{
	return &img->layout.t[which];
}

uint64_t sqk_image_table_end(const struct sqk_image *img, uint64_t start)
{
	return sqk_layout_meta_end(&img->layout, start);
}

void sqk_image_data_area(const struct sqk_image *img, uint64_t *start, uint64_t *end)
{
	*start = img->layout.data_start;
	*end = img->sb.inode_table;
}

uint64_t sqk_image_decompressions(const struct sqk_image *img)
{
	return sqk_blocks_decompressions(img->blocks);
}

int sqk_image_pread(struct sqk_image *img, uint64_t pos, void *buf, size_t len)
{
	return sqk_blocks_pread(img->blocks, pos, buf, len);
}

int sqk_image_id(const struct sqk_image *img, uint32_t index, uint32_t *id)
{
	if (index >= img->sb.id_count)
		return SQK_ERR_CORRUPT;
	*id = img->ids[index];
	return 0;
}

/* The options block: what the codec is set up with, when the image says. */
static int read_comp_options(struct sqk_image *img)
{
	uint8_t out[SQK_META_SIZE];
	struct sqk_compressor *c;
	uint64_t next;
	uint32_t len;
	int err;

	img->codec->defaults(&img->comp, img->sb.block_size);
	if (!img->layout.options_size)
		return 0;
	/* Read with the codec's defaults: the options say how to read the rest. */
	c = img->codec->create(&img->comp);
	if (!c)
		return SQK_ERR_NOMEM;
	err = sqk_block_load_meta(img->file, img->sb.bytes_used, c, SQK_SUPER_SIZE, out, &len,
				  &next, NULL, NULL);
	c->destroy(c);
	if (err)
		return err;
	return img->codec->read_options(&img->comp, out, len);
}

static int read_ids(struct sqk_image *img)
{
	const struct sqk_table *t = &img->layout.t[SQK_TABLE_ID];
	uint8_t raw[SQK_FMT_ID_SIZE];
	uint32_t i;
	int err = 0;

	img->ids = malloc(img->sb.id_count * sizeof(*img->ids));
	if (!img->ids)
		return SQK_ERR_NOMEM;
	for (i = 0; i < img->sb.id_count && !err; i++) {
		err = sqk_table_entry(img->blocks, img->cache[SQK_CACHE_METADATA], t, i, raw);
		img->ids[i] = sqk_fmt_id_decode(raw);
	}
	return err;
}

static int make_caches(struct sqk_image *img, const struct sqk_image_opts *o)
{
	unsigned n[SQK_CACHE_COUNT] = {o->meta_entries, o->frag_entries, o->data_entries,
				       o->comp_entries};
	/* A compressed block is at most a block, or a metadata block with its header. */
	size_t meta = SQK_FMT_META_HDR_SIZE + SQK_META_SIZE;
	size_t bs = img->sb.block_size > meta ? img->sb.block_size : meta;
	size_t size[SQK_CACHE_COUNT] = {SQK_META_SIZE, img->sb.block_size, img->sb.block_size, bs};
	static const char *names[SQK_CACHE_COUNT] = {"metadata", "fragment", "data", "compressed"};
	int i;

	if (o->frag_bytes / img->sb.block_size > n[SQK_CACHE_FRAGMENT])
		n[SQK_CACHE_FRAGMENT] = (unsigned)(o->frag_bytes / img->sb.block_size);

	for (i = 0; i < SQK_CACHE_COUNT; i++) {
		if (i == SQK_CACHE_COMPRESSED && n[i] == 0)
			continue;
		if (o->block_cache_max && i != SQK_CACHE_METADATA && n[i] > 8 &&
		    n[i] > o->block_cache_max / size[i])
			n[i] = o->block_cache_max / size[i] > 8 ? o->block_cache_max / size[i] : 8;
		img->cache[i] =
			sqk_cache_create(names[i], n[i] ? n[i] : 1, size[i], o->policy, o->lookup);
		if (!img->cache[i])
			return SQK_ERR_NOMEM;
		sqk_cache_set_stall_timeout(img->cache[i], o->stall_ms);
	}
	return 0;
}

/* The superblock; a short file is truncated only if it starts like an image. */
static int read_super(struct sqk_image *img, struct sqk_fmt_report *r)
{
	struct sqk_file *file = img->file;
	uint8_t raw[SQK_SUPER_SIZE];
	int err;

	err = file->read_at(file, 0, raw, sizeof(raw));
	if (err == SQK_ERR_TRUNCATED) {
		struct sqk_super sb;

		err = SQK_ERR_MAGIC;
		memset(raw + 4, 0, sizeof(raw) - 4);
		if (file->size(file) >= 4 && file->read_at(file, 0, raw, 4) == 0) {
			sqk_fmt_super_decode(&sb, raw);
			if (sb.magic == SQK_MAGIC)
				err = SQK_ERR_TRUNCATED;
		}
	}
	if (err)
		return err;
	sqk_fmt_super_decode(&img->sb, raw);
	return sqk_fmt_super_check(&img->sb, file->size(file), r);
}

int sqk_image_open(struct sqk_file *file, const struct sqk_image_opts *opts, struct sqk_image **out)
{
	struct sqk_image_opts defaults;
	struct sqk_fmt_report why, *r = NULL;
	struct sqk_image *img;
	int err, e;

	*out = NULL;
	if (!opts) {
		sqk_image_opts_default(&defaults);
		opts = &defaults;
	}
	if (opts->why) {
		*opts->why = (struct sqk_fmt_issue){"", 0, ""};
		why = (struct sqk_fmt_report){sqk_fmt_keep_first, opts->why, 0};
		r = &why;
	}
	img = calloc(1, sizeof(*img));
	if (!img) {
		sqk_file_destroy(file);
		return SQK_ERR_NOMEM;
	}
	img->file = file;
	err = read_super(img, r);
	if (err)
		goto fail;
	err = sqk_spill_init(&img->budget, opts->tmpdir,
			     opts->memory ? opts->memory : sqk_spill_default(SQK_SPILL_READ_MOST),
			     0);
	if (err)
		goto fail;
	img->codec = sqk_codec_by_id(img->sb.compressor);
	if (!img->codec) {
		err = SQK_ERR_UNSUPPORTED;
		goto fail;
	}
	err = sqk_layout_read(&img->layout, file, &img->sb, r);
	if (!err)
		err = read_comp_options(img);
	if (!err)
		err = make_caches(img, opts);
	if (!err)
		err = sqk_blocks_create(file, img->sb.bytes_used, img->sb.block_size, img->codec,
					&img->comp, opts->decompressors, opts->strict,
					img->cache[SQK_CACHE_COMPRESSED], &img->blocks);
	if (!err)
		err = read_ids(img);
	if (err)
		goto fail;
	*out = img;
	return 0;
fail:
	/* The file goes with the image: its errno stays, as image.h says. */
	e = file->errnum;
	sqk_image_destroy(img);
	if (err == SQK_ERR_IO)
		errno = e ? e : EIO;
	return err;
}

void sqk_image_destroy(struct sqk_image *img)
{
	unsigned i;

	if (!img)
		return;
	for (i = 0; i < SQK_CACHE_COUNT; i++)
		sqk_cache_destroy(img->cache[i]);
	sqk_blocks_destroy(img->blocks);
	sqk_layout_free(&img->layout);
	free(img->ids);
	sqk_spill_release(&img->budget);
	sqk_file_destroy(img->file);
	free(img);
}
