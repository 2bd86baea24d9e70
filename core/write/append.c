// SPDX-License-Identifier: BSD-2-Clause
/*
 * --append: the image added to becomes the writer's starting tree. Every
 * inode is read back with the reader and kept as it is (type, mode,
 * owners, time, xattrs, hard links, device numbers, symlink targets);
 * files keep pointing at their blocks and fragments where they are, and
 * become dedup candidates for the new data. Nothing of the old image is
 * written again except by the new tables, which go after its end.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "append.h"
#include "cache/cache.h"
#include "data_writer.h"
#include "format/fmt_block.h"
#include "format/format.h"
#include "mkfs_opts.h"
#include "read/data.h"
#include "read/dir.h"
#include "read/image.h"
#include "read/inode.h"
#include "read/xattr.h"
#include "tree.h"
#include "util/error.h"
#include "util/file.h"
#include "util/store.h"
#include "util/spill.h"
#include "xattr_writer.h"

struct loader {
	struct sqk_image *img;
	struct sqk_tree *t;
	struct sqk_xattrs *x;
	struct sqk_data_writer *dw;
	int dedup;
	uint64_t area_start, area_end;
	uint32_t block_size, nfrags;
	struct sqk_store *by_number; /* the node of inode number - 1 (sqk_nid), once made */
	uint32_t count;
	struct sqk_xattr_set **sets; /* by xattr index, read once */
	uint8_t *set_read;
	uint32_t nsets;
	/* Directories still to read: the node and its inode reference. */
	struct pending {
		sqk_nid dir;
		uint64_t ref;
	} * todo;
	size_t ntodo, todo_cap;
	char *where, *why;
	size_t where_len, why_len;
};

/* The words for err: a read of the image that failed in its errno's. */
static const char *err_text(const struct loader *l, int err)
{
	int e = sqk_image_file(l->img)->errnum;

	if (err == SQK_ERR_IO)
		return strerror(e ? e : EIO);
	return sqk_strerror(err);
}

static int fail(struct loader *l, sqk_nid dir, const char *name, size_t len, int err,
		const char *why)
{
	char path[4096];

	path[0] = '\0';
	if (dir)
		sqk_tree_dir_path(l->t, dir, path, sizeof(path));
	snprintf(l->where, l->where_len, "/%s%s%.*s", path, *path && len ? "/" : "", (int)len,
		 name ? name : "");
	if (why && err == SQK_ERR_IO)
		snprintf(l->why, l->why_len, "%s: %s", why, err_text(l, err));
	else
		snprintf(l->why, l->why_len, "%s", why ? why : err_text(l, err));
	return err;
}

static int get_xattrs(struct loader *l, uint32_t idx, struct sqk_xattr_set **out)
{
	struct sqk_xattr *list = NULL;
	struct sqk_xattr_in *in;
	uint32_t n = 0, i;
	int err;

	*out = NULL;
	if (idx == SQK_INVALID_XATTR)
		return 0;
	if (idx >= l->nsets)
		return SQK_ERR_CORRUPT;
	if (l->set_read[idx]) {
		*out = l->sets[idx];
		return 0;
	}
	err = sqk_xattr_read(l->img, idx, &list, &n);
	if (err)
		return err;
	in = calloc(n ? n : 1, sizeof(*in));
	if (!in) {
		sqk_xattr_free(list, n);
		return SQK_ERR_NOMEM;
	}
	for (i = 0; i < n; i++)
		in[i] = (struct sqk_xattr_in){list[i].name, list[i].value, list[i].value_len};
	err = sqk_xattrs_intern(l->x, in, n, out, NULL);
	free(in);
	sqk_xattr_free(list, n);
	if (err)
		return err;
	l->sets[idx] = *out;
	l->set_read[idx] = 1;
	return 0;
}

/* A file's blocks and fragment, checked against the old image's layout. */
static int keep_file(struct loader *l, const struct sqk_inode *ino, struct sqk_node *n)
{
	struct sqk_file_data file = {0}, *fd = &file;
	uint64_t pos = ino->blocks_start, id;
	uint32_t i;
	int err;

	fd->size = ino->size;
	fd->blocks_start = ino->blocks_start;
	fd->sparse = ino->sparse;
	fd->nblocks = ino->nblocks;
	fd->frag_index = ino->frag_index;
	fd->frag_offset = ino->frag_offset;
	for (i = 0; i < ino->nblocks; i++) {
		uint32_t size = sqk_fmt_block_size(ino->blocks[i]);

		if (sqk_fmt_block_check(ino->blocks[i], l->block_size,
					sqk_fmt_block_len(ino->size, i, l->block_size)) ||
		    !sqk_fmt_block_in_area(pos, size, l->area_start, l->area_end))
			return SQK_ERR_CORRUPT;
		pos += size;
	}
	if (fd->frag_index != SQK_INVALID_FRAG && fd->frag_index >= l->nfrags)
		return SQK_ERR_CORRUPT;
	fd->blocks = ino->blocks;
	n->size = ino->size;
	err = sqk_data_adopt_file(l->dw, fd, &id);
	n->file.data = id + 1;
	n->flags |= SQK_NODE_DATA_DONE;
	if (!err && l->dedup && fd->frag_index != SQK_INVALID_FRAG) {
		struct sqk_cache_entry *e = NULL;
		const uint8_t *tail;
		uint32_t len;

		err = sqk_data_tail(l->img, ino, &e, &tail, &len);
		if (!err && e)
			err = sqk_data_adopt_tail(l->dw, tail, len, fd->frag_index,
						  fd->frag_offset);
		sqk_cache_put(e);
	}
	return err;
}

/* The writer's node for an inode of the old image, its attributes as they are. */
static int keep_inode(struct loader *l, const struct sqk_inode *ino, struct sqk_node *n)
{
	int err;

	n->flags |= SQK_NODE_KEPT;
	n->mode = ino->mode & 07777;
	n->uid = ino->uid;
	n->gid = ino->gid;
	n->mtime = ino->mtime;
	n->ref = ino->ref;
	if (l->x) {
		err = get_xattrs(l, ino->xattr, &n->xattrs);
		if (err)
			return err;
	}
	switch (n->type) {
	case SQK_FILE:
		return keep_file(l, ino, n);
	case SQK_SYMLINK:
		n->size = ino->size;
		return sqk_tree_str(l->t, ino->target, (size_t)ino->size, &n->target);
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		n->dev.major = sqk_dev_major(ino->rdev);
		n->dev.minor = sqk_dev_minor(ino->rdev);
		return 0;
	}
	return 0;
}

static int push_dir(struct loader *l, sqk_nid dir, uint64_t ref)
{
	if (l->ntodo == l->todo_cap) {
		size_t cap = l->todo_cap ? l->todo_cap * 2 : 64;
		struct pending *p = realloc(l->todo, cap * sizeof(*p));

		if (!p)
			return SQK_ERR_NOMEM;
		l->todo = p;
		l->todo_cap = cap;
	}
	l->todo[l->ntodo++] = (struct pending){dir, ref};
	return 0;
}

/* One entry of a directory: a new node, or the node a hard link shares. */
static int keep_entry(struct loader *l, sqk_nid dir, const struct sqk_dir_entry *ent)
{
	struct sqk_node node, *n = &node;
	struct sqk_inode ino;
	sqk_nid id;
	int err;

	if (ent->number < 1 || ent->number > l->count)
		return fail(l, dir, ent->name, ent->name_len, SQK_ERR_CORRUPT,
			    "inode number out of range");
	err = sqk_store_get(l->by_number, ent->number - 1, &id, sizeof(id));
	if (!err && id)
		err = sqk_tree_get(l->t, id, n);
	if (err)
		return err;
	if (id) {
		/* A directory named twice is a loop; a file named twice is a hard link. */
		if (n->type == SQK_DIR || ent->type == SQK_DIR || n->type != ent->type ||
		    n->ref != ent->ref)
			return fail(l, dir, ent->name, ent->name_len, SQK_ERR_CORRUPT,
				    "an inode named twice that is not a hard link");
	} else {
		err = sqk_inode_read(l->img, ent->ref, &ino);
		if (err)
			return fail(l, dir, ent->name, ent->name_len, err, NULL);
		if (sqk_dirent_check(ent, &ino)) {
			sqk_inode_free(&ino);
			return fail(l, dir, ent->name, ent->name_len, SQK_ERR_CORRUPT,
				    "the entry and its inode disagree");
		}
		err = sqk_tree_new(l->t, ent->type, &id, n);
		if (!err)
			err = keep_inode(l, &ino, n);
		if (!err)
			err = sqk_tree_put(l->t, id, n);
		sqk_inode_free(&ino);
		if (err)
			return fail(l, dir, ent->name, ent->name_len, err, NULL);
		err = sqk_store_put(l->by_number, ent->number - 1, &id, sizeof(id));
		if (!err && n->type == SQK_DIR)
			err = push_dir(l, id, ent->ref);
		if (err)
			return err;
	}
	err = sqk_tree_add(l->t, dir, ent->name, ent->name_len, id);
	if (err)
		return fail(l, dir, ent->name, ent->name_len, err, NULL);
	return 0;
}

static int read_dir(struct loader *l, sqk_nid dir, uint64_t ref)
{
	struct sqk_inode ino;
	struct sqk_dir_entry *ents = NULL;
	size_t n = 0, i;
	int err;

	err = sqk_inode_read(l->img, ref, &ino);
	if (err)
		return fail(l, dir, NULL, 0, err, NULL);
	err = sqk_dir_read_all(l->img, &ino, &ents, &n, NULL);
	sqk_inode_free(&ino);
	if (err)
		return fail(l, dir, NULL, 0, err, NULL);
	for (i = 0; !err && i < n; i++)
		err = keep_entry(l, dir, &ents[i]);
	free(ents);
	return err;
}

static int adopt_fragments(struct loader *l)
{
	uint64_t start;
	uint32_t i, word;
	int err;

	for (i = 0; i < l->nfrags; i++) {
		err = sqk_fragment_entry(l->img, i, &start, &word);
		if (!err && (sqk_fmt_block_check(word, l->block_size, SQK_FMT_BLOCK_ANY_LEN) ||
			     !sqk_fmt_block_in_area(start, sqk_fmt_block_size(word), l->area_start,
						    l->area_end)))
			err = SQK_ERR_CORRUPT;
		if (!err)
			err = sqk_data_adopt_fragment(l->dw, start, word);
		if (err) {
			snprintf(l->where, l->where_len, "fragment %u", i);
			snprintf(l->why, l->why_len, "%s", err_text(l, err));
			return err;
		}
	}
	return 0;
}

int sqk_append_load(const struct sqk_append_load *a)
{
	const struct sqk_super *sb = sqk_image_super(a->img);
	struct loader l = {
		.img = a->img,
		.t = a->tree,
		.x = a->xattrs,
		.dw = a->dw,
		.dedup = a->dedup,
		.block_size = sb->block_size,
		.nfrags = sb->fragment_count,
		.count = sb->inode_count,
		.where = a->where,
		.why = a->why,
		.where_len = a->where_len,
		.why_len = a->why_len,
	};
	struct sqk_node root;
	sqk_nid id = SQK_NID_ROOT;
	struct sqk_inode ino;
	int err;

	sqk_image_data_area(a->img, &l.area_start, &l.area_end);
	l.nsets = (uint32_t)sqk_image_table(a->img, SQK_TABLE_XATTR)->entries;
	err = sqk_store_create(a->spill, a->spill->tiny ? 32 : 65536,
			       sqk_spill_share(a->spill, 2, a->spill->tiny ? 64 : 1 << 20),
			       &l.by_number);
	l.sets = calloc(l.nsets ? l.nsets : 1, sizeof(*l.sets));
	l.set_read = calloc(l.nsets ? l.nsets : 1, 1);
	if (!err && (!l.sets || !l.set_read))
		err = SQK_ERR_NOMEM;
	if (err)
		goto out;
	err = adopt_fragments(&l);
	if (err)
		goto out;
	err = sqk_inode_read(a->img, sb->root_inode, &ino);
	if (!err &&
	    (sqk_basic_type(ino.type) != SQK_DIR || ino.number < 1 || ino.number > l.count)) {
		sqk_inode_free(&ino);
		err = SQK_ERR_CORRUPT;
	}
	if (err) {
		fail(&l, 0, NULL, 0, err, "the root inode cannot be read");
		goto out;
	}
	err = sqk_tree_get(a->tree, SQK_NID_ROOT, &root);
	if (!err)
		err = keep_inode(&l, &ino, &root);
	sqk_inode_free(&ino);
	root.flags &= ~SQK_NODE_IMPLICIT;
	if (!err)
		err = sqk_tree_put(a->tree, SQK_NID_ROOT, &root);
	if (err) {
		fail(&l, 0, NULL, 0, err, NULL);
		goto out;
	}
	err = sqk_store_put(l.by_number, ino.number - 1, &id, sizeof(id));
	if (!err)
		err = push_dir(&l, SQK_NID_ROOT, sb->root_inode);
	while (!err && l.ntodo) {
		struct pending p = l.todo[--l.ntodo];

		err = read_dir(&l, p.dir, p.ref);
	}
	if (!err)
		sqk_append_stage("loaded");
out:
	sqk_store_destroy(l.by_number);
	free(l.sets);
	free(l.set_read);
	free(l.todo);
	return err;
}

int sqk_append_kept(struct sqk_tree *t, const char *path)
{
	sqk_nid id = SQK_NID_ROOT;
	struct sqk_node n;
	const char *e;

	if (sqk_tree_get(t, id, &n))
		return 0;
	while (*path) {
		for (e = path; *e && *e != '/'; e++)
			;
		if (e > path) {
			if (n.type != SQK_DIR ||
			    sqk_tree_lookup(t, id, path, (size_t)(e - path), &id) || !id ||
			    sqk_tree_get(t, id, &n))
				return 0;
		}
		path = *e ? e + 1 : e;
	}
	return !!(n.flags & SQK_NODE_KEPT);
}

void sqk_append_super(struct sqk_image *img, const struct sqk_mkfs_opts *o, struct sqk_super *sb)
{
	const struct sqk_super *old = sqk_image_super(img);

	/* The options block stays where it was, and so does the flag that announces it. */
	sb->flags |= old->flags & (SQK_FLAG_COMPRESSOR_OPTIONS | SQK_FLAG_DUPLICATES |
				   SQK_FLAG_ALWAYS_FRAGMENTS);
	if (!(old->flags & SQK_FLAG_NO_FRAGMENTS))
		sb->flags &= ~SQK_FLAG_NO_FRAGMENTS;
	if (!o->set_fstime && !o->have_epoch && old->mkfs_time > sb->mkfs_time)
		sb->mkfs_time = old->mkfs_time;
}

void sqk_append_stage(const char *stage)
{
	const char *want = getenv("SQK_TEST_APPEND_KILL");

	/* A test hook: die at a named moment, as a crash or a power cut would. */
	if (want && strcmp(want, stage) == 0)
		raise(SIGKILL);
}

int sqk_append_sync(struct sqk_file *f, const char *before, const char *after)
{
	int err;

	sqk_append_stage(before);
	err = f->sync(f);
	if (!err)
		sqk_append_stage(after);
	return err;
}
