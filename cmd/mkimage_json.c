// SPDX-License-Identifier: GPL-2.0-or-later
/* mkimage --stats --json: the build's summary through the JSON writer. */
#include "cmd.h"
#include "compressors/compressor.h"
#include "format/fmt_type.h"
#include "mkfs/mkfs.h"
#include "mkimage.h"
#include "util/json.h"
#include "write/reuse.h"

/* What each image of --reuse gave. */
static void reuse_json(struct sqk_json *j, const struct sqk_mkfs_stats *st,
		       const struct sqk_reuse_set *r)
{
	size_t i;

	sqk_json_key(j, "reuse");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "blocks", st->reused_blocks);
	sqk_json_key_uint(j, "bytes", st->reused_bytes);
	sqk_json_key_uint(j, "compressed", st->compressed_blocks);
	sqk_json_key(j, "images");
	sqk_json_begin_array(j, 0);
	for (i = 0; i < r->n; i++) {
		const struct sqk_reuse_given *g = &r->v[i];
		const struct sqk_reuse_stats *s = g->st;

		sqk_json_begin_object(j, 0);
		sqk_json_key_string(j, "path", g->path);
		sqk_json_key_bool(j, "used", s != NULL);
		if (!s) {
			sqk_json_key_string(j, "why", g->why);
			sqk_json_end_object(j);
			continue;
		}
		sqk_json_key_uint(j, "blocks", s->blocks);
		sqk_json_key_uint(j, "bytes", s->bytes);
		sqk_json_key_uint(j, "stored_bytes", s->stored);
		sqk_json_key_uint(j, "rejected", s->rejected);
		sqk_json_key_uint(j, "unreadable", s->unreadable);
		sqk_json_key_uint(j, "skipped", s->skipped);
		/* Whether its blocks are what this build makes: null until one is copied. */
		if (s->differs < 0)
			sqk_json_key_null(j, "same_compression");
		else
			sqk_json_key_bool(j, "same_compression", !s->differs);
		sqk_json_end_object(j);
	}
	sqk_json_end_array(j);
	sqk_json_end_object(j);
}

/* The --stats summary as one JSON object. */
void cli_mkimage_stats_json(const struct sqk_mkfs_stats *st, const struct sqk_mkfs_opts *o,
			    const char *image, double ratio, const struct sqk_reuse_set *reuse)
{
	struct sqk_json j;

	sqk_json_init_file(&j, stdout);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "image", image);
	sqk_json_key_string(&j, "compression", o->codec->name);
	sqk_json_key_uint(&j, "block_size", o->block_size);
	sqk_json_key_uint(&j, "threads", o->threads);
	sqk_json_key_uint(&j, "bytes_used", st->bytes_used);
	sqk_json_key_uint(&j, "image_size", st->image_size);
	sqk_json_key_uint(&j, "uncompressed", st->uncompressed);
	sqk_json_key_uint(&j, "data_bytes", st->data_bytes);
	sqk_json_key_uint(&j, "inode_table_bytes", st->inode_table_bytes);
	sqk_json_key_uint(&j, "directory_table_bytes", st->dir_table_bytes);
	sqk_json_key_double(&j, "ratio", ratio, 4);
	sqk_json_key_uint(&j, "mkfs_time", st->mkfs_time);
	sqk_json_key(&j, "counts");
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "inodes", st->inodes);
	sqk_json_key_uint(&j, sqk_fmt_type_plural(SQK_FILE), st->files);
	sqk_json_key_uint(&j, sqk_fmt_type_plural(SQK_DIR), st->dirs);
	sqk_json_key_uint(&j, sqk_fmt_type_plural(SQK_SYMLINK), st->symlinks);
	sqk_json_key_uint(&j, sqk_fmt_type_plural(SQK_BLKDEV), st->blkdevs);
	sqk_json_key_uint(&j, sqk_fmt_type_plural(SQK_CHRDEV), st->chrdevs);
	sqk_json_key_uint(&j, sqk_fmt_type_plural(SQK_FIFO), st->fifos);
	sqk_json_key_uint(&j, sqk_fmt_type_plural(SQK_SOCKET), st->sockets);
	sqk_json_key_uint(&j, "hardlinks", st->hardlinks);
	sqk_json_key_uint(&j, "blocks", st->blocks);
	sqk_json_key_uint(&j, "raw_blocks", st->raw_blocks);
	sqk_json_key_uint(&j, "compressed_blocks", st->compressed_blocks);
	sqk_json_key_uint(&j, "fragments", st->fragments);
	sqk_json_key_uint(&j, "ids", st->ids);
	sqk_json_key_uint(&j, "xattr_ids", st->xattr_ids);
	sqk_json_end_object(&j);
	sqk_json_key(&j, "dedup");
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "files", st->dedup_files);
	sqk_json_key_uint(&j, "bytes", st->dedup_bytes);
	sqk_json_key_uint(&j, "tails", st->dedup_tails);
	sqk_json_key_uint(&j, "tail_bytes", st->dedup_tail_bytes);
	sqk_json_end_object(&j);
	sqk_json_key(&j, "sparse");
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "blocks", st->sparse_blocks);
	sqk_json_key_uint(&j, "bytes", st->sparse_bytes);
	sqk_json_end_object(&j);
	sqk_json_key_uint(&j, "lseeks", st->lseeks);
	sqk_json_key_uint(&j, "xattrs_skipped", st->xattrs_skipped);
	if (reuse)
		reuse_json(&j, st, reuse);
	sqk_json_end_object(&j);
	sqk_json_finish(&j);
}
