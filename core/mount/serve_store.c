// SPDX-License-Identifier: BSD-2-Clause
/*
 * Whole blocks into the kernel's page cache. A read that takes part of a
 * block makes us decompress all of it but reply with that part; the
 * kernel's squashfs fills the page cache with the whole block at once,
 * and so do we: once it has replied, the thread that read the block
 * pushes all of it to the kernel (FUSE's notify_store), so that the next
 * read of that block needs no request.
 *
 * A block is pushed once, however many readers ask for parts of it at the
 * same time: a block being pushed, or pushed a moment ago, is not pushed
 * again. The thread holds the block in its cache while it pushes, so that
 * a reader whose request came before the push finds it there and it is
 * decompressed once.
 *
 * The push waits for page locks, and a page stays locked while a read of
 * it waits for a thread: were every thread pushing, none would be left to
 * take that read. So pushes at once stay below the threads serving; the
 * threads follow the load, and one of those not pushing is always waiting
 * for the next request, or back to it soon. And a read may need a cache
 * entry while pushes hold theirs: they never hold more than half the
 * entries of a cache. A push that would go past either limit is not made:
 * the rest of the block is read page by page.
 */
#define FUSE_USE_VERSION 35
#include <fuse_lowlevel.h>
#include <string.h>

#include "cache/cache.h"
#include "fs.h"
#include "serve_int.h"
#include "util/elastic.h"

/*
 * With the lock held: is ino's block at off being pushed, or just pushed?
 * No inode is 0, so the empty places of the lists match nothing.
 */
static int known(struct serve_store *st, uint64_t ino, uint64_t off)
{
	unsigned i;

	for (i = 0; i < STORE_PUSHING; i++)
		if (st->pushing[i].ino == ino && st->pushing[i].off == off)
			return 1;
	for (i = 0; i < STORE_RECENT; i++)
		if (st->recent[i].ino == ino && st->recent[i].off == off)
			return 1;
	return 0;
}

/* With the lock held: a free place in the list of pushes, if one more may hold an entry of c. */
static struct store_push *place_for(struct serve_store *st, const struct sqk_cache *c)
{
	struct store_push *free_one = NULL;
	struct sqk_elastic_stats es;
	unsigned i, n = 0, held = 0;

	for (i = 0; i < STORE_PUSHING; i++) {
		if (st->pushing[i].ino == 0) {
			if (!free_one)
				free_one = &st->pushing[i];
			continue;
		}
		n++;
		if (c && st->pushing[i].cache == c)
			held++;
	}
	sqk_elastic_stats(st->workers, &es);
	if (n + 1 >= es.threads || (c && 2 * (held + 1) > sqk_cache_entries(c)))
		return NULL;
	return free_one;
}

void sqk_serve_store_init(struct serve_store *st, struct fuse_session *se)
{
	memset(st, 0, sizeof(*st));
	st->se = se;
	pthread_mutex_init(&st->lock, NULL);
}

void sqk_serve_store_push(struct serve_store *st, uint64_t ino, const struct sqk_fs_piece *p)
{
	const struct sqk_cache *c = p->e ? sqk_cache_of(p->e) : NULL;
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(p->block_len);
	struct store_push *slot;

	if (p->len >= p->block_len)
		return;
	pthread_mutex_lock(&st->lock);
	if (known(st, ino, p->block_off)) {
		st->skipped++;
		pthread_mutex_unlock(&st->lock);
		return;
	}
	slot = place_for(st, c);
	if (!slot) {
		st->dropped++;
		pthread_mutex_unlock(&st->lock);
		return;
	}
	slot->ino = ino;
	slot->off = p->block_off;
	slot->cache = c;
	pthread_mutex_unlock(&st->lock);

	/* A hole's zeros live as long as the file system; a block is held by the caller. */
	bv.buf[0].mem = (void *)p->block;
	/* Errors mean the kernel has let go of the file or the mount: nothing to do. */
	fuse_lowlevel_notify_store(st->se, ino, (off_t)p->block_off, &bv, 0);

	pthread_mutex_lock(&st->lock);
	st->recent[st->recent_next].ino = ino;
	st->recent[st->recent_next].off = p->block_off;
	st->recent_next = (st->recent_next + 1) % STORE_RECENT;
	slot->ino = 0;
	st->pushed++;
	pthread_mutex_unlock(&st->lock);
}

void sqk_serve_store_destroy(struct serve_store *st)
{
	pthread_mutex_destroy(&st->lock);
}
