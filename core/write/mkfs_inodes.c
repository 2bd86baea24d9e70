// SPDX-License-Identifier: BSD-2-Clause
/*
 * The inode and directory tables of mkfs, from the tree in inode order:
 * each directory's listing first (its inode needs where it went), then
 * the inode, whose reference its parent's entries use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_writer.h"
#include "dir_writer.h"
#include "format/fmt_inode.h"
#include "format/format.h"
#include "inode_writer.h"
#include "mkfs_inodes.h"
#include "util/array.h"
#include "util/error.h"

/* Where n is, for the message: its first name in the tree, or its inode number. */
static void node_path(struct sqk_node *const *order, uint32_t count, const struct sqk_node *n,
		      char *buf, size_t cap)
{
	uint32_t i, k;
	size_t len;

	for (i = 0; i < count; i++) {
		const struct sqk_node *d = order[i];

		for (k = 0; d->type == SQK_DIR && k < d->dir.n; k++) {
			if (d->dir.ents[k].node != n)
				continue;
			sqk_tree_dir_path(d, buf, cap);
			len = strlen(buf);
			snprintf(buf + len, cap - len, "%s%.*s", len ? "/" : "",
				 (int)d->dir.ents[k].len, d->dir.ents[k].name);
			return;
		}
	}
	snprintf(buf, cap, n == order[count - 1] ? "/" : "inode %u", n->number);
}

int sqk_mkfs_write_inodes(struct sqk_node *const *order, uint32_t count, struct sqk_xattrs *xattrs,
			  struct sqk_id_table *ids, const struct sqk_fmt_limits *lim,
			  struct sqk_meta_writer *imw, struct sqk_meta_writer *dmw,
			  struct sqk_mkfs_stats *st, char *where, size_t where_len, char *why,
			  size_t why_len)
{
	struct sqk_fmt_issue issue = {"", 0, ""};
	struct sqk_fmt_report r = {sqk_fmt_keep_first, &issue, 0};
	struct sqk_dir_entry *ents = NULL;
	size_t ents_cap = 0;
	uint32_t i, k;
	int err = 0;

	for (i = 0; i < count && !err; i++) {
		struct sqk_node *n = order[i];
		struct sqk_inode_info in = {0};
		struct sqk_dir_result dr = {0};

		in.basic_type = n->type;
		in.mode = n->mode;
		in.mtime = n->mtime;
		in.number = n->number;
		in.nlink = n->nlink;
		in.xattr = xattrs ? sqk_xattrs_id(xattrs, n->xattrs) : SQK_INVALID_XATTR;
		if (n->xattrs && in.xattr == SQK_INVALID_XATTR)
			return SQK_ERR_NOMEM;
		err = sqk_id_table_get(ids, n->uid, &in.uid_idx);
		if (!err)
			err = sqk_id_table_get(ids, n->gid, &in.gid_idx);
		if (err)
			break;
		switch (n->type) {
		case SQK_DIR:
			if (SQK_ARRAY_GROW(ents, ents_cap, n->dir.n)) {
				err = SQK_ERR_NOMEM;
				break;
			}
			for (k = 0; k < n->dir.n; k++) {
				struct sqk_tree_entry *d = &n->dir.ents[k];

				ents[k] = (struct sqk_dir_entry){d->name, d->len, d->node->ref,
								 d->node->number, d->node->type};
			}
			err = sqk_dir_write(dmw, ents, n->dir.n, lim, &r, &dr);
			if (err)
				break;
			in.dir_block = dr.start;
			in.dir_offset = dr.offset;
			in.dir_size = (uint32_t)sqk_fmt_dir_size(dr.size);
			in.index_count = dr.index_count;
			in.index = dr.index;
			in.index_len = dr.index_len;
			in.parent =
				n->dir.parent ? n->dir.parent->number : sqk_fmt_root_parent(count);
			st->dirs++;
			break;
		case SQK_FILE: {
			struct sqk_file_data *fd = n->file.data;

			in.blocks_start = fd->blocks_start;
			in.file_size = fd->size;
			in.sparse = fd->sparse;
			in.frag_index = fd->frag_index;
			in.frag_offset = fd->frag_index == SQK_INVALID_FRAG ? 0 : fd->frag_offset;
			in.blocks = fd->blocks;
			in.nblocks = fd->nblocks;
			st->files++;
			st->uncompressed += fd->size;
			break;
		}
		case SQK_SYMLINK:
			in.target = n->target;
			in.target_len = (uint32_t)n->size;
			st->symlinks++;
			break;
		case SQK_BLKDEV:
		case SQK_CHRDEV:
			in.rdev = sqk_encode_dev(n->dev.major, n->dev.minor);
			if (n->type == SQK_BLKDEV)
				st->blkdevs++;
			else
				st->chrdevs++;
			break;
		case SQK_FIFO:
			st->fifos++;
			break;
		case SQK_SOCKET:
			st->sockets++;
			break;
		}
		if (n->type != SQK_DIR && n->nlink > 1)
			st->hardlinks += n->nlink - 1;
		if (!err) {
			n->ref = sqk_mw_ref(imw);
			err = sqk_inode_write(imw, &in, lim, &r);
		}
		free(dr.index);
		if (r.count) {
			node_path(order, count, n, where, where_len);
			snprintf(why, why_len, "%s %llu %s: the writer refuses to write it",
				 issue.field, (unsigned long long)issue.value, issue.why);
		}
	}
	free(ents);
	return err;
}
