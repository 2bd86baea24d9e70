// SPDX-License-Identifier: BSD-2-Clause
/*
 * The build after its sources (mkfs.h): the tree numbered and checked
 * (write/mkfs_number.c), the files' data in inode order or --sort's, the
 * inode and directory tables (write/mkfs_inodes.c), then the fragment,
 * export, id and xattr tables, and the superblock last. What waits for a
 * later step (the inode order, the directory table, the export table)
 * waits in spools of the build's budget.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/fmt_inode.h"
#include "format/fmt_meta.h"
#include "format/fmt_super.h"
#include "format/fmt_table.h"
#include "format/format.h"
#include "mkfs.h"
#include "mkfs_int.h"
#include "read/image.h"
#include "source/src.h"
#include "util/error.h"
#include "util/extsort.h"
#include "util/pool.h"
#include "util/spool.h"
#include "verity/verity_build.h"
#include "write/append.h"
#include "write/data_writer.h"
#include "write/inode_writer.h"
#include "write/meta_writer.h"
#include "write/mkfs_inodes.h"
#include "write/mkfs_number.h"
#include "write/sort.h"
#include "write/tree.h"
#include "write/xattr_writer.h"

#define DIRS_SHARE   3
#define EXPORT_SHARE 2

/* The writer would break the codec's rule issue in what: refused, with the rule. */
static int refuse(struct sqk_mkfs *m, const char *what, const struct sqk_fmt_issue *issue)
{
	char why[512];

	snprintf(why, sizeof(why), "%s %s %llu %s: the writer refuses to write it", what,
		 issue->field, (unsigned long long)issue->value, issue->why);
	return sqk_mkfs_fail(m, SQK_ERR_OVERFLOW, "", why);
}

/* Where the data area starts: after the superblock and the compressor options. */
static uint64_t data_start(const struct sqk_mkfs *m)
{
	struct sqk_fmt_meta_hdr h = {(uint32_t)m->options_len, 1};

	return sqk_fmt_data_start(m->options_len ? &h : NULL);
}

uint64_t sqk_mkfs_default_memory(void)
{
	uint64_t v = sqk_spill_default(2ull << 30);

	return v < (64u << 20) ? 64u << 20 : v;
}

/* The fragment table: each entry as the reader checks it, then the table. */
static int write_frags(struct sqk_mkfs *m, struct sqk_pool *pool, struct sqk_compressor **fc,
		       uint64_t *pos, uint64_t area_end, uint64_t *table)
{
	struct sqk_fmt_issue issue = {"", 0, ""};
	struct sqk_fmt_report r = {sqk_fmt_keep_first, &issue, 0};
	uint32_t n = sqk_data_fragments(m->dw), i;
	struct sqk_table_stream ts;
	uint8_t b[SQK_FMT_FRAG_SIZE];
	struct sqk_fmt_frag e;
	int err;

	*table = SQK_INVALID_TABLE;
	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		err = sqk_data_fragment(m->dw, i, b);
		if (err)
			return err;
		sqk_fmt_frag_decode(&e, b);
		if (sqk_fmt_frag_check(&e, m->o.block_size, data_start(m), area_end, &r))
			return refuse(m, "fragment", &issue);
	}
	err = sqk_table_begin_async(&ts, pool, fc, m->out, *pos);
	for (i = 0; !err && i < n; i++) {
		err = sqk_data_fragment(m->dw, i, b);
		if (!err)
			err = sqk_table_add(&ts, b, sizeof(b));
	}
	if (err) {
		sqk_table_abort(&ts);
		return err;
	}
	return sqk_table_end(&ts, NULL, 0, pos, table);
}

/* The export table: the references of every inode in inode order, spooled as written. */
static int write_export(struct sqk_mkfs *m, struct sqk_spool *refs, struct sqk_pool *pool,
			struct sqk_compressor **ic, const struct sqk_meta_writer *imw,
			uint64_t *pos, uint64_t *table)
{
	struct sqk_table_stream ts;
	uint8_t buf[SQK_FMT_EXPORT_SIZE * 1024];
	uint64_t at, ref;
	size_t k = 0;
	int err = sqk_table_begin_async(&ts, pool, ic, m->out, *pos);

	for (at = 0; !err && at < refs->size; at += sizeof(ref)) {
		err = sqk_spool_read(refs, at, &ref, sizeof(ref));
		if (err)
			break;
		sqk_fmt_export_encode(buf + SQK_FMT_EXPORT_SIZE * k++, sqk_mw_real_ref(imw, ref));
		if (k == 1024 || at + sizeof(ref) == refs->size) {
			err = sqk_table_add(&ts, buf, k * SQK_FMT_EXPORT_SIZE);
			k = 0;
		}
	}
	if (err) {
		sqk_table_abort(&ts);
		return err;
	}
	return sqk_table_end(&ts, NULL, 0, pos, table);
}

static int pad_and_super(struct sqk_mkfs *m, struct sqk_super *sb, uint64_t end,
			 struct sqk_mkfs_stats *st)
{
	uint8_t raw[SQK_SUPER_SIZE], zero[SQK_DEVBLK_SIZE] = {0};
	struct sqk_fmt_issue issue = {"", 0, ""};
	struct sqk_fmt_report r = {sqk_fmt_keep_first, &issue, 0};
	/* Padded, the last bytes lie in whole blocks of a device (a loop device drops a partial
	 * sector). */
	uint64_t padded =
		m->o.no_pad ? end : (end + SQK_DEVBLK_SIZE - 1) / SQK_DEVBLK_SIZE * SQK_DEVBLK_SIZE;
	int err;

	if (padded > end) {
		err = m->out->write_at(m->out, end, zero, (size_t)(padded - end));
		if (err)
			return err;
	}
	/* Dedup may have rewound over bytes already in the file: cut them off (a device or a stream is not cut). */
	if (m->out->truncate && (err = m->out->truncate(m->out, padded)))
		return err;
	/* Appending, everything new is on disk before the superblock points at it. */
	if (m->o.append) {
		if ((err = sqk_append_sync(m->out, "tables", "synced")))
			return err;
	} else if (m->options_len) {
		struct sqk_fmt_meta_hdr h = {(uint32_t)m->options_len, 1};
		uint8_t hdr[SQK_FMT_META_HDR_SIZE];

		sqk_fmt_meta_hdr_encode(&h, hdr);
		err = m->out->write_at(m->out, SQK_FMT_OPTIONS_POS, hdr, sizeof(hdr));
		if (!err)
			err = m->out->write_at(m->out, SQK_FMT_OPTIONS_POS + sizeof(hdr),
					       m->options, m->options_len);
		if (err)
			return err;
	}
	/* The superblock the reader will check first: it passes the same rules here. */
	if (sqk_fmt_super_check(sb, padded, &r) || sqk_fmt_main_tables_check(sb, data_start(m), &r))
		return refuse(m, "superblock", &issue);
	sqk_fmt_super_encode(sb, raw);
	/* The tree covers the superblock too: it is complete before the superblock is written. */
	if (m->o.verity && (err = sqk_verity_build_finish(m->o.verity, padded, raw, sizeof(raw))))
		return err;
	if (m->o.verity && m->o.append && (err = sqk_append_sync(m->out, "verity", "")))
		return err;
	err = m->out->write_at(m->out, 0, raw, sizeof(raw));
	if (err)
		return err;
	if (m->o.append && (err = sqk_append_sync(m->out, "super", "")))
		return err;
	st->image_size = padded;
	return 0;
}

static void counts(struct sqk_mkfs *m, struct sqk_mkfs_stats *st, uint32_t nfrags)
{
	struct sqk_data_stats *ds = sqk_data_stats(m->dw);

	st->blocks = ds->blocks;
	st->raw_blocks = ds->raw_blocks;
	st->fragments = nfrags;
	st->ids = m->ids.count;
	st->xattr_ids = m->xattrs ? sqk_xattrs_count(m->xattrs) : 0;
	st->dedup_files = ds->dedup_files;
	st->dedup_bytes = ds->dedup_bytes;
	st->dedup_tails = ds->dedup_tails;
	st->dedup_tail_bytes = ds->dedup_tail_bytes;
	st->sparse_blocks = ds->sparse_blocks;
	st->sparse_bytes = ds->sparse_bytes;
	st->lseeks = m->src.lseeks;
	st->xattrs_skipped = m->src.xattrs_skipped;
	st->data_bytes = ds->block_bytes + ds->fragment_bytes;
	st->compressed_blocks = ds->compressed;
	st->reused_blocks = ds->reused;
	st->reused_bytes = ds->reused_bytes;
	st->memory = m->sp.budget;
	st->spill_bytes = sqk_spill_figure(&m->sp, "bytes");
	st->spill_files = sqk_spill_figure(&m->sp, "files");
	st->spill_runs = sqk_spill_figure(&m->sp, "runs");
	st->spill_merges = sqk_spill_figure(&m->sp, "merges");
}

static void super_flags(struct sqk_mkfs *m, struct sqk_super *sb)
{
	unsigned raw = m->o.raw;

	sb->flags = 0;
	if (!m->o.no_dedup)
		sb->flags |= SQK_FLAG_DUPLICATES;
	if (m->o.no_fragments)
		sb->flags |= SQK_FLAG_NO_FRAGMENTS;
	if (m->o.tail_ends)
		sb->flags |= SQK_FLAG_ALWAYS_FRAGMENTS;
	if (sb->xattr_table == SQK_INVALID_TABLE)
		sb->flags |= SQK_FLAG_NO_XATTRS;
	if (!m->o.no_export)
		sb->flags |= SQK_FLAG_EXPORTABLE;
	if (m->o.append)
		sqk_append_super(m->o.append, &m->o, sb);
	else if (m->options_len)
		sb->flags |= SQK_FLAG_COMPRESSOR_OPTIONS;
	if (raw & SQK_RAW_INODES)
		sb->flags |= SQK_FLAG_UNCOMPRESSED_INODES;
	if (raw & SQK_RAW_DATA)
		sb->flags |= SQK_FLAG_UNCOMPRESSED_DATA;
	if (raw & SQK_RAW_FRAGMENTS)
		sb->flags |= SQK_FLAG_UNCOMPRESSED_FRAGMENTS;
	if (raw & SQK_RAW_XATTRS)
		sb->flags |= SQK_FLAG_UNCOMPRESSED_XATTRS;
	/* As mksquashfs: the inodes flag covers the id table, so ids alone sets its own. */
	if ((raw & (SQK_RAW_IDS | SQK_RAW_INODES)) == SQK_RAW_IDS)
		sb->flags |= SQK_FLAG_UNCOMPRESSED_IDS;
}

/*
 * The inode and directory tables, compressed on a pool of the build's
 * threads (each with its worker's compressor: the data's pool is done);
 * *pos moves past them. imw stays for the references the export table and
 * the superblock need (sqk_mw_real_ref).
 */
static int write_tables(struct sqk_mkfs *m, struct sqk_number *nb, struct sqk_super *sb,
			uint64_t *pos, struct sqk_spool *export, struct sqk_mkfs_stats *st,
			struct sqk_meta_writer *imw, struct sqk_pool *pool)
{
	struct sqk_compressor *mc = m->comps[m->o.threads];
	int raw = !!(m->o.raw & SQK_RAW_INODES);
	struct sqk_compressor *ic = raw ? NULL : mc;
	struct sqk_meta_writer *dmw = malloc(sizeof(*dmw));
	struct sqk_spool dirs;
	struct sqk_fmt_limits lim = {m->o.block_size, nb->count, sqk_data_fragments(m->dw),
				     m->ids.count};
	struct sqk_inodes in = {
		.t = m->tree,
		.dw = m->dw,
		.xattrs = m->xattrs,
		.ids = &m->ids,
		.lim = &lim,
		.imw = imw,
		.dmw = dmw,
		.export = m->o.no_export ? NULL : export,
		.count = nb->count,
		.st = st,
		.where = m->src.err_path,
		.why = m->src.err_msg,
		.where_len = sizeof(m->src.err_path),
		.why_len = sizeof(m->src.err_msg),
	};
	struct sqk_node root;
	int err = 0;

	sqk_spool_init(&dirs, &m->sp,
		       sqk_spill_share(&m->sp, DIRS_SHARE, m->sp.tiny ? 64 : 1 << 20));
	/* The inode table streams to the file; the directory table waits in a spool. */
	sqk_mw_init(imw, ic, m->out, *pos, 0);
	if (!dmw) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	sqk_mw_init(dmw, ic, NULL, 0, 0);
	dmw->spool = &dirs;
	err = sqk_mw_async(imw, pool, raw ? NULL : m->comps);
	if (!err)
		err = sqk_mw_async(dmw, pool, raw ? NULL : m->comps);
	if (err)
		goto out;
	imw->peer = dmw;
	dmw->peer = imw;
	sb->inode_table = *pos;
	err = sqk_mkfs_write_inodes(&in, &m->sp);
	if (!err)
		err = sqk_mw_flush(imw);
	if (!err)
		err = sqk_mw_flush(dmw);
	if (!err)
		err = sqk_tree_get(m->tree, SQK_NID_ROOT, &root);
	if (err)
		goto out;
	sb->root_inode = sqk_mw_real_ref(imw, root.ref);
	*pos += imw->out_len;
	sb->dir_table = *pos;
	err = sqk_mw_copy_out(dmw, m->out, *pos);
	if (err)
		goto out;
	*pos += dmw->out_len;
	st->inode_table_bytes = imw->out_len;
	st->dir_table_bytes = dmw->out_len;
out:
	/* Nothing of either table in flight when the pool goes. */
	if (dmw)
		sqk_mw_release(dmw);
	sqk_mw_async_release(imw);
	free(dmw);
	imw->peer = NULL;
	sqk_spool_release(&dirs);
	return err;
}

int sqk_mkfs_finish(struct sqk_mkfs *m, struct sqk_mkfs_stats *st)
{
	struct sqk_compressor *mc = m->comps[m->o.threads];
	/* A NULL compressor makes the metadata writers store blocks as they are. */
	unsigned raw = m->o.raw;
	struct sqk_compressor **ic = raw & SQK_RAW_INODES ? NULL : m->comps;
	struct sqk_compressor **fc = raw & SQK_RAW_FRAGMENTS ? NULL : m->comps;
	struct sqk_pool *pool = NULL;
	struct sqk_compressor *xc = raw & SQK_RAW_XATTRS ? NULL : mc;
	struct sqk_compressor *idc = raw & (SQK_RAW_INODES | SQK_RAW_IDS) ? NULL : mc;
	struct sqk_number nb = {
		.o = &m->o,
		.t = m->tree,
		.xattrs = m->xattrs,
		.ids = &m->ids,
		.reuse_keys = !!m->reuse,
		.where = m->src.err_path,
		.why = m->src.err_msg,
		.where_len = sizeof(m->src.err_path),
		.why_len = sizeof(m->src.err_msg),
	};
	struct sqk_meta_writer *imw = calloc(1, sizeof(*imw));
	struct sqk_super sb = {0};
	struct sqk_spool export;
	uint64_t pos, lookup;
	int err;

	memset(st, 0, sizeof(*st));
	sqk_spool_init(&export, &m->sp,
		       sqk_spill_share(&m->sp, EXPORT_SHARE, m->sp.tiny ? 16 : 1 << 16));
	/* Times the sources clamped, unless --mtime replaces them all. */
	if (!m->o.set_mtime)
		sqk_src_warn_times(&m->src, !m->o.have_epoch);
	err = imw ? sqk_tree_err(m->tree) : SQK_ERR_NOMEM;
	/* --sort: each line's priority on the node it names, before the tree is numbered. */
	if (!err && m->o.sort)
		err = sqk_sort_mark(m->o.sort, m->tree, (const char *const *)m->dirs, m->ndirs,
				    m->o.warn, m->o.warn_ctx, m->src.err_path,
				    sizeof(m->src.err_path), m->src.err_msg,
				    sizeof(m->src.err_msg));
	/* Numbered and checked: nothing the reader would refuse, before any data is written. */
	if (!err)
		err = sqk_mkfs_number(&nb, &m->sp);
	if (!err)
		err = sqk_mkfs_write_data(m, &nb);
	if (!err)
		err = sqk_data_finish(m->dw, &pos);
	if (err)
		goto out;
	if (m->o.append)
		sqk_append_stage("data");
	/* The tables' blocks on a pool of the build's threads; the data's is done with them. */
	pool = sqk_pool_create(m->o.threads, 0);
	err = pool ? write_tables(m, &nb, &sb, &pos, &export, st, imw, pool) : SQK_ERR_NOMEM;
	if (!err)
		err = write_frags(m, pool, fc, &pos, sb.inode_table, &sb.fragment_table);
	sb.export_table = SQK_INVALID_TABLE;
	if (!err && !m->o.no_export)
		err = write_export(m, &export, pool, ic, imw, &pos, &sb.export_table);
	if (!err)
		err = sqk_id_table_write(&m->ids, idc, m->out, &pos, &lookup);
	if (err)
		goto out;
	sb.id_table = lookup;
	sb.xattr_table = SQK_INVALID_TABLE;
	if (m->xattrs && sqk_xattrs_count(m->xattrs)) {
		err = sqk_xattrs_write(m->xattrs, xc, m->out, &pos, &sb.xattr_table);
		if (err)
			goto out;
	}
	sb.magic = SQK_MAGIC;
	sb.inode_count = nb.count;
	sb.mkfs_time = m->o.set_fstime ? m->o.fstime : m->o.have_epoch ? m->o.epoch : nb.newest;
	sb.block_size = m->o.block_size;
	for (sb.block_log = 0; (1u << sb.block_log) < m->o.block_size; sb.block_log++)
		;
	sb.fragment_count = sqk_data_fragments(m->dw);
	sb.compressor = (uint16_t)m->o.codec->id;
	super_flags(m, &sb);
	sb.id_count = (uint16_t)m->ids.count;
	sb.version_major = SQK_FORMAT_VERSION_MAJOR;
	sb.version_minor = SQK_FORMAT_VERSION_MINOR;
	sb.bytes_used = pos;
	err = pad_and_super(m, &sb, pos, st);
	if (err)
		goto out;
	st->bytes_used = pos;
	st->inodes = nb.count;
	st->mkfs_time = sb.mkfs_time;
	counts(m, st, sb.fragment_count);
out:
	if (imw)
		sqk_mw_release(imw);
	free(imw);
	sqk_pool_destroy(pool);
	sqk_spool_release(&export);
	sqk_mkfs_number_release(&nb);
	return sqk_mkfs_said(m, err);
}
