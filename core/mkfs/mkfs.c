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
#include "util/spill.h"
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

uint64_t sqk_mkfs_spilled(const struct sqk_mkfs *m, const char *what)
{
	return sqk_spill_figure(&m->sp, what);
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

int sqk_mkfs_said(struct sqk_mkfs *m, int err)
{
	struct sqk_fault f;

	/* As the readers say it (the image is where the line starts). */
	if (err && sqk_spill_failed(&m->sp, err, &f)) {
		errno = f.errnum;
		sqk_src_fail(&m->src, "", "%s", f.what);
		m->in_image = 0;
	}
	return err;
}

int sqk_mkfs_create(const struct sqk_mkfs_opts *o, struct sqk_file *out, struct sqk_mkfs **res)
{
	struct sqk_mkfs *m = calloc(1, sizeof(*m));
	struct sqk_data_opts dopts;
	unsigned i;
	int err, tiny;

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
	/* A test hook: SQK_TEST_SPILL=tiny keeps the least in memory that works, as spill_tiny. */
	tiny = o->spill_tiny ||
	       (getenv("SQK_TEST_SPILL") && !strcmp(getenv("SQK_TEST_SPILL"), "tiny"));
	err = sqk_spill_init(&m->sp,
			     o->tmpdir		? o->tmpdir
			     : getenv("TMPDIR") ? getenv("TMPDIR")
						: "/tmp",
			     o->memory ? o->memory : sqk_mkfs_default_memory(), tiny);
	if (err)
		return err;
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
	m->tree = sqk_tree_create(&m->sp);
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
		.spill = &m->sp,
	};
	err = sqk_data_writer_create(&dopts, m->comps, m->comps[m->o.threads], out, m->data_start,
				     &m->dw);
	if (err)
		return err;
	m->src.tree = m->tree;
	m->src.spill = &m->sp;
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
			.spill = &m->sp,
			.dedup = !o->no_dedup,
			.where = m->src.err_path,
			.why = m->src.err_msg,
			.where_len = sizeof(m->src.err_path),
			.why_len = sizeof(m->src.err_msg),
		};

		return sqk_mkfs_said(m, sqk_append_load(&al));
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
	for (i = 0; i < m->ndirs; i++)
		free(m->dirs[i]);
	free(m->dirs);
	sqk_mkfs_fns_release(m);
	sqk_tree_destroy(m->tree);
	/* Last: every temporary is closed (and so gone) by now. */
	sqk_spill_release(&m->sp);
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
	return sqk_mkfs_said(m, check_kept(m, sqk_src_dir(&m->src, path)));
}

int sqk_mkfs_add_entry(struct sqk_mkfs *m, const char *path)
{
	return sqk_mkfs_said(m, sqk_src_entry(&m->src, path));
}

int sqk_mkfs_add_full_path(struct sqk_mkfs *m, const char *path)
{
	return sqk_mkfs_said(m, sqk_src_full_path(&m->src, path));
}

int sqk_mkfs_add_listing(struct sqk_mkfs *m, const char *path)
{
	return sqk_mkfs_said(m, check_kept(m, sqk_src_listing(&m->src, path)));
}

int sqk_mkfs_add_archive(struct sqk_mkfs *m, const char *path)
{
	return sqk_mkfs_said(m, check_kept(m, sqk_src_archive(&m->src, path)));
}

int sqk_mkfs_add_pseudo(struct sqk_mkfs *m, struct sqk_pseudo *p)
{
	return sqk_mkfs_said(m, check_kept(m, sqk_src_pseudo(&m->src, p)));
}
