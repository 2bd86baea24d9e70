// SPDX-License-Identifier: BSD-2-Clause
/*
 * The survey: every table's extent and metadata blocks, the fragment
 * table, and a walk of every inode with a counting sink.
 */
#include <stdio.h>
#include <string.h>

#include "format/fmt_block.h"
#include "format/format.h"
#include "read/data.h"
#include "read/image.h"
#include "read/inode.h"
#include "read/meta.h"
#include "survey.h"
#include "util/error.h"
#include "util/u64set.h"
#include "walk.h"

struct counter {
	struct sqk_sink sink;
	struct sqk_survey_figures *s;
	uint32_t block_size;
	struct sqk_u64set blocks, tails; /* block positions and tails seen */
};

static int sink_dir(struct sqk_sink *sink, const char *path, struct sqk_inode *ino)
{
	struct counter *c = (struct counter *)sink;

	c->s->types[SQK_DIR]++;
	if (sqk_inode_extended(ino))
		c->s->extended++;
	return 0;
}

static int sink_dir_end(struct sqk_sink *sink, const char *path, struct sqk_inode *ino)
{
	return 0;
}

/* A regular file's blocks and tail: what is stored, shared, sparse. */
static int count_file(struct counter *c, const struct sqk_inode *ino)
{
	uint32_t bs = c->block_size, i;
	uint64_t pos = ino->blocks_start;
	struct sqk_survey_figures *s = c->s;
	int r;

	s->file_bytes += ino->size;
	for (i = 0; i < ino->nblocks; i++) {
		uint32_t size = sqk_fmt_block_size(ino->blocks[i]);
		uint32_t len = sqk_fmt_block_len(ino->size, i, bs);

		if (size == 0) {
			s->sparse_blocks++;
			s->sparse_bytes += len;
			continue;
		}
		r = sqk_u64set_add(&c->blocks, pos);
		if (r < 0)
			return r;
		if (r) {
			s->dedup_blocks++;
			s->dedup_bytes += len;
			s->dedup_stored += size;
		} else {
			s->data_blocks++;
			s->data_stored += size;
		}
		pos += size;
	}
	if (ino->frag_index != SQK_INVALID_FRAG) {
		uint32_t tail = sqk_inode_tail(ino, bs);

		r = sqk_u64set_add(&c->tails, (uint64_t)ino->frag_index << 32 | ino->frag_offset);
		if (r < 0)
			return r;
		if (r) {
			s->dedup_tails++;
			s->dedup_tail_bytes += tail;
		} else {
			s->tails++;
			s->tail_bytes += tail;
		}
	}
	return 0;
}

static int sink_node(struct sqk_sink *sink, const char *path, struct sqk_inode *ino,
		     const char *link_to)
{
	struct counter *c = (struct counter *)sink;
	unsigned type = sqk_basic_type(ino->type);

	/* A hard link: the inode was counted at its first path. */
	if (link_to) {
		c->s->hard_links++;
		return 0;
	}
	c->s->types[type]++;
	if (sqk_inode_extended(ino))
		c->s->extended++;
	return type == SQK_FILE ? count_file(c, ino) : 0;
}

/* The names of the tables in messages ("inode table: ..."). */
static const char *const table_names[SQK_TABLE_COUNT] = {
	[SQK_TABLE_INODE] = "inode",   [SQK_TABLE_DIR] = "directory", [SQK_TABLE_FRAG] = "fragment",
	[SQK_TABLE_EXPORT] = "export", [SQK_TABLE_ID] = "id",	      [SQK_TABLE_XATTR] = "xattr",
};

/* Where the data area, the options block and each table lie; each table's metadata blocks. */
static int count_tables(struct sqk_image *img, struct sqk_survey *s)
{
	const struct sqk_super *sb = sqk_image_super(img);
	const struct sqk_layout *l = sqk_image_layout(img);
	struct sqk_survey_figures *f = &s->f;
	struct sqk_file *file = sqk_image_file(img);
	int i;

	f->file_size = file->size(file);
	f->options_start = SQK_SUPER_SIZE;
	f->options_size = l->options_size;
	f->data_start = l->data_start;
	f->data_size = sb->inode_table - l->data_start;
	f->xattr_ids = l->t[SQK_TABLE_XATTR].entries;
	f->has_xattrs = !(sb->flags & SQK_FLAG_NO_XATTRS) && sb->xattr_table != SQK_INVALID_TABLE;
	for (i = 0; i < SQK_TABLE_COUNT; i++) {
		const struct sqk_table *lt = &l->t[i];
		struct sqk_survey_table *t = &s->t[i];
		struct sqk_meta_count mc;
		int err;

		if (!lt->present || (i == SQK_TABLE_EXPORT && !(sb->flags & SQK_FLAG_EXPORTABLE)))
			continue;
		s->present[i] = 1;
		t->start = lt->start;
		t->size = lt->end - lt->start;
		if (i >= SQK_TABLE_FRAG) {
			t->lookup = lt->ptr;
			t->lookup_blocks = lt->nblocks;
		}
		err = sqk_meta_count(img, lt->start, lt->blocks_end, &mc);
		if (err) {
			snprintf(s->err_where, sizeof(s->err_where), "%s table", table_names[i]);
			return err;
		}
		t->metadata_blocks = mc.blocks;
		t->uncompressed = mc.uncompressed;
		t->stored = mc.stored;
		f->metadata_blocks += mc.blocks;
		f->metadata_uncompressed += mc.uncompressed;
		f->metadata_stored += mc.stored;
	}
	return 0;
}

static int count_fragments(struct sqk_image *img, struct sqk_survey *s)
{
	uint32_t i;

	for (i = 0; i < sqk_image_super(img)->fragment_count; i++) {
		uint64_t start;
		uint32_t size;
		int err = sqk_fragment_entry(img, i, &start, &size);

		if (err) {
			snprintf(s->err_where, sizeof(s->err_where), "fragment %u", i);
			return err;
		}
		s->f.fragment_stored += sqk_fmt_block_size(size);
	}
	return 0;
}

static int walk_tree(struct sqk_image *img, struct sqk_survey *s)
{
	struct counter c;
	struct sqk_walk w;
	int err;

	memset(&c, 0, sizeof(c));
	c.sink.dir_begin = sink_dir;
	c.sink.dir_end = sink_dir_end;
	c.sink.node = sink_node;
	c.s = &s->f;
	c.block_size = sqk_image_super(img)->block_size;
	memset(&w, 0, sizeof(w));
	w.img = img;
	w.sink = &c.sink;
	err = sqk_walk(&w);
	/* A path in the tree is said from the root. */
	if (err)
		snprintf(s->err_where, sizeof(s->err_where), "%s%s",
			 *w.fault.path == '/' ? "" : "/", w.fault.path);
	sqk_u64set_free(&c.blocks);
	sqk_u64set_free(&c.tails);
	return err;
}

double sqk_ratio(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

int sqk_survey(struct sqk_image *img, struct sqk_survey *s)
{
	const struct sqk_super *sb = sqk_image_super(img);
	struct sqk_survey_figures *f = &s->f;
	int err, i;

	memset(s, 0, sizeof(*s));
	err = count_tables(img, s);
	if (!err)
		err = count_fragments(img, s);
	if (!err)
		err = walk_tree(img, s);
	if (err)
		return err;
	for (i = SQK_DIR; i < SQK_FMT_BASIC_TYPES; i++)
		f->inodes += f->types[i];
	f->stored = f->data_stored + f->fragment_stored;
	f->data_ratio = sqk_ratio(f->stored, f->file_bytes);
	f->fragment_fill = sqk_ratio(f->tail_bytes, (uint64_t)sb->fragment_count * sb->block_size);
	f->metadata_ratio = sqk_ratio(f->metadata_stored, f->metadata_uncompressed);
	return 0;
}
