// SPDX-License-Identifier: BSD-2-Clause
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
#include "source/pseudo.h"
#include "source/src.h"
#include "util/array.h"
#include "util/error.h"
#include "verity/verity_build.h"
#include "write/append.h"
#include "write/attrs.h"
#include "write/data_writer.h"
#include "write/dir_writer.h"
#include "write/inode_writer.h"
#include "write/meta_writer.h"
#include "write/mkfs_inodes.h"
#include "write/reuse.h"
#include "write/sort.h"
#include "write/table_writer.h"
#include "write/tree.h"
#include "write/tree_check.h"
#include "write/xattr_writer.h"

const char *sqk_mkfs_err_path(const struct sqk_mkfs *m)
{
	return m->src.err_path;
}

const char *sqk_mkfs_err_msg(const struct sqk_mkfs *m)
{
	return m->src.err_msg;
}

int sqk_mkfs_err_errno(const struct sqk_mkfs *m)
{
	return m->src.err_errno;
}

int sqk_mkfs_err_in_image(const struct sqk_mkfs *m)
{
	return m->in_image;
}

const struct sqk_reuse_stats *sqk_mkfs_reuse(const struct sqk_mkfs *m, size_t i)
{
	return m && i < sqk_reuse_count(m->reuse) ? sqk_reuse_stats(m->reuse, i) : NULL;
}

/* The earlier images of --reuse, indexed, and the pipeline told of them. */
static int setup_reuse(struct sqk_mkfs *m)
{
	size_t i;
	int err;

	err = sqk_reuse_create(m->o.codec, &m->o.comp, m->o.block_size, !!(m->o.raw & SQK_RAW_DATA),
			       !!(m->o.raw & SQK_RAW_FRAGMENTS), &m->reuse);
	for (i = 0; !err && i < m->o.nreuse; i++)
		err = sqk_reuse_add(m->reuse, m->o.reuse[i]);
	if (!err)
		err = sqk_data_set_reuse(m->dw, m->reuse);
	return err;
}

/* A source named a path the image appended to has: say so, naming it. */
static int check_kept(struct sqk_mkfs *m, int err)
{
	if (err == SQK_ERR_EXIST && m->o.append && sqk_append_kept(m->tree, m->src.err_path)) {
		m->in_image = 1;
		snprintf(m->src.err_msg, sizeof(m->src.err_msg), "already in the image");
	}
	return err;
}

int sqk_mkfs_fail(struct sqk_mkfs *m, int err, const char *path, const char *msg)
{
	errno = 0;
	sqk_src_fail(&m->src, path, "%s", msg);
	return err;
}

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

/* The fragment table's entries, as the reader checks them, before it is written. */
static int check_frags(struct sqk_mkfs *m, const uint8_t *frags, uint32_t n, uint64_t area_end)
{
	struct sqk_fmt_issue issue = {"", 0, ""};
	struct sqk_fmt_report r = {sqk_fmt_keep_first, &issue, 0};
	struct sqk_fmt_frag e;
	uint32_t i;

	for (i = 0; i < n; i++) {
		sqk_fmt_frag_decode(&e, frags + (size_t)i * SQK_FMT_FRAG_SIZE);
		if (sqk_fmt_frag_check(&e, m->o.block_size, data_start(m), area_end, &r))
			return refuse(m, "fragment", &issue);
	}
	return 0;
}

int sqk_mkfs_create(const struct sqk_mkfs_opts *o, struct sqk_file *out, struct sqk_mkfs **res)
{
	struct sqk_mkfs *m = calloc(1, sizeof(*m));
	struct sqk_data_opts dopts;
	unsigned i;
	int err;

	if (!m)
		return SQK_ERR_NOMEM;
	m->o = *o;
	m->out = out;
	if (!m->o.threads)
		m->o.threads = 1;
	sqk_id_table_init(&m->ids);
	m->ncomps = m->o.threads + 1;
	m->comps = calloc(m->ncomps, sizeof(*m->comps));
	if (!m->comps) {
		free(m);
		return SQK_ERR_NOMEM;
	}
	*res = m;
	for (i = 0; i < m->ncomps; i++) {
		m->comps[i] = o->codec->create(&m->o.comp);
		if (!m->comps[i])
			return SQK_ERR_NOMEM;
	}
	err = o->codec->write_options(&m->o.comp, m->options, sizeof(m->options), &m->options_len);
	if (err)
		return err;
	{
		struct sqk_fmt_meta_hdr h = {(uint32_t)m->options_len, 1};

		m->data_start = sqk_fmt_data_start(m->options_len ? &h : NULL);
	}
	if (o->append) {
		/* After every byte the file has (cut back to on a failure); a device: the image. */
		uint64_t used = sqk_image_super(o->append)->bytes_used, size = out->size(out);

		if (sqk_file_fd(out) >= 0 && !sqk_fd_is_regular(sqk_file_fd(out)))
			size = 0;
		m->data_start = size > used ? size : used;
	}
	m->tree = sqk_tree_create();
	if (!m->tree)
		return SQK_ERR_NOMEM;
	/* The image appended to keeps its attributes, whatever --no-xattrs says. */
	if (!o->no_xattrs || o->append) {
		m->xattrs = sqk_xattrs_create();
		if (!m->xattrs)
			return SQK_ERR_NOMEM;
	}
	dopts = (struct sqk_data_opts){
		.block_size = o->block_size,
		.threads = m->o.threads,
		.no_fragments = o->no_fragments,
		.tail_ends = o->tail_ends,
		.no_dedup = o->no_dedup,
		.no_sparse = o->no_sparse,
		.raw_data = !!(o->raw & SQK_RAW_DATA),
		.raw_fragments = !!(o->raw & SQK_RAW_FRAGMENTS),
	};
	err = sqk_data_writer_create(&dopts, m->comps, m->comps[m->o.threads], out, m->data_start,
				     &m->dw);
	if (err)
		return err;
	m->src.tree = m->tree;
	m->src.xattrs = o->no_xattrs ? NULL : m->xattrs;
	m->src.dw = m->dw;
	m->src.xattr_filter = o->xattr_filter;
	m->src.no_hardlinks = o->no_hardlinks;
	m->src.excludes = o->excludes;
	m->src.nexcludes = o->nexcludes;
	m->src.exclude_style = o->exclude_style;
	m->src.one_file_system = o->one_file_system;
	m->src.pseudo_warn = o->pseudo_warn;
	m->src.warn = o->warn;
	m->src.warn_ctx = o->warn_ctx;
	err = sqk_src_exclude_prepare(&m->src);
	if (err)
		return err;
	for (i = 0; i < (unsigned)o->nskip && i < 2; i++) {
		m->src.skip_dev[i] = (dev_t)o->skip_dev[i];
		m->src.skip_ino[i] = (ino_t)o->skip_ino[i];
	}
	m->src.nskip = o->nskip;
	if (o->nreuse) {
		err = setup_reuse(m);
		if (err)
			return err;
	}
	if (o->append) {
		struct sqk_append_load al = {
			.img = o->append,
			.tree = m->tree,
			.xattrs = m->xattrs,
			.dw = m->dw,
			.dedup = !o->no_dedup,
			.where = m->src.err_path,
			.why = m->src.err_msg,
			.where_len = sizeof(m->src.err_path),
			.why_len = sizeof(m->src.err_msg),
		};

		return sqk_append_load(&al);
	}
	return 0;
}

void sqk_mkfs_destroy(struct sqk_mkfs *m)
{
	unsigned i;

	if (!m)
		return;
	sqk_data_writer_destroy(m->dw);
	sqk_reuse_destroy(m->reuse);
	for (i = 0; m->comps && i < m->ncomps; i++)
		if (m->comps[i])
			m->comps[i]->destroy(m->comps[i]);
	free(m->comps);
	sqk_xattrs_destroy(m->xattrs);
	sqk_src_ctx_release(&m->src);
	sqk_id_table_release(&m->ids);
	free(m->order);
	for (i = 0; i < m->ndirs; i++)
		free(m->dirs[i]);
	free(m->dirs);
	sqk_tree_destroy(m->tree);
	free(m);
}

int sqk_mkfs_add_dir(struct sqk_mkfs *m, const char *path)
{
	if (m->o.sort) {
		char **d = realloc(m->dirs, (m->ndirs + 1) * sizeof(*d));

		if (!d)
			return SQK_ERR_NOMEM;
		m->dirs = d;
		/* A source that cannot be resolved fails in the walk, with its reason. */
		d[m->ndirs] = realpath(path, NULL);
		if (d[m->ndirs])
			m->ndirs++;
	}
	return check_kept(m, sqk_src_dir(&m->src, path));
}

int sqk_mkfs_add_entry(struct sqk_mkfs *m, const char *path)
{
	return sqk_src_entry(&m->src, path);
}

int sqk_mkfs_add_full_path(struct sqk_mkfs *m, const char *path)
{
	return sqk_src_full_path(&m->src, path);
}

int sqk_mkfs_add_listing(struct sqk_mkfs *m, const char *path)
{
	return check_kept(m, sqk_src_listing(&m->src, path));
}

int sqk_mkfs_add_archive(struct sqk_mkfs *m, const char *path)
{
	return check_kept(m, sqk_src_archive(&m->src, path));
}

int sqk_mkfs_add_pseudo(struct sqk_mkfs *m, struct sqk_pseudo *p)
{
	return check_kept(m, sqk_src_pseudo(&m->src, p));
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
	/* Dedup may have rewound over bytes already in the file: cut them off (a device or a stream
	 * is not cut). */
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

int sqk_mkfs_finish(struct sqk_mkfs *m, struct sqk_mkfs_stats *st)
{
	struct sqk_meta_writer *imw = NULL, *dmw = NULL;
	struct sqk_compressor *mc = m->comps[m->o.threads];
	/* A NULL compressor makes the metadata writers store blocks as they are. */
	unsigned raw = m->o.raw;
	struct sqk_compressor *ic = raw & SQK_RAW_INODES ? NULL : mc;
	struct sqk_compressor *fc = raw & SQK_RAW_FRAGMENTS ? NULL : mc;
	struct sqk_compressor *xc = raw & SQK_RAW_XATTRS ? NULL : mc;
	struct sqk_compressor *idc = raw & (SQK_RAW_INODES | SQK_RAW_IDS) ? NULL : mc;
	struct sqk_node *root = sqk_tree_root(m->tree);
	struct sqk_super sb = {0};
	struct sqk_fmt_limits lim;
	struct sqk_data_stats *ds;
	uint32_t newest = 0, nfrags, i, nfiles = 0;
	struct sqk_node **files = NULL;
	uint64_t pos, lookup;
	uint8_t *buf = NULL;
	int err;

	memset(st, 0, sizeof(*st));
	sqk_tree_sort(m->tree);
	err = sqk_tree_number(m->tree, &m->order, &m->count);
	if (err)
		return err;
	/* No source described the root: a plain directory of the newest time. */
	if (root->flags & SQK_NODE_IMPLICIT)
		root->mode = 0755;
	err = sqk_mkfs_settle_attrs(m, &newest);
	if (err)
		return err;
	/*
	 * Directories no source described (the root, the parents of a path
	 * added) take the build's time: "mtime", else the newest entry's.
	 */
	for (i = 0; i < m->count; i++)
		if ((m->order[i]->flags & (SQK_NODE_IMPLICIT | SQK_NODE_KEPT)) == SQK_NODE_IMPLICIT)
			m->order[i]->mtime = m->o.set_mtime ? m->o.mtime : newest;
	err = sqk_attrs_add_xattrs(&m->o, m->xattrs, m->order, m->count, m->src.err_path,
				   sizeof(m->src.err_path), m->src.err_msg, sizeof(m->src.err_msg));
	/* Nothing the reader would refuse: checked before any data is written. */
	if (!err)
		err = sqk_tree_check(m->order, m->count, m->o.block_size, m->src.err_path,
				     sizeof(m->src.err_path), m->src.err_msg,
				     sizeof(m->src.err_msg));
	/* Files are found again in earlier images by their paths in the finished tree. */
	if (!err && m->reuse)
		err = sqk_reuse_tree_keys(m->tree);
	if (!err && m->o.sort)
		err = sqk_sort_files(
			m->o.sort, m->tree, m->order, m->count, (const char *const *)m->dirs,
			m->ndirs, m->o.warn, m->o.warn_ctx, &files, &nfiles, m->src.err_path,
			sizeof(m->src.err_path), m->src.err_msg, sizeof(m->src.err_msg));
	if (!err)
		err = files ? sqk_mkfs_write_data(m, files, nfiles)
			    : sqk_mkfs_write_data(m, m->order, m->count);
	free(files);
	if (!err)
		err = sqk_data_finish(m->dw, &pos);
	if (err)
		return err;
	if (m->o.append)
		sqk_append_stage("data");
	ds = sqk_data_stats(m->dw);

	imw = malloc(sizeof(*imw));
	dmw = malloc(sizeof(*dmw));
	if (!imw || !dmw) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	/* The inode table streams to the file; the directory table waits in memory. */
	sqk_mw_init(imw, ic, m->out, pos, 0);
	sqk_mw_init(dmw, ic, NULL, 0, 0);
	sb.inode_table = pos;
	sqk_data_fragments(m->dw, &nfrags);
	lim = (struct sqk_fmt_limits){m->o.block_size, m->count, nfrags, m->ids.count};
	err = sqk_mkfs_write_inodes(m->order, m->count, m->xattrs, &m->ids, &lim, imw, dmw, st,
				    m->src.err_path, sizeof(m->src.err_path), m->src.err_msg,
				    sizeof(m->src.err_msg));
	if (!err)
		err = sqk_mw_flush(imw);
	if (!err)
		err = sqk_mw_flush(dmw);
	if (err)
		goto out;
	sb.root_inode = root->ref;
	pos += imw->out_len;
	sb.dir_table = pos;
	err = sqk_mw_copy_out(dmw, m->out, pos);
	if (err)
		goto out;
	pos += dmw->out_len;
	st->inode_table_bytes = imw->out_len;
	st->dir_table_bytes = dmw->out_len;

	{
		const uint8_t *frags = sqk_data_fragments(m->dw, &nfrags);

		sb.fragment_table = SQK_INVALID_TABLE;
		if (nfrags) {
			err = check_frags(m, frags, nfrags, sb.inode_table);
			if (!err)
				err = sqk_table_write(fc, m->out, &pos, frags,
						      (size_t)nfrags * SQK_FMT_FRAG_SIZE,
						      &sb.fragment_table);
			if (err)
				goto out;
		}
	}
	sb.export_table = SQK_INVALID_TABLE;
	if (!m->o.no_export) {
		buf = malloc((size_t)m->count * SQK_FMT_EXPORT_SIZE);
		if (!buf) {
			err = SQK_ERR_NOMEM;
			goto out;
		}
		for (i = 0; i < m->count; i++)
			sqk_fmt_export_encode(buf + SQK_FMT_EXPORT_SIZE * (size_t)i,
					      m->order[i]->ref);
		err = sqk_table_write(ic, m->out, &pos, buf, (size_t)m->count * SQK_FMT_EXPORT_SIZE,
				      &sb.export_table);
		if (err)
			goto out;
	}
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
	sb.inode_count = m->count;
	sb.mkfs_time = m->o.set_fstime ? m->o.fstime : m->o.have_epoch ? m->o.epoch : newest;
	sb.block_size = m->o.block_size;
	for (sb.block_log = 0; (1u << sb.block_log) < m->o.block_size; sb.block_log++)
		;
	sb.fragment_count = nfrags;
	sb.compressor = (uint16_t)m->o.codec->id;
	sb.flags = 0;
	if (!m->o.no_dedup)
		sb.flags |= SQK_FLAG_DUPLICATES;
	if (m->o.no_fragments)
		sb.flags |= SQK_FLAG_NO_FRAGMENTS;
	if (m->o.tail_ends)
		sb.flags |= SQK_FLAG_ALWAYS_FRAGMENTS;
	if (sb.xattr_table == SQK_INVALID_TABLE)
		sb.flags |= SQK_FLAG_NO_XATTRS;
	if (!m->o.no_export)
		sb.flags |= SQK_FLAG_EXPORTABLE;
	if (m->o.append)
		sqk_append_super(m->o.append, &m->o, &sb);
	else if (m->options_len)
		sb.flags |= SQK_FLAG_COMPRESSOR_OPTIONS;
	if (raw & SQK_RAW_INODES)
		sb.flags |= SQK_FLAG_UNCOMPRESSED_INODES;
	if (raw & SQK_RAW_DATA)
		sb.flags |= SQK_FLAG_UNCOMPRESSED_DATA;
	if (raw & SQK_RAW_FRAGMENTS)
		sb.flags |= SQK_FLAG_UNCOMPRESSED_FRAGMENTS;
	if (raw & SQK_RAW_XATTRS)
		sb.flags |= SQK_FLAG_UNCOMPRESSED_XATTRS;
	/* As mksquashfs: the inodes flag covers the id table, so ids alone sets its own. */
	if ((raw & (SQK_RAW_IDS | SQK_RAW_INODES)) == SQK_RAW_IDS)
		sb.flags |= SQK_FLAG_UNCOMPRESSED_IDS;
	sb.id_count = (uint16_t)m->ids.count;
	sb.version_major = SQK_FORMAT_VERSION_MAJOR;
	sb.version_minor = SQK_FORMAT_VERSION_MINOR;
	sb.bytes_used = pos;
	err = pad_and_super(m, &sb, pos, st);
	if (err)
		goto out;

	st->bytes_used = pos;
	st->inodes = m->count;
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
	st->mkfs_time = sb.mkfs_time;
out:
	if (imw)
		sqk_mw_release(imw);
	if (dmw)
		sqk_mw_release(dmw);
	free(imw);
	free(dmw);
	free(buf);
	return err;
}
