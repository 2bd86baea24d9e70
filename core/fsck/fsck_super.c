// SPDX-License-Identifier: BSD-2-Clause
/*
 * The superblock and the layout of the tables, checked before the image is
 * opened, by the same rules (core/format) with which sqk_image_open()
 * refuses an image; fsck records every broken one to say exactly what is
 * wrong. When only an optional table (fragments, export, xattrs) is
 * unusable, the image is opened through a file that shows the reader a
 * superblock without that table, so everything else still gets checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressors/compressor.h"
#include "format/fmt_super.h"
#include "fsck_int.h"
#include "read/block.h"
#include "read/image.h"
#include "read/layout.h"
#include "util/error.h"
#include "util/file.h"

/* A view of the image file with the superblock replaced. */
struct overlay {
	struct sqk_file base;
	struct sqk_file *inner;
	uint8_t sb[SQK_SUPER_SIZE];
};

static int ov_read(struct sqk_file *fp, uint64_t off, void *buf, size_t len)
{
	struct overlay *o = (struct overlay *)fp;
	int err = o->inner->read_at(o->inner, off, buf, len);

	if (!err && off < SQK_SUPER_SIZE) {
		size_t n = SQK_SUPER_SIZE - (size_t)off;

		memcpy(buf, o->sb + off, n < len ? n : len);
	}
	return err;
}

static int ov_write(struct sqk_file *fp, uint64_t off, const void *buf, size_t len)
{
	return SQK_ERR_ARG;
}

static uint64_t ov_size(struct sqk_file *fp)
{
	struct overlay *o = (struct overlay *)fp;

	return o->inner->size(o->inner);
}

static int ov_sync(struct sqk_file *fp)
{
	return 0;
}

static void ov_destroy(struct sqk_file *fp)
{
	free(fp); /* the real file belongs to the checker */
}

/*
 * Where the superblock's and the layout's rules put a problem: the table a
 * field places, and the check. A rule not listed here concerns the
 * superblock itself, and nothing can be checked after it. soft: fsck goes
 * on after it (the reader is shown a superblock without the broken part).
 */
static const struct fsck_field_check super_fields[] = {
	{"block_log", C_SUPER, T_SUPER, 1},
	{"flags", C_SUPER, T_SUPER, 1},
	{"fragment_count", C_SUPER, T_SUPER, 1},
	{"compressor", C_COMP, T_SUPER, 0},
	{"options", C_COMP, T_COMP, 0},
	{"fragment_table", C_SUPER, T_FRAG, 1},
	{"fragment_lookup", C_META, T_FRAG, 1},
	{"export_table", C_SUPER, T_EXPORT, 1},
	{"export_lookup", C_META, T_EXPORT, 1},
	{"id_table", C_SUPER, T_ID, 1},
	{"id_lookup", C_META, T_ID, 1},
	{"xattr_table", C_SUPER, T_XATTR, 1},
	{"kv_start", C_SUPER, T_XATTR, 1},
	{"xattr_lookup", C_META, T_XATTR, 1},
	{NULL, C_SUPER, NULL, 0},
};

/* Read from the image file: 0, SQK_ERR_CORRUPT for a short read, or an operational error. */
static int read_raw(struct sqk_fsck *f, uint64_t pos, void *buf, size_t len)
{
	int err = f->file->read_at(f->file, pos, buf, len);

	if (err == SQK_ERR_IO || err == SQK_ERR_NOMEM)
		return err;
	return err ? SQK_ERR_CORRUPT : 0;
}

/* The options block's contents: they decompress, and are valid for the codec. */
static int check_comp_options(struct sqk_fsck *f, const struct sqk_layout *l)
{
	uint8_t out[SQK_META_SIZE];
	struct sqk_comp_config cfg;
	struct fsck_fmt x;
	uint32_t len = 0;
	uint64_t next;
	int err, refused;

	if (sqk_comp_config_init(&cfg, f->sb.compressor, f->sb.block_size))
		return 1;
	/* The checker's own decompressor, for metadata read before and after open. */
	f->comp = sqk_comp_create(&cfg);
	if (!f->comp) {
		sqk_fsck_fatal(f, SQK_ERR_NOMEM);
		return SQK_ERR_NOMEM;
	}
	if (!l->options_size)
		return 0;
	sqk_fsck_fmt_init(&x, f, FSCK_NONE, T_COMP, C_COMP, NULL);
	sqk_fsck_fmt_prefix(&x, "the options block: ");
	err = sqk_block_load_meta(f->file, f->sb.bytes_used, f->comp, SQK_SUPER_SIZE, out, &len,
				  &next, &x.rep, &refused);
	if (sqk_fsck_fatal(f, err))
		return err;
	if (!err && refused)
		sqk_fsck_err(f, FSCK_NONE, T_COMP, C_KERNEL, "the options block: " FSCK_REFUSED);
	if (err) {
		if (!x.rep.count)
			sqk_fsck_err(f, FSCK_NONE, T_COMP, C_COMP,
				     "the options block does not decompress: %s",
				     sqk_fsck_why(err));
		return 1;
	}
	err = sqk_codec_by_id(cfg.id)->read_options(&cfg, out, len);
	if (err) {
		sqk_fsck_err(f, FSCK_NONE, T_COMP, C_COMP, "the %s options are not valid (%s)",
			     sqk_codec_by_id(cfg.id)->name, sqk_strerror(err));
		return 1;
	}
	/* Decompress with what the options say (xz filters, lzo algorithm, ...). */
	f->comp->destroy(f->comp);
	f->comp = sqk_comp_create(&cfg);
	if (!f->comp) {
		sqk_fsck_fatal(f, SQK_ERR_NOMEM);
		return SQK_ERR_NOMEM;
	}
	return 0;
}

/* A lookup table as the layout found it; its block list becomes fsck's. */
static void take_table(struct fsck_table *ft, const char *name, struct sqk_table *t)
{
	memset(ft, 0, sizeof(*ft));
	ft->name = name;
	ft->list = t->present ? t->list : SQK_INVALID_TABLE;
	ft->entries = t->entries;
	ft->entry_size = t->entry_size;
	ft->ok = t->ok;
	if (!t->ok)
		return;
	ft->nblocks = t->nblocks;
	ft->pos = t->pos;
	t->pos = NULL;
	ft->first = t->start;
	ft->end = t->end;
}

/*
 * The options block's frame, the inode and directory tables, and the lookup
 * tables in the order the format stores them. 0, 1 to stop, or an error.
 */
static int check_layout(struct sqk_fsck *f)
{
	struct sqk_layout l;
	struct fsck_fmt x;
	int err;

	sqk_fsck_fmt_init(&x, f, FSCK_NONE, T_SUPER, C_SUPER, super_fields);
	err = sqk_layout_read(&l, f->file, &f->sb, &x.rep);
	if (sqk_fsck_fatal(f, err)) {
		sqk_layout_free(&l);
		return err;
	}
	f->data_start = l.data_start;
	if (!l.placed) {
		sqk_layout_free(&l);
		return 1;
	}
	take_table(&f->frag, T_FRAG, &l.t[SQK_TABLE_FRAG]);
	take_table(&f->exp, T_EXPORT, &l.t[SQK_TABLE_EXPORT]);
	take_table(&f->ids, T_ID, &l.t[SQK_TABLE_ID]);
	take_table(&f->xids, T_XATTR, &l.t[SQK_TABLE_XATTR]);
	f->xattr_kv = l.kv_start;
	f->dir_end = l.t[SQK_TABLE_DIR].blocks_end;
	err = check_comp_options(f, &l);
	sqk_layout_free(&l);
	if (err)
		return err;
	if (f->ids.ok)
		sqk_fsck_table_walk(f, &f->ids, NULL, NULL);
	if (fsck_stopped(f))
		return f->fatal_err;
	if (!f->ids.ok)
		return 1; /* owners are read at open: nothing works without them */
	return 0;
}

static int open_image(struct sqk_fsck *f)
{
	struct sqk_image_opts io;
	struct sqk_super view = f->sb;
	struct overlay *o = calloc(1, sizeof(*o));
	unsigned t = f->o.threads;
	int err;

	if (!o)
		return SQK_ERR_NOMEM;
	/* Show the reader a superblock it accepts for what is still checkable. */
	view.flags &= SQK_FLAG_ALL;
	view.block_log = 0;
	while ((1u << view.block_log) < view.block_size)
		view.block_log++;
	if (!f->frag.ok) {
		view.fragment_table = SQK_INVALID_TABLE;
		view.fragment_count = 0;
	}
	if (!f->exp.ok) {
		view.export_table = SQK_INVALID_TABLE;
		view.flags &= (uint16_t)~SQK_FLAG_EXPORTABLE;
	}
	if (!f->xids.ok)
		view.xattr_table = SQK_INVALID_TABLE;
	/* Nothing is stored after the last usable table (that was reported). */
	view.bytes_used = f->ids.end;
	if (f->xids.ok)
		view.bytes_used = f->xids.end;
	sqk_fmt_super_encode(&view, o->sb);
	o->inner = f->file;
	o->base.origin = f->file->origin;
	o->base.read_at = ov_read;
	o->base.write_at = ov_write;
	o->base.size = ov_size;
	o->base.sync = ov_sync;
	o->base.destroy = ov_destroy;

	if (f->o.image) {
		io = *f->o.image;
	} else {
		sqk_image_opts_default(&io);
		io.meta_entries = 16;
		io.frag_entries = t + 2;
		io.data_entries = t + 2;
	}
	io.decompressors = t + 1;
	io.strict = 1;
	err = sqk_image_open(&o->base, &io, &f->img);
	if (err == SQK_ERR_IO || err == SQK_ERR_NOMEM)
		return err;
	if (err) {
		sqk_fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "the image cannot be opened (%s)",
			     sqk_strerror(err));
		return 1;
	}
	return 0;
}

int sqk_fsck_super(struct sqk_fsck *f)
{
	uint8_t raw[SQK_SUPER_SIZE];
	struct fsck_fmt x;
	int err;

	f->file_size = f->file->size(f->file);
	if (f->file_size < SQK_SUPER_SIZE) {
		sqk_fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			     "the file has %llu bytes, fewer than a superblock's %u",
			     (unsigned long long)f->file_size, SQK_SUPER_SIZE);
		return 1;
	}
	err = read_raw(f, 0, raw, sizeof(raw));
	if (err)
		return sqk_fsck_fatal(f, err) ? err : 1;
	sqk_fmt_super_decode(&f->sb, raw);
	sqk_fsck_fmt_init(&x, f, FSCK_NONE, T_SUPER, C_SUPER, super_fields);
	sqk_fmt_super_check(&f->sb, f->file_size, &x.rep);
	if (x.hard)
		return 1;
	err = check_layout(f);
	if (!err)
		err = open_image(f);
	return err;
}
