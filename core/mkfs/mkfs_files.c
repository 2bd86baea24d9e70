// SPDX-License-Identifier: BSD-2-Clause
/*
 * The files' data as sqk_mkfs_finish() writes it: in inode order, or in
 * the order --sort gives (an external sort, within the build's budget),
 * each read from its host file, from the caller's callback kept by
 * sqk_mkfs_feed_later(), or empty.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "mkfs.h"
#include "mkfs_int.h"
#include "source/src.h"
#include "util/error.h"
#include "util/extsort.h"
#include "util/spool.h"
#include "write/data_writer.h"
#include "write/mkfs_number.h"
#include "write/sort.h"
#include "write/tree.h"

#define SORT_SHARE 5

/* A file's data from a caller's callback, read when the data is written. */
struct sqk_node_fn {
	sqk_mkfs_read_fn read;
	void *ctx;
	char *path; /* the entry's, for a failure */
};

int sqk_mkfs_feed_later(struct sqk_mkfs *m, sqk_nid id, const char *path, sqk_mkfs_read_fn read,
			void *ctx)
{
	struct sqk_node n;
	struct sqk_node_fn *fn;
	int err = sqk_tree_get(m->tree, id, &n);

	if (err)
		return sqk_mkfs_said(m, err);
	if (m->nfns == m->capfns) {
		size_t cap = m->capfns ? 2 * m->capfns : 16;
		struct sqk_node_fn *p = realloc(m->fns, cap * sizeof(*p));

		if (!p)
			return SQK_ERR_NOMEM;
		m->fns = p;
		m->capfns = cap;
	}
	fn = &m->fns[m->nfns];
	fn->path = strdup(path);
	if (!fn->path)
		return SQK_ERR_NOMEM;
	fn->read = read;
	fn->ctx = ctx;
	n.file.src = m->nfns++;
	n.file.srclen = 0;
	n.flags |= SQK_NODE_FED_LATER;
	return sqk_mkfs_said(m, sqk_tree_put(m->tree, id, &n));
}

void sqk_mkfs_fns_release(struct sqk_mkfs *m)
{
	size_t i;

	for (i = 0; i < m->nfns; i++)
		free(m->fns[i].path);
	free(m->fns);
	m->fns = NULL;
	m->nfns = m->capfns = 0;
}

/* What feed_later kept for node n, read now into a new file of the data writer. */
static int feed_now(struct sqk_mkfs *m, const struct sqk_node *n, uint64_t *data)
{
	const struct sqk_node_fn *fn = &m->fns[n->file.src];
	int err = sqk_data_feed(m->dw, n->size, fn->read, fn->ctx, data);

	/* The caller's code says it all: no errno of ours goes with it. */
	errno = 0;
	if (err && err != SQK_ERR_NOMEM)
		sqk_src_fail(&m->src, fn->path, "its data callback failed: %s", sqk_strerror(err));
	return err;
}

/* The data of file node id, read now: from its host file, its callback, or empty. */
static int feed(struct sqk_mkfs *m, sqk_nid id, uint64_t *done, uint64_t total)
{
	struct sqk_node n;
	uint64_t data;
	int err = sqk_tree_get(m->tree, id, &n);

	if (err || n.type != SQK_FILE || (n.flags & SQK_NODE_DATA_DONE))
		return err;
	sqk_data_next_key(m->dw, n.file.key);
	if (n.file.srclen) {
		char *src = malloc((size_t)n.file.srclen + 1);

		if (!src)
			return SQK_ERR_NOMEM;
		err = sqk_tree_str_get(m->tree, n.file.src, n.file.srclen, src);
		if (!err)
			err = sqk_src_feed_file(&m->src, src, n.size, &data);
		free(src);
	} else if (n.flags & SQK_NODE_FED_LATER) {
		err = feed_now(m, &n, &data);
	} else {
		err = sqk_data_file_begin(m->dw, 0, &data);
	}
	if (err)
		return err;
	sqk_src_data_done(&n, data);
	err = sqk_tree_put(m->tree, id, &n);
	*done += n.size;
	if (!err && m->o.progress)
		m->o.progress(m->o.progress_ctx, *done, total);
	return err;
}

int sqk_mkfs_write_data(struct sqk_mkfs *m, struct sqk_number *nb)
{
	struct sqk_sorter sorter;
	struct sqk_rec rec;
	uint64_t done = 0, at;
	sqk_nid id;
	int err = 0;

	if (!m->o.sort) {
		for (at = 0; !err && at < nb->order.size; at += sizeof(id)) {
			err = sqk_spool_read(&nb->order, at, &id, sizeof(id));
			if (!err)
				err = feed(m, id, &done, nb->total);
		}
		return err;
	}
	/* Highest priority first, inode order among equals: an external sort of the files. */
	sqk_sorter_init(&sorter, &m->sp,
			sqk_spill_share(&m->sp, SORT_SHARE, m->sp.tiny ? 64 : 1 << 20));
	for (at = 0; !err && at < nb->order.size; at += sizeof(id)) {
		struct sqk_node n;
		uint8_t key[8];

		err = sqk_spool_read(&nb->order, at, &id, sizeof(id));
		if (!err)
			err = sqk_tree_get(m->tree, id, &n);
		if (err || n.type != SQK_FILE || (n.flags & SQK_NODE_DATA_DONE))
			continue;
		sqk_sort_key(n.rank, n.number, key);
		err = sqk_sorter_add(&sorter, key, sizeof(key), &id, sizeof(id));
	}
	if (!err)
		err = sqk_sorter_done(&sorter);
	while (!err && !(err = sqk_sorter_next(&sorter, &rec))) {
		memcpy(&id, rec.val, sizeof(id));
		err = feed(m, id, &done, nb->total);
	}
	sqk_sorter_release(&sorter);
	return err == 1 ? 0 : err;
}
