// SPDX-License-Identifier: BSD-2-Clause
/* The inode and directory tables of mkfs (mkfs_inodes.h). */
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
#include "util/spill.h"
#include "util/spool.h"

#define LISTINGS_SHARE 4

/* A listing's entry on the stack: what the directory table needs, then the name. */
struct lent {
	uint64_t ref;
	uint32_t number;
	uint16_t type;
	uint16_t len;
};

/* A directory open on the stack: its node, and where its entries start there. */
struct frame {
	sqk_nid id;
	uint64_t start;
	uint32_t pathlen;
};

struct writer {
	struct sqk_inodes *in;
	struct sqk_spool listings;
	struct frame *stack;
	size_t depth, cap;
	char *path; /* the entry walked last, '/' between names */
	size_t pathcap;
	uint32_t written;
	uint32_t *words; /* a file's size words */
	size_t words_cap;
	char *target;
	size_t target_cap;
};

static int add_entry(struct writer *w, const char *name, uint32_t len, const struct sqk_node *n)
{
	struct lent e = {n->ref, n->number, n->type, (uint16_t)len};
	int err = sqk_spool_write(&w->listings, &e, sizeof(e));

	return err ? err : sqk_spool_write(&w->listings, name, len);
}

/* The inode's body as the type needs it. */
static int fill(struct writer *w, struct sqk_node *n, struct sqk_inode_info *in)
{
	struct sqk_inodes *ins = w->in;
	struct sqk_mkfs_stats *st = ins->st;
	struct sqk_file_data fd;
	int err = 0;

	switch (n->type) {
	case SQK_FILE:
		if (!n->file.data)
			return SQK_ERR_CORRUPT; /* every file's data is placed before */
		err = sqk_data_result(ins->dw, n->file.data - 1, &fd, &w->words, &w->words_cap);
		if (err)
			return err;
		in->blocks_start = fd.blocks_start;
		in->file_size = fd.size;
		in->sparse = fd.sparse;
		in->frag_index = fd.frag_index;
		in->frag_offset = fd.frag_index == SQK_INVALID_FRAG ? 0 : fd.frag_offset;
		in->blocks = fd.blocks;
		in->nblocks = fd.nblocks;
		st->files++;
		st->uncompressed += fd.size;
		break;
	case SQK_SYMLINK:
		if (SQK_ARRAY_GROW(w->target, w->target_cap, n->size + 1))
			return SQK_ERR_NOMEM;
		err = sqk_tree_str_get(ins->t, n->target, (size_t)n->size, w->target);
		in->target = w->target;
		in->target_len = (uint32_t)n->size;
		st->symlinks++;
		break;
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		in->rdev = sqk_encode_dev(n->dev.major, n->dev.minor);
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
	return err;
}

/*
 * Write node id's inode (dr: a directory's listing), at pathlen bytes of
 * the path buffer for a refusal's words; it keeps its reference.
 */
static int write_inode(struct writer *w, sqk_nid id, struct sqk_node *n, uint32_t pathlen,
		       const struct sqk_dir_result *dr)
{
	struct sqk_inodes *ins = w->in;
	struct sqk_fmt_issue issue = {"", 0, ""};
	struct sqk_fmt_report r = {sqk_fmt_keep_first, &issue, 0};
	struct sqk_inode_info in = {0};
	int err;

	/* Numbers were given in this same order: a node written out of turn is a bug. */
	if (n->number != ++w->written)
		return SQK_ERR_CORRUPT;
	in.basic_type = n->type;
	in.mode = n->mode;
	in.mtime = n->mtime;
	in.number = n->number;
	in.nlink = n->nlink;
	in.xattr = ins->xattrs ? sqk_xattrs_id(ins->xattrs, n->xattrs) : SQK_INVALID_XATTR;
	if (n->xattrs && in.xattr == SQK_INVALID_XATTR)
		return SQK_ERR_NOMEM;
	err = sqk_id_table_get(ins->ids, n->uid, &in.uid_idx);
	if (!err)
		err = sqk_id_table_get(ins->ids, n->gid, &in.gid_idx);
	if (err)
		return err;
	if (n->type == SQK_DIR) {
		struct sqk_node parent;

		in.dir_block = dr->start;
		in.dir_offset = dr->offset;
		in.dir_size = (uint32_t)sqk_fmt_dir_size(dr->size);
		in.index_count = dr->index_count;
		in.index = dr->index;
		in.index_len = dr->index_len;
		in.parent = sqk_fmt_root_parent(ins->count);
		if (n->dir.parent) {
			err = sqk_tree_get(ins->t, n->dir.parent, &parent);
			if (err)
				return err;
			in.parent = parent.number;
		}
		ins->st->dirs++;
	} else {
		err = fill(w, n, &in);
		if (err)
			return err;
		if (n->nlink > 1)
			ins->st->hardlinks += n->nlink - 1;
	}
	n->ref = sqk_mw_ref(ins->imw);
	err = sqk_inode_write(ins->imw, &in, ins->lim, &r);
	if (r.count) {
		if (n->dir.parent || n->type != SQK_DIR || pathlen)
			snprintf(ins->where, ins->where_len, "%.*s", (int)pathlen, w->path);
		else
			snprintf(ins->where, ins->where_len, "/");
		snprintf(ins->why, ins->why_len, "%s %llu %s: the writer refuses to write it",
			 issue.field, (unsigned long long)issue.value, issue.why);
	}
	if (err)
		return err;
	n->flags |= SQK_NODE_WRITTEN;
	if (ins->export && (err = sqk_spool_write(ins->export, &n->ref, sizeof(n->ref))))
		return err;
	return sqk_tree_put(ins->t, id, n);
}

/* A listing read back from the stack, entry by entry. */
struct reader {
	struct sqk_spool *s;
	uint64_t off, end;
	char name[SQK_NAME_MAX];
};

static int next_entry(void *ctx, struct sqk_dir_entry *e)
{
	struct reader *r = ctx;
	struct lent l;
	int err;

	if (r->off == r->end)
		return 1;
	err = sqk_spool_read(r->s, r->off, &l, sizeof(l));
	if (!err && l.len > SQK_NAME_MAX)
		err = SQK_ERR_CORRUPT;
	if (!err)
		err = sqk_spool_read(r->s, r->off + sizeof(l), r->name, l.len);
	if (err)
		return err;
	r->off += sizeof(l) + l.len;
	*e = (struct sqk_dir_entry){r->name, l.len, l.ref, l.number, l.type};
	return 0;
}

/* The directory on top is complete: its listing, then its inode, then its parent's entry. */
static int close_dir(struct writer *w)
{
	struct sqk_inodes *ins = w->in;
	struct frame *f = &w->stack[--w->depth];
	struct sqk_fmt_issue issue = {"", 0, ""};
	struct sqk_fmt_report r = {sqk_fmt_keep_first, &issue, 0};
	struct reader rd = {&w->listings, f->start, w->listings.size, ""};
	struct sqk_dir_result dr = {0};
	struct sqk_node n;
	const char *name;
	int err;

	err = sqk_tree_get(ins->t, f->id, &n);
	if (!err)
		err = sqk_dir_write_stream(ins->dmw, next_entry, &rd, ins->lim, &r, &dr);
	if (r.count) {
		if (f->pathlen)
			snprintf(ins->where, ins->where_len, "%.*s", (int)f->pathlen, w->path);
		else
			snprintf(ins->where, ins->where_len, "/");
		snprintf(ins->why, ins->why_len, "%s %llu %s: the writer refuses to write it",
			 issue.field, (unsigned long long)issue.value, issue.why);
	}
	sqk_spool_truncate(&w->listings, f->start);
	if (!err)
		err = write_inode(w, f->id, &n, f->pathlen, &dr);
	free(dr.index);
	if (err || !w->depth)
		return err;
	/* Its own name is the last of its path. */
	name = w->path + f->pathlen;
	while (name > w->path && name[-1] != '/')
		name--;
	return add_entry(w, name, (uint32_t)(w->path + f->pathlen - name), &n);
}

static int visit(struct writer *w, const struct sqk_tree_item *it)
{
	struct sqk_inodes *ins = w->in;
	struct sqk_node n;
	size_t i;
	int err;

	if (SQK_ARRAY_GROW(w->path, w->pathcap, it->klen + 1))
		return SQK_ERR_NOMEM;
	for (i = 0; i < it->klen; i++)
		w->path[i] = it->key[i] ? (char)it->key[i] : '/';
	err = sqk_tree_get(ins->t, it->node, &n);
	if (err)
		return err;
	if (n.type == SQK_DIR) {
		if (SQK_ARRAY_GROW(w->stack, w->cap, w->depth + 1))
			return SQK_ERR_NOMEM;
		w->stack[w->depth++] = (struct frame){it->node, w->listings.size, it->klen};
		return 0;
	}
	/* A hard link's node is written at its first name; the others only name it. */
	if (!(n.flags & SQK_NODE_WRITTEN) && (err = write_inode(w, it->node, &n, it->klen, NULL)))
		return err;
	return add_entry(w, it->name, it->len, &n);
}

int sqk_mkfs_write_inodes(struct sqk_inodes *in, struct sqk_spill *sp)
{
	struct writer w = {.in = in};
	struct sqk_tree_walk *tw = NULL;
	struct sqk_tree_item it;
	int err;

	sqk_spool_init(&w.listings, sp,
		       sqk_spill_share(sp, LISTINGS_SHARE, sp->tiny ? 64 : 1 << 20));
	err = SQK_ARRAY_GROW(w.stack, w.cap, 64) ? SQK_ERR_NOMEM : 0;
	if (!err) {
		w.stack[w.depth++] = (struct frame){SQK_NID_ROOT, 0, 0};
		err = sqk_tree_walk_start(in->t, &tw);
	}
	while (!err && !(err = sqk_tree_walk_next(tw, &it))) {
		while (!err && w.depth > it.depth)
			err = close_dir(&w);
		if (!err)
			err = visit(&w, &it);
	}
	if (err == 1)
		err = 0;
	while (!err && w.depth)
		err = close_dir(&w);
	if (!err && w.written != in->count)
		err = SQK_ERR_CORRUPT;
	sqk_tree_walk_end(tw);
	sqk_spool_release(&w.listings);
	free(w.stack);
	free(w.path);
	free(w.words);
	free(w.target);
	return err;
}
