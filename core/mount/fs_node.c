// SPDX-License-Identifier: BSD-2-Clause
/*
 * The node table: node id -> inode reference and xattr size, with the
 * kernel's lookup count. Filled by lookups, emptied by forgets, so it
 * holds what the kernel holds and no more: 32 bytes a node (the kernel
 * keeps about a kilobyte for each), in arrays that shrink as forgets empty
 * them, and the heap trimmed once the nodes have halved, so that a daemon
 * whose kernel let a million nodes go gives their memory back.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "format/fmt_table.h"
#include "fs_int.h"
#include "read/image.h"
#include "read/meta.h"
#include "util/error.h"
#include "util/hash.h"

/* What a node keeps once a read or a listing came through it without an open. */
struct fs_extra {
	struct sqk_fs_file *file;
	struct sqk_fs_dir *dir;
};

#define MIN_CAP 16

static struct fs_shard *shard_of(struct sqk_fs *fs, uint64_t id)
{
	return &fs->shard[id % FS_SHARDS];
}

static size_t home(size_t cap, uint64_t id)
{
	struct sqk_hash mask = {.mask = cap - 1};

	return sqk_hash_home(&mask, id / FS_SHARDS);
}

static struct fs_slot *find(struct fs_shard *s, uint64_t id)
{
	size_t i;

	for (i = home(s->cap, id); s->slot[i].id; i = (i + 1) & (s->cap - 1))
		if (s->slot[i].id == id)
			return &s->slot[i];
	return NULL;
}

/* Every node into an array of cap slots; a failed allocation keeps the old one. */
static int rehash(struct fs_shard *s, size_t cap)
{
	struct fs_slot *slot = calloc(cap, sizeof(*slot));
	size_t i, j;

	if (!slot)
		return SQK_ERR_NOMEM;
	for (i = 0; i < s->cap; i++) {
		if (!s->slot[i].id)
			continue;
		for (j = home(cap, s->slot[i].id); slot[j].id; j = (j + 1) & (cap - 1))
			;
		slot[j] = s->slot[i];
	}
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return 0;
}

/* Empty slot i, moving up the nodes after it that would no longer be found. */
static void remove_at(struct fs_shard *s, size_t i)
{
	size_t mask = s->cap - 1, j = i, k;

	s->slot[i].id = 0;
	for (;;) {
		j = (j + 1) & mask;
		if (!s->slot[j].id)
			break;
		k = home(s->cap, s->slot[j].id);
		/* Stays when its home lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->slot[i] = s->slot[j];
		s->slot[j].id = 0;
		i = j;
	}
	s->count--;
	/* An eighth full: half the slots (a failure keeps them). */
	if (s->cap > MIN_CAP && s->count * 8 < s->cap)
		rehash(s, s->cap / 2);
}

int sqk_fs_nodes_init(struct sqk_fs *fs)
{
	unsigned i;

	for (i = 0; i < FS_SHARDS; i++) {
		struct fs_shard *s = &fs->shard[i];

		pthread_mutex_init(&s->lock, NULL);
		s->cap = MIN_CAP;
		s->slot = calloc(s->cap, sizeof(*s->slot));
		if (!s->slot)
			return SQK_ERR_NOMEM;
	}
	return 0;
}

static void extra_free(struct fs_extra *x)
{
	if (!x)
		return;
	sqk_fs_close(x->file);
	sqk_fs_closedir(x->dir);
	free(x);
}

void sqk_fs_nodes_destroy(struct sqk_fs *fs)
{
	unsigned i;
	size_t k;

	for (i = 0; i < FS_SHARDS; i++) {
		struct fs_shard *s = &fs->shard[i];

		for (k = 0; s->slot && k < s->cap; k++)
			if (s->slot[k].id)
				extra_free(s->slot[k].more);
		free(s->slot);
		s->slot = NULL;
		pthread_mutex_destroy(&s->lock);
	}
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
	err = sqk_inode_read_attrs(fs->img, sqk_fmt_export_decode(raw), ino);
	if (err)
		return err;
	if (ino->number != number)
		return SQK_ERR_CORRUPT;
	return xsize ? sqk_fs_xattr_size(fs, ino, xsize) : 0;
}

/* The inode at ref, which a lookup found before: the same inode, or the image changed. */
static int read_again(struct sqk_fs *fs, uint64_t id, uint64_t ref, struct sqk_inode *ino)
{
	int err = sqk_inode_read_attrs(fs->img, ref, ino);

	if (!err && fs_swap(fs, ino->number) != id)
		err = SQK_ERR_CORRUPT;
	return err;
}

int sqk_fs_node_get(struct sqk_fs *fs, uint64_t id, struct sqk_inode *ino, uint32_t *xsize)
{
	struct fs_shard *s = shard_of(fs, id);
	struct fs_slot *n;
	uint64_t ref = 0;
	uint32_t xs = 0;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n) {
		ref = n->ref;
		xs = n->xattr_size;
	}
	pthread_mutex_unlock(&s->lock);
	if (!n)
		return from_export(fs, id, ino, xsize);
	if (xsize)
		*xsize = xs;
	return read_again(fs, id, ref, ino);
}

int sqk_fs_node_peek(struct sqk_fs *fs, uint64_t id, uint64_t ref, struct sqk_inode *ino,
		     uint32_t *xsize)
{
	struct fs_shard *s = shard_of(fs, id);
	struct fs_slot *n;
	uint64_t known = 0;
	int err;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n) {
		known = n->ref;
		*xsize = n->xattr_size;
	}
	pthread_mutex_unlock(&s->lock);
	if (!n)
		return 0;
	if (known != ref)
		return SQK_ERR_CORRUPT;
	err = read_again(fs, id, ref, ino);
	return err ? err : 1;
}

int sqk_fs_node_add(struct sqk_fs *fs, const struct sqk_inode *ino, uint32_t xsize, uint64_t count)
{
	uint64_t id = fs_swap(fs, ino->number);
	struct fs_shard *s = shard_of(fs, id);
	struct fs_slot *n;
	size_t i;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n) {
		if (n->ref != ino->ref)
			err = SQK_ERR_CORRUPT;
		else
			n->nlookup += count;
	} else {
		/* Three quarters full: twice the slots. */
		if ((s->count + 1) * 4 > s->cap * 3)
			err = rehash(s, s->cap * 2);
		if (!err) {
			for (i = home(s->cap, id); s->slot[i].id; i = (i + 1) & (s->cap - 1))
				;
			s->slot[i] = (struct fs_slot){id, ino->ref, count, xsize, NULL};
			s->count++;
			__atomic_add_fetch(&fs->nodes, 1, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

/* Forgets emptied half the table since the last trim: the heap gives its free pages back. */
static void trim(struct sqk_fs *fs)
{
	uint64_t now = __atomic_load_n(&fs->nodes, __ATOMIC_RELAXED);
	uint64_t then = __atomic_load_n(&fs->trimmed, __ATOMIC_RELAXED);

	if (now * 2 > then || then < 4096)
		return;
	if (__atomic_compare_exchange_n(&fs->trimmed, &then, now, 0, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		malloc_trim(0);
}

void sqk_fs_node_forget(struct sqk_fs *fs, uint64_t id, uint64_t count)
{
	struct fs_shard *s = shard_of(fs, id);
	struct fs_extra *gone = NULL;
	struct fs_slot *n;
	uint64_t now;

	/* The root is never looked up, so never forgotten: it stays. */
	if (id == SQK_FS_ROOT)
		return;
	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n && n->nlookup > count) {
		n->nlookup -= count;
		n = NULL;
	} else if (n) {
		gone = n->more;
		remove_at(s, (size_t)(n - s->slot));
	}
	pthread_mutex_unlock(&s->lock);
	extra_free(gone);
	if (!n)
		return;
	now = __atomic_sub_fetch(&fs->nodes, 1, __ATOMIC_RELAXED);
	/* The high-water mark the next trim is measured from. */
	if (now > __atomic_load_n(&fs->trimmed, __ATOMIC_RELAXED))
		__atomic_store_n(&fs->trimmed, now, __ATOMIC_RELAXED);
	trim(fs);
}

/* The node's extra, made when make is set; NULL when the node is unknown (or memory ran out). */
static struct fs_extra *extra_of(struct fs_slot *n, int make)
{
	if (!n->more && make)
		n->more = calloc(1, sizeof(*n->more));
	return n->more;
}

struct sqk_fs_file *sqk_fs_node_file(struct sqk_fs *fs, uint64_t id)
{
	struct fs_shard *s = shard_of(fs, id);
	struct sqk_fs_file *f = NULL;
	struct fs_slot *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n && n->more)
		f = n->more->file;
	pthread_mutex_unlock(&s->lock);
	return f;
}

struct sqk_fs_file *sqk_fs_node_keep_file(struct sqk_fs *fs, uint64_t id, struct sqk_fs_file *f)
{
	struct fs_shard *s = shard_of(fs, id);
	struct sqk_fs_file *kept = NULL;
	struct fs_extra *x;
	struct fs_slot *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	x = n ? extra_of(n, 1) : NULL;
	if (x) {
		if (!x->file)
			x->file = f;
		kept = x->file;
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
	struct fs_slot *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	if (n && n->more)
		d = n->more->dir;
	pthread_mutex_unlock(&s->lock);
	return d;
}

struct sqk_fs_dir *sqk_fs_node_keep_dir(struct sqk_fs *fs, uint64_t id, struct sqk_fs_dir *d)
{
	struct fs_shard *s = shard_of(fs, id);
	struct sqk_fs_dir *kept = NULL;
	struct fs_extra *x;
	struct fs_slot *n;

	pthread_mutex_lock(&s->lock);
	n = find(s, id);
	x = n ? extra_of(n, 1) : NULL;
	if (x) {
		if (!x->dir)
			x->dir = d;
		kept = x->dir;
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
