// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The superblock and the layout of the tables, checked before the image is
 * opened. sqk_image_open() refuses a bad superblock with one error code;
 * fsck reads the same bytes itself to say exactly what is wrong. When only
 * an optional table (fragments, export, xattrs) is unusable, the image is
 * opened through a file that shows the reader a superblock without that
 * table, so everything else still gets checked.
 */
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "error.h"
#include "file.h"
#include "fsck_int.h"
#include "image.h"
#include "le.h"

/* A view of the image file with the superblock replaced. */
struct overlay {
	struct sqk_file base;
	struct sqk_file *inner;
	uint8_t sb[SQFS_SUPER_SIZE];
};

static int ov_read(struct sqk_file *fp, uint64_t off, void *buf, size_t len)
{
	struct overlay *o = (struct overlay *)fp;
	int err = o->inner->read_at(o->inner, off, buf, len);

	if (!err && off < SQFS_SUPER_SIZE) {
		size_t n = SQFS_SUPER_SIZE - (size_t)off;

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

int fsck_read_raw(struct sqk_fsck *f, uint64_t pos, void *buf, size_t len)
{
	int err = f->file->read_at(f->file, pos, buf, len);

	if (err == SQK_ERR_IO || err == SQK_ERR_NOMEM)
		return err;
	return err ? SQK_ERR_CORRUPT : 0;
}

/* The options block right after the superblock: readable, and valid for its codec. */
static int check_comp_options(struct sqk_fsck *f)
{
	uint8_t hdr[2], raw[SQFS_META_SIZE], out[SQFS_META_SIZE];
	struct sqk_comp_config cfg;
	uint32_t size;
	size_t len = 0;
	int err;

	f->data_start = SQFS_SUPER_SIZE;
	if (sqk_comp_config_init(&cfg, f->sb.compressor, f->sb.block_size))
		return 1;
	/* The checker's own decompressor, for metadata read before and after open. */
	f->comp = sqk_comp_create(&cfg);
	if (!f->comp) {
		fsck_fatal(f, SQK_ERR_NOMEM);
		return SQK_ERR_NOMEM;
	}
	if (!(f->sb.flags & SQFS_FLAG_COMPRESSOR_OPTIONS))
		return 0;
	if (f->sb.bytes_used < SQFS_SUPER_SIZE + 2) {
		fsck_err(f, FSCK_NONE, T_COMP, C_COMP, "the options block is missing");
		return 1;
	}
	err = fsck_read_raw(f, SQFS_SUPER_SIZE, hdr, 2);
	if (err)
		return fsck_fatal(f, err) ? err : 1;
	size = get_le16(hdr) & SQFS_META_SIZE_MASK;
	if (size == 0 || size > SQFS_META_SIZE || SQFS_SUPER_SIZE + 2 + size > f->sb.bytes_used) {
		fsck_err(f, FSCK_NONE, T_COMP, C_COMP,
			 "the options block has a bad size (%u bytes)", size);
		return 1;
	}
	err = fsck_read_raw(f, SQFS_SUPER_SIZE + 2, raw, size);
	if (err)
		return fsck_fatal(f, err) ? err : 1;
	f->data_start = SQFS_SUPER_SIZE + 2 + size;
	if (get_le16(hdr) & SQFS_META_UNCOMPRESSED) {
		memcpy(out, raw, size);
		len = size;
	} else {
		err = f->comp->decompress(f->comp, raw, size, out, sizeof(out), &len);
		if (err) {
			fsck_err(f, FSCK_NONE, T_COMP, C_COMP,
				 "the options block does not decompress: %s", fsck_why(err));
			return 1;
		}
	}
	err = sqk_codec_by_id(cfg.id)->read_options(&cfg, out, len);
	if (err) {
		fsck_err(f, FSCK_NONE, T_COMP, C_COMP, "the %s options are not valid (%s)",
			 sqk_codec_by_id(cfg.id)->name, sqk_strerror(err));
		return 1;
	}
	/* Decompress with what the options say (xz filters, lzo algorithm, ...). */
	f->comp->destroy(f->comp);
	f->comp = sqk_comp_create(&cfg);
	if (!f->comp) {
		fsck_fatal(f, SQK_ERR_NOMEM);
		return SQK_ERR_NOMEM;
	}
	return 0;
}

/* What the superblock says about itself: 0 to go on, 1 to stop. */
static int check_fields(struct sqk_fsck *f)
{
	const struct sqfs_super *sb = &f->sb;
	int stop = 0;

	if (sb->magic != SQFS_MAGIC) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "no squashfs magic (found 0x%08x)",
			 sb->magic);
		return 1;
	}
	if (sb->version_major != SQFS_VERSION_MAJOR || sb->version_minor != SQFS_VERSION_MINOR) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "version %u.%u, not 4.0",
			 sb->version_major, sb->version_minor);
		return 1;
	}
	if (sb->block_size < SQFS_BLOCK_MIN || sb->block_size > SQFS_BLOCK_MAX ||
	    (sb->block_size & (sb->block_size - 1))) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "block size %u is not a power of two from 4K to 1M", sb->block_size);
		return 1;
	}
	if (sb->block_log > 20 || (1u << sb->block_log) != sb->block_size)
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "block_log %u does not match the block size %u", sb->block_log,
			 sb->block_size);
	if (sb->flags & ~SQFS_FLAG_ALL)
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "unknown flags 0x%04x",
			 sb->flags & ~SQFS_FLAG_ALL);
	if (!sqk_codec_by_id(sb->compressor)) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_COMP, "unknown compressor id %u", sb->compressor);
		stop = 1;
	}
	if (sb->bytes_used < SQFS_SUPER_SIZE) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "bytes_used %llu is smaller than the superblock",
			 (unsigned long long)sb->bytes_used);
		return 1;
	}
	if (sb->bytes_used > f->file_size) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "the image is truncated: bytes_used is %llu but the file has %llu bytes",
			 (unsigned long long)sb->bytes_used, (unsigned long long)f->file_size);
		return 1;
	}
	if (sb->inode_count == 0) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "inode_count is 0");
		stop = 1;
	}
	if (sb->id_count == 0) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "id_count is 0");
		stop = 1;
	}
	return stop;
}

/* The inode and directory tables and the root reference. */
static int check_main_tables(struct sqk_fsck *f)
{
	const struct sqfs_super *sb = &f->sb;

	if (sb->inode_table < f->data_start || sb->inode_table >= sb->bytes_used) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "the inode table at %llu is outside %llu..%llu",
			 (unsigned long long)sb->inode_table, (unsigned long long)f->data_start,
			 (unsigned long long)sb->bytes_used);
		return 1;
	}
	if (sb->dir_table <= sb->inode_table || sb->dir_table >= sb->bytes_used) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "the directory table at %llu is not between the inode table (%llu) and "
			 "bytes_used (%llu)",
			 (unsigned long long)sb->dir_table, (unsigned long long)sb->inode_table,
			 (unsigned long long)sb->bytes_used);
		return 1;
	}
	if (SQFS_REF_BLOCK(sb->root_inode) >= sb->dir_table - sb->inode_table ||
	    SQFS_REF_OFFSET(sb->root_inode) >= SQFS_META_SIZE) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "the root inode reference (block %llu, offset %u) is outside the inode "
			 "table",
			 (unsigned long long)SQFS_REF_BLOCK(sb->root_inode),
			 SQFS_REF_OFFSET(sb->root_inode));
		return 1;
	}
	return 0;
}

/*
 * Read a table's lookup list and check that its blocks lie after prev_end
 * and before the list, in increasing order. Returns 0 (t->ok says whether
 * the table is usable), or an operational error.
 */
static int read_list(struct sqk_fsck *f, struct fsck_table *t, uint64_t *prev_end)
{
	uint64_t used = f->sb.bytes_used, bytes = t->entries * t->entry_size, nblocks, i;
	uint8_t *raw;
	int err;

	t->ok = 0;
	nblocks = (bytes + SQFS_META_SIZE - 1) / SQFS_META_SIZE;
	if (t->list < *prev_end || t->list > used || nblocks * 8 > used - t->list) {
		fsck_err(f, FSCK_NONE, t->name, C_SUPER,
			 "the lookup list at %llu (%llu entries) is outside %llu..%llu",
			 (unsigned long long)t->list, (unsigned long long)nblocks,
			 (unsigned long long)*prev_end, (unsigned long long)used);
		return 0;
	}
	t->first = t->list;
	t->end = t->list + nblocks * 8;
	if (nblocks) {
		raw = malloc(nblocks * 8);
		t->pos = malloc(nblocks * sizeof(*t->pos));
		if (!raw || !t->pos) {
			free(raw);
			return SQK_ERR_NOMEM;
		}
		err = fsck_read_raw(f, t->list, raw, nblocks * 8);
		if (err) {
			free(raw);
			return fsck_fatal(f, err) ? err : 0;
		}
		for (i = 0; i < nblocks; i++)
			t->pos[i] = get_le64(raw + 8 * i);
		free(raw);
		for (i = 0; i < nblocks; i++) {
			uint64_t lo = i ? t->pos[i - 1] + 3 : *prev_end;

			if (t->pos[i] < lo || t->pos[i] + 3 > t->list) {
				fsck_err(f, FSCK_NONE, t->name, C_META,
					 "lookup entry %llu points at %llu, outside %llu..%llu",
					 (unsigned long long)i, (unsigned long long)t->pos[i],
					 (unsigned long long)lo, (unsigned long long)t->list);
				return 0;
			}
		}
		t->first = t->pos[0];
	}
	t->nblocks = (uint32_t)nblocks;
	t->ok = 1;
	*prev_end = t->end;
	return 0;
}

/* The xattr table: a header (key/value start, count) and a lookup list after it. */
static int read_xattr_table(struct sqk_fsck *f, uint64_t *prev_end)
{
	uint64_t start = f->sb.xattr_table, used = f->sb.bytes_used;
	uint8_t hdr[16];
	uint64_t after;
	int err;

	if (start < *prev_end || start > used || used - start < 16) {
		fsck_err(f, FSCK_NONE, T_XATTR, C_SUPER,
			 "the xattr table at %llu is outside %llu..%llu", (unsigned long long)start,
			 (unsigned long long)*prev_end, (unsigned long long)used);
		return 0;
	}
	err = fsck_read_raw(f, start, hdr, 16);
	if (err)
		return fsck_fatal(f, err) ? err : 0;
	f->xattr_kv = get_le64(hdr);
	f->xids.entries = get_le32(hdr + 8);
	if (f->xattr_kv < *prev_end || f->xattr_kv > start) {
		fsck_err(f, FSCK_NONE, T_XATTR, C_SUPER,
			 "the key/value area at %llu is outside %llu..%llu",
			 (unsigned long long)f->xattr_kv, (unsigned long long)*prev_end,
			 (unsigned long long)start);
		return 0;
	}
	/* The id blocks follow the key/value area; the list follows the header. */
	after = f->xattr_kv;
	f->xids.list = start + 16;
	err = read_list(f, &f->xids, &after);
	if (err || !f->xids.ok)
		return err;
	/* The list check wanted the blocks before the list, but the header sits between. */
	if (f->xids.nblocks && f->xids.pos[f->xids.nblocks - 1] + 3 > start) {
		fsck_err(f, FSCK_NONE, T_XATTR, C_META,
			 "the last id block at %llu overlaps the header",
			 (unsigned long long)f->xids.pos[f->xids.nblocks - 1]);
		f->xids.ok = 0;
		return 0;
	}
	f->xids.first = f->xattr_kv;
	*prev_end = f->xids.end;
	return 0;
}

static void init_table(struct fsck_table *t, const char *name, uint64_t list, uint64_t entries,
		       uint32_t entry_size)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->list = list;
	t->entries = entries;
	t->entry_size = entry_size;
}

/* The lookup tables in the order the format stores them. 0, 1 to stop, or an error. */
static int check_layout(struct sqk_fsck *f)
{
	const struct sqfs_super *sb = &f->sb;
	uint64_t prev = sb->dir_table;
	int err;

	init_table(&f->frag, T_FRAG, sb->fragment_table, sb->fragment_count, SQFS_FRAG_ENTRY_SIZE);
	init_table(&f->exp, T_EXPORT, sb->export_table, sb->inode_count, 8);
	init_table(&f->ids, T_ID, sb->id_table, sb->id_count, 4);
	init_table(&f->xids, T_XATTR, SQFS_INVALID_TABLE, 0, SQFS_XATTR_ID_SIZE);

	if (sb->fragment_table == SQFS_INVALID_TABLE) {
		if (sb->fragment_count)
			fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
				 "fragment_count is %u but there is no fragment table",
				 sb->fragment_count);
	} else if ((err = read_list(f, &f->frag, &prev)) != 0) {
		return err;
	}
	if (sb->export_table == SQFS_INVALID_TABLE) {
		if (sb->flags & SQFS_FLAG_EXPORTABLE)
			fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
				 "the exportable flag is set but there is no export table");
	} else if ((err = read_list(f, &f->exp, &prev)) != 0) {
		return err;
	}
	err = read_list(f, &f->ids, &prev);
	if (err)
		return err;
	if (f->ids.ok)
		fsck_table_walk(f, &f->ids, NULL, NULL);
	if (fsck_stopped(f))
		return f->fatal_err;
	if (!f->ids.ok)
		return 1; /* owners are read at open: nothing works without them */
	if (sb->xattr_table != SQFS_INVALID_TABLE) {
		err = read_xattr_table(f, &prev);
		if (err)
			return err;
	}
	if (prev < sb->bytes_used)
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "%llu bytes between the last table's end (%llu) and bytes_used (%llu)",
			 (unsigned long long)(sb->bytes_used - prev), (unsigned long long)prev,
			 (unsigned long long)sb->bytes_used);
	/* The directory table runs up to the first table after it. */
	f->dir_end = f->ids.first;
	if (f->exp.ok && f->exp.first < f->dir_end)
		f->dir_end = f->exp.first;
	if (f->frag.ok && f->frag.first < f->dir_end)
		f->dir_end = f->frag.first;
	return 0;
}

static int open_image(struct sqk_fsck *f)
{
	struct sqk_image_opts io;
	struct sqfs_super view = f->sb;
	struct overlay *o = calloc(1, sizeof(*o));
	unsigned t = f->o.threads;
	int err;

	if (!o)
		return SQK_ERR_NOMEM;
	/* Show the reader a superblock it accepts for what is still checkable. */
	view.flags &= SQFS_FLAG_ALL;
	view.block_log = 0;
	while ((1u << view.block_log) < view.block_size)
		view.block_log++;
	if (!f->frag.ok) {
		view.fragment_table = SQFS_INVALID_TABLE;
		view.fragment_count = 0;
	}
	if (!f->exp.ok) {
		view.export_table = SQFS_INVALID_TABLE;
		view.flags &= (uint16_t)~SQFS_FLAG_EXPORTABLE;
	}
	if (!f->xids.ok)
		view.xattr_table = SQFS_INVALID_TABLE;
	sqfs_super_encode(&view, o->sb);
	o->inner = f->file;
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
	err = sqk_image_open(&o->base, &io, &f->img);
	if (err == SQK_ERR_IO || err == SQK_ERR_NOMEM)
		return err;
	if (err) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "the image cannot be opened (%s)",
			 sqk_strerror(err));
		return 1;
	}
	return 0;
}

int fsck_super(struct sqk_fsck *f)
{
	uint8_t raw[SQFS_SUPER_SIZE];
	int err;

	f->file_size = f->file->size(f->file);
	if (f->file_size < SQFS_SUPER_SIZE) {
		fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER,
			 "the file has %llu bytes, fewer than a superblock's %u",
			 (unsigned long long)f->file_size, SQFS_SUPER_SIZE);
		return 1;
	}
	err = fsck_read_raw(f, 0, raw, sizeof(raw));
	if (err)
		return fsck_fatal(f, err) ? err : 1;
	sqfs_super_decode(&f->sb, raw);
	if (check_fields(f))
		return 1;
	err = check_comp_options(f);
	if (!err)
		err = check_main_tables(f);
	if (!err)
		err = check_layout(f);
	if (!err)
		err = open_image(f);
	return err;
}
