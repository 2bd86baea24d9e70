// SPDX-License-Identifier: BSD-2-Clause
/*
 * The node table: node id -> inode (its reference and attributes), with
 * the kernel's lookup count. Filled by lookups, emptied by forgets, so it
 * holds what the kernel holds and no more.
 */
#include <stdlib.h>
#include <string.h>

#include "format/fmt_table.h"
#include "fs_int.h"
#include "read/image.h"
#include "read/meta.h"
#include "util/error.h"

static struct fs_shard *shard_of(struct sqk_fs *fs, uint64_t id)
{
	return &fs->shard[id % FS_SHARDS];
}

static size_t bucket_of(const struct fs_shard *s, uint64_t id)
{
	return (size_t)((id / FS_SHARDS) * 0x9e3779b97f4a7c15ull >> 32) & (s->nbuckets - 1);
}

static struct fs_node *find(struct fs_shard *s, uint64_t id)
{
	struct fs_node *n;

	for (n = s->bucket[bucket_of(s, id)]; n; n = n->next)
		if (n->id == id)
			return n;
	return NULL;
}

int sqk_fs_nodes_init(struct sqk_fs *fs)
{
	unsigned i;

	for (i = 0; i < FS_SHARDS; i++) {
		struct fs_shard *s = &fs->shard[i];

		pthread_mutex_init(&s->lock, NULL);
		s->nbuckets = 16;
		s->bucket = calloc(s->nbuckets, sizeof(*s->bucket));
		if (!s->bucket)
			return SQK_ERR_NOMEM;
	}
	return 0;
}

void sqk_fs_nodes_destroy(struct sqk_fs *fs)
{
	unsigned i;
	size_t b;

	for (i = 0; i < FS_SHARDS; i++) {
		struct fs_shard *s = &fs->shard[i];

		for (b = 0; s->bucket && b < s->nbuckets; b++) {
			struct fs_node *n = s->bucket[b], *next;

			for (; n; n = next) {
				next = n->next;
				sqk_fs_close(n->file);
				sqk_fs_closedir(n->dir);
				free(n);
			}
		}
		free(s->bucket);
		s->bucket = NULL;
		pthread_mutex_destroy(&s->lock);
	}
}

/* Twice the buckets once there are more nodes than buckets; a failed grow keeps the old. */
static void grow(struct fs_shard *s)
{
	size_t n = s->nbuckets * 2, b;
	struct fs_node **nb = calloc(n, sizeof(*nb));
	struct fs_shard t = {.nbuckets = n, .bucket = nb};

	if (!nb)
		return;
	for (b = 0; b < s->nbuckets; b++) {
		struct fs_node *x = s->bucket[b], *next;

		for (; x; x = next) {
			size_t k = bucket_of(&t, x->id);

			next = x->next;
			x->next = nb[k];
			nb[k] = x;
		}
	}
	free(s->bucket);
	s->bucket = nb;
	s->nbuckets = n;
}

void sqk_fs_strip(struct sqk_inode *ino)
{
	sqk_inode_free(ino);
	ino->nblocks = 0;
}

/*
 * A node the table does not hold: the kernel never names one, but if it
 * did, the export table can still say where its inode is.
 */
static int from_export(struct sqk_fs *fs, uint64_t id, struct sqk_inode *ino, uint32_t *xsize)
{
	uint64_t number = fs_swap(fs, id);
	uint8_t raw[SQK_FMT_EXPORT_SIZE];
	int err;

	if (!fs->exportable || number == 0 || number > fs->sb->inode_count)
		return SQK_ERR_NOENT;
	err = sqk_meta_table_entry(fs->img, SQK_TABLE_EXPORT, number - 1, raw);
	if (err)
		return err;
	err = sqk_inode_read(fs->img, sqk_fmt_export_decode(raw), ino);
	if (err)
		return err;
	sqk_fs_strip(ino);
	if (ino->number != number)
		return SQK_ERR_CORRUPT;
	return xsize ? sqk_fs_xattr_size(fs, ino, xsize) : 0;
}

int sqk_fs_node_get(struct sqk_fs *fs, uint64_t id, struct sqk_inode *ino, uint32_t *xsize)
{
	struct fs_shard *s = shard_of(fs, id);
	struct fs_node *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n) {
		*ino = n->ino;
		if (xsize)
			*xsize = n->xattr_size;
	}
	pthread_mutex_unlock(&s->lock);
	return n ? 0 : from_export(fs, id, ino, xsize);
}

int sqk_fs_node_peek(struct sqk_fs *fs, uint64_t id, uint64_t ref, struct sqk_inode *ino,
		     uint32_t *xsize)
{
	struct fs_shard *s = shard_of(fs, id);
	struct fs_node *n;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n) {
		ret = n->ino.ref == ref ? 1 : SQK_ERR_CORRUPT;
		*ino = n->ino;
		*xsize = n->xattr_size;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int sqk_fs_node_add(struct sqk_fs *fs, const struct sqk_inode *ino, uint32_t xsize, uint64_t count)
{
	uint64_t id = fs_swap(fs, ino->number);
	struct fs_shard *s = shard_of(fs, id);
	struct fs_node *n, *fresh;
	int err = 0;

	/* Allocated outside the lock; freed again when another thread was first. */
	fresh = calloc(1, sizeof(*fresh));
	if (!fresh)
		return SQK_ERR_NOMEM;
	fresh->id = id;
	/* A copy without what the caller's inode owns. */
	fresh->ino = *ino;
	fresh->ino.blocks = NULL;
	fresh->ino.target = NULL;
	fresh->ino.nblocks = 0;
	fresh->xattr_size = xsize;
	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n) {
		if (n->ino.ref != ino->ref)
			err = SQK_ERR_CORRUPT;
		else
			n->nlookup += count;
	} else {
		size_t b = bucket_of(s, id);

		fresh->nlookup = count;
		fresh->next = s->bucket[b];
		s->bucket[b] = fresh;
		fresh = NULL;
		if (++s->count > s->nbuckets)
			grow(s);
	}
	pthread_mutex_unlock(&s->lock);
	free(fresh);
	return err;
}

void sqk_fs_node_forget(struct sqk_fs *fs, uint64_t id, uint64_t count)
{
	struct fs_shard *s = shard_of(fs, id);
	struct fs_node **pp, *n = NULL;

	/* The root is never looked up, so never forgotten: it stays. */
	if (id == SQK_FS_ROOT)
		return;
	pthread_mutex_lock(&s->lock);
	for (pp = &s->bucket[bucket_of(s, id)]; *pp; pp = &(*pp)->next) {
		if ((*pp)->id != id)
			continue;
		n = *pp;
		if (n->nlookup > count) {
			n->nlookup -= count;
			n = NULL;
		} else {
			*pp = n->next;
			s->count--;
		}
		break;
	}
	pthread_mutex_unlock(&s->lock);
	if (n) {
		sqk_fs_close(n->file);
		sqk_fs_closedir(n->dir);
	}
	free(n);
}

struct sqk_fs_file *sqk_fs_node_file(struct sqk_fs *fs, uint64_t id)
{
	struct fs_shard *s = shard_of(fs, id);
	struct sqk_fs_file *f = NULL;
	struct fs_node *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n)
		f = n->file;
	pthread_mutex_unlock(&s->lock);
	return f;
}

struct sqk_fs_file *sqk_fs_node_keep_file(struct sqk_fs *fs, uint64_t id, struct sqk_fs_file *f)
{
	struct fs_shard *s = shard_of(fs, id);
	struct sqk_fs_file *kept = NULL;
	struct fs_node *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n) {
		if (!n->file)
			n->file = f;
		kept = n->file;
	}
	pthread_mutex_unlock(&s->lock);
	if (kept != f)
		sqk_fs_close(f);
	return kept;
}

struct sqk_fs_dir *sqk_fs_node_dir(struct sqk_fs *fs, uint64_t id)
{
	struct fs_shard *s = shard_of(fs, id);
	struct sqk_fs_dir *d = NULL;
	struct fs_node *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n)
		d = n->dir;
	pthread_mutex_unlock(&s->lock);
	return d;
}

struct sqk_fs_dir *sqk_fs_node_keep_dir(struct sqk_fs *fs, uint64_t id, struct sqk_fs_dir *d)
{
	struct fs_shard *s = shard_of(fs, id);
	struct sqk_fs_dir *kept = NULL;
	struct fs_node *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n) {
		if (!n->dir)
			n->dir = d;
		kept = n->dir;
	}
	pthread_mutex_unlock(&s->lock);
	if (kept != d)
		sqk_fs_closedir(d);
	return kept;
}

uint64_t sqk_fs_nodes(struct sqk_fs *fs)
{
	uint64_t total = 0;
	unsigned i;

	for (i = 0; i < FS_SHARDS; i++) {
		pthread_mutex_lock(&fs->shard[i].lock);
		total += fs->shard[i].count;
		pthread_mutex_unlock(&fs->shard[i].lock);
	}
	return total;
}
