// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whole blocks into the kernel's page cache. A small read makes us
 * decompress a whole block but reply with a page of it; the kernel's
 * squashfs fills the page cache with the rest of the block at once, and so
 * do we: one thread pushes copies of such blocks to the kernel (FUSE's
 * notify_store), so that the next read of that block needs no request.
 *
 * The push waits for page locks, and a page stays locked while a read of
 * it is queued for a worker: a worker that pushed could wait for a request
 * that only a worker can answer. So workers never push; they hand a copy
 * to this thread and go on, and when its queue is full the block is not
 * pushed at all.
 */
#define FUSE_USE_VERSION 35
#include <fuse_lowlevel.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "serve_int.h"

static void *store_main(void *arg)
{
	struct serve_store *st = arg;

	pthread_mutex_lock(&st->lock);
	for (;;) {
		struct store_slot *slot;
		struct fuse_bufvec bv = FUSE_BUFVEC_INIT(0);

		while (st->count == 0 && !st->stop)
			pthread_cond_wait(&st->cond, &st->lock);
		if (st->count == 0)
			break;
		slot = &st->slot[st->head];
		pthread_mutex_unlock(&st->lock);

		bv.buf[0].mem = slot->buf;
		bv.buf[0].size = slot->len;
		/* Errors mean the kernel has let go of the file or the mount: nothing to do. */
		fuse_lowlevel_notify_store(st->se, slot->ino, slot->off, &bv, 0);

		pthread_mutex_lock(&st->lock);
		st->head = (st->head + 1) % STORE_SLOTS;
		st->count--;
		st->pushed++;
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

int sqk_serve_store_start(struct serve_store *st, struct fuse_session *se, size_t block_size)
{
	unsigned i;

	memset(st, 0, sizeof(*st));
	st->se = se;
	st->cap = block_size;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
	for (i = 0; i < STORE_SLOTS; i++) {
		st->slot[i].buf = malloc(block_size);
		if (!st->slot[i].buf) {
			sqk_serve_store_stop(st);
			return SQK_ERR_NOMEM;
		}
	}
	if (pthread_create(&st->thread, NULL, store_main, st) != 0) {
		sqk_serve_store_stop(st);
		return SQK_ERR_NOMEM;
	}
	st->running = 1;
	return 0;
}

void sqk_serve_store_offer(struct serve_store *st, uint64_t ino, const struct sqk_fs_piece *p)
{
	struct store_slot *slot;

	if (!st->running || p->block_len > st->cap || p->block_len == 0)
		return;
	pthread_mutex_lock(&st->lock);
	if (st->count == STORE_SLOTS) {
		st->dropped++;
		pthread_mutex_unlock(&st->lock);
		return;
	}
	slot = &st->slot[(st->head + st->count) % STORE_SLOTS];
	slot->ino = ino;
	slot->off = p->block_off;
	slot->len = p->block_len;
	memcpy(slot->buf, p->block, p->block_len);
	st->count++;
	pthread_cond_signal(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

void sqk_serve_store_stop(struct serve_store *st)
{
	unsigned i;

	if (!st->cap)
		return;
	if (st->running) {
		pthread_mutex_lock(&st->lock);
		st->stop = 1;
		pthread_cond_signal(&st->cond);
		pthread_mutex_unlock(&st->lock);
		pthread_join(st->thread, NULL);
		st->running = 0;
	}
	for (i = 0; i < STORE_SLOTS; i++) {
		free(st->slot[i].buf);
		st->slot[i].buf = NULL;
	}
	pthread_mutex_destroy(&st->lock);
	pthread_cond_destroy(&st->cond);
	st->cap = 0;
}
