// SPDX-License-Identifier: BSD-2-Clause
/*
 * The entries as sqk_mkfs_finish() writes them: their owners and times
 * settled (the id table filled on the way), then the files' data, in the
 * order the sort file or the tree gives.
 */
#include <stdio.h>

#include "format/format.h"
#include "mkfs.h"
#include "mkfs_int.h"
#include "source/src.h"
#include "util/error.h"
#include "write/attrs.h"
#include "write/data_writer.h"
#include "write/table_writer.h"
#include "write/tree.h"

/* Owners, times and the id table, in inode order; fails early on too many ids. */
int sqk_mkfs_settle_attrs(struct sqk_mkfs *m, uint32_t *newest)
{
	uint32_t i, top = 0;
	uint16_t idx;
	int err;

	/* Times the sources clamped, unless --mtime replaces them all. */
	if (!m->o.set_mtime)
		sqk_src_warn_times(&m->src, !m->o.have_epoch);
	for (i = 0; i < m->count; i++) {
		struct sqk_node *n = m->order[i];

		if (!(n->flags & SQK_NODE_KEPT)) {
			sqk_attrs_force(&m->o, n, i == m->count - 1);
			if (m->o.set_mtime)
				n->mtime = m->o.mtime;
			else if (m->o.have_epoch && n->mtime > m->o.epoch)
				n->mtime = m->o.epoch;
		}
		if (n->mtime > top)
			top = n->mtime;
		err = sqk_id_table_get(&m->ids, n->uid, &idx);
		if (!err)
			err = sqk_id_table_get(&m->ids, n->gid, &idx);
		if (err == SQK_ERR_OVERFLOW) {
			char why[128];

			snprintf(why, sizeof(why),
				 "more than %u distinct owner and group ids; the format stores at "
				 "most %u",
				 SQK_FMT_MAX_IDS, SQK_FMT_MAX_IDS);
			return sqk_mkfs_fail(m, err, "", why);
		}
		if (err)
			return err;
	}
	*newest = top;
	return 0;
}

/* The data of the files in list[0..count), in that order. */
int sqk_mkfs_write_data(struct sqk_mkfs *m, struct sqk_node *const *list, uint32_t count)
{
	uint64_t total = 0, done = 0;
	uint32_t i;
	int err;

	for (i = 0; i < count; i++) {
		const struct sqk_node *n = list[i];

		if (n->type == SQK_FILE && !(n->flags & SQK_NODE_DATA_DONE))
			total += n->size;
	}
	for (i = 0; i < count; i++) {
		struct sqk_node *n = list[i];

		if (n->type != SQK_FILE || (n->flags & SQK_NODE_DATA_DONE))
			continue;
		n->file.data = sqk_tree_alloc(m->tree, sizeof(*n->file.data));
		if (!n->file.data)
			return SQK_ERR_NOMEM;
		sqk_data_next_key(m->dw, n->file.key);
		if (n->file.src) {
			err = sqk_src_feed_file(&m->src, n->file.data, n->file.src, n->size);
		} else if (n->file.fn) {
			err = sqk_mkfs_feed_now(m, n);
		} else {
			err = sqk_data_file_begin(m->dw, n->file.data, 0);
		}
		if (err)
			return err;
		n->flags |= SQK_NODE_DATA_DONE;
		done += n->size;
		if (m->o.progress)
			m->o.progress(m->o.progress_ctx, done, total);
	}
	return 0;
}
