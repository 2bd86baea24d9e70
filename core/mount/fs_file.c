// SPDX-License-Identifier: BSD-2-Clause
/*
 * Open files. The inode and where each block starts are decoded once at
 * open, so a read at any offset goes straight to its block: a read never
 * walks the block list, and large files read in any order cost the same.
 */
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "format/fmt_block.h"
#include "fs_int.h"
#include "read/data.h"
#include "read/image.h"
#include "util/error.h"

struct sqk_fs_file {
	struct sqk_inode ino;
	uint64_t *pos; /* where block i starts */
};

int sqk_fs_open(struct sqk_fs *fs, uint64_t node, struct sqk_fs_file **out)
{
	struct sqk_inode ino;
	struct sqk_fs_file *f;
	uint64_t at;
	uint32_t i;
	int err;

	*out = NULL;
	err = sqk_fs_node_get(fs, node, &ino, NULL);
	if (err)
		return err;
	if (sqk_basic_type(ino.type) != SQK_FILE)
		return SQK_ERR_ARG;
	f = calloc(1, sizeof(*f));
	if (!f)
		return SQK_ERR_NOMEM;
	err = sqk_fs_read_inode(fs, ino.ref, ino.number, SQK_FILE, &f->ino);
	if (err) {
		free(f);
		return err;
	}
	f->pos = malloc(((size_t)f->ino.nblocks + 1) * sizeof(*f->pos));
	if (!f->pos) {
		sqk_fs_close(f);
		return SQK_ERR_NOMEM;
	}
	/* Sizes are 24 bits and there are at most 2^32 blocks: no overflow. */
	at = f->ino.blocks_start;
	for (i = 0; i < f->ino.nblocks; i++) {
		f->pos[i] = at;
		at += sqk_fmt_block_size(f->ino.blocks[i]);
	}
	f->pos[i] = at;
	*out = f;
	return 0;
}

int sqk_fs_file_of(struct sqk_fs *fs, uint64_t node, struct sqk_fs_file **out)
{
	struct sqk_fs_file *f;
	int err;

	*out = sqk_fs_node_file(fs, node);
	if (*out)
		return 0;
	/* Two threads may both read it; one copy is kept. */
	err = sqk_fs_open(fs, node, &f);
	if (err)
		return err;
	*out = sqk_fs_node_keep_file(fs, node, f);
	return *out ? 0 : SQK_ERR_NOENT;
}

void sqk_fs_close(struct sqk_fs_file *f)
{
	if (!f)
		return;
	sqk_inode_free(&f->ino);
	free(f->pos);
	free(f);
}

uint64_t sqk_fs_file_size(const struct sqk_fs_file *f)
{
	return f->ino.size;
}

int sqk_fs_read_piece(struct sqk_fs *fs, struct sqk_fs_file *f, uint64_t off, size_t len,
		      struct sqk_fs_piece *p)
{
	uint32_t bs = fs->sb->block_size, index, in, blen;
	struct sqk_cache_entry *e = NULL;
	const uint8_t *src = NULL;
	int err;

	memset(p, 0, sizeof(*p));
	if (off >= f->ino.size || len == 0)
		return 0;
	if (len > f->ino.size - off)
		len = (size_t)(f->ino.size - off);
	/* off < size < 2^64, and size / block size blocks at most: index fits. */
	index = (uint32_t)(off / bs);
	in = (uint32_t)(off % bs);
	if (index < f->ino.nblocks) {
		struct sqk_data_cursor c = {&f->ino, index, f->pos[index]};

		err = sqk_data_next(fs->img, &c, &e, &blen);
		if (!err)
			src = e ? e->data : fs->zeros;
	} else {
		err = sqk_data_tail(fs->img, &f->ino, &e, &src, &blen);
	}
	if (!err && in >= blen)
		err = SQK_ERR_CORRUPT;
	if (err) {
		sqk_cache_put(e);
		return err;
	}
	p->data = src + in;
	p->len = blen - in < len ? blen - in : len;
	p->block = src;
	p->block_off = off - in;
	p->block_len = blen;
	p->e = e;
	return 0;
}

void sqk_fs_piece_put(struct sqk_fs_piece *p)
{
	sqk_cache_put(p->e);
	p->e = NULL;
}

int sqk_fs_read(struct sqk_fs *fs, struct sqk_fs_file *f, uint64_t off, void *buf, size_t len,
		size_t *got)
{
	uint8_t *out = buf;
	int err;

	*got = 0;
	while (len > 0) {
		struct sqk_fs_piece p;

		err = sqk_fs_read_piece(fs, f, off, len, &p);
		if (err)
			return err;
		if (p.len == 0)
			break;
		memcpy(out, p.data, p.len);
		sqk_fs_piece_put(&p);
		out += p.len;
		off += p.len;
		len -= p.len;
		*got += p.len;
	}
	return 0;
}
