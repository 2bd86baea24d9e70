// SPDX-License-Identifier: BSD-2-Clause
/*
 * What fsck keeps about every inode and directory until the tree is checked:
 * records in the order they were found, the record of each inode number,
 * directories, and the extra edges of hard links. They live in stores
 * (util/store.h) within the image's budget, so an image of any number of
 * inodes is checked in bounded memory; past the budget they go to temporary
 * files. A failure of those ends the run, as a failed read of the image
 * does: the record asked for then reads as zeros, and the passes stop at
 * their next check of fsck_stopped().
 */
#include <string.h>

#include "fsck_int.h"
#include "read/image.h"
#include "util/error.h"
#include "util/store.h"

int sqk_fsck_recs_init(struct sqk_fsck *f)
{
	struct sqk_spill *b = sqk_image_budget(f->img);
	int err;

	f->budget = b;
	err = sqk_store_create(b, 0, 0, &f->recs);
	if (!err)
		err = sqk_store_create(b, 0, 0, &f->map);
	if (!err)
		err = sqk_store_create(b, 0, 0, &f->dirs);
	if (!err)
		err = sqk_store_create(b, 0, 0, &f->links);
	return err;
}

void sqk_fsck_recs_free(struct sqk_fsck *f)
{
	sqk_store_destroy(f->recs);
	sqk_store_destroy(f->map);
	sqk_store_destroy(f->dirs);
	sqk_store_destroy(f->links);
	f->recs = f->map = f->dirs = f->links = NULL;
}

/* A store's failure stops the run; what it was is the budget's to tell. */
void sqk_fsck_fail(struct sqk_fsck *f, int err)
{
	if (!err)
		return;
	pthread_mutex_lock(&f->lock);
	if (!fsck_stopped(f)) {
		__atomic_store_n(&f->fatal, 1, __ATOMIC_RELAXED);
		f->fatal_err = err;
	}
	pthread_mutex_unlock(&f->lock);
}

struct fsck_rec sqk_fsck_rec(struct sqk_fsck *f, uint32_t i)
{
	struct fsck_rec r;
	int err = sqk_store_get(f->recs, i, &r, sizeof(r));

	if (err) {
		sqk_fsck_fail(f, err);
		memset(&r, 0, sizeof(r));
	}
	return r;
}

void sqk_fsck_rec_set(struct sqk_fsck *f, uint32_t i, const struct fsck_rec *r)
{
	sqk_fsck_fail(f, sqk_store_put(f->recs, i, r, sizeof(*r)));
}

uint32_t sqk_fsck_rec_find(struct sqk_fsck *f, uint32_t number)
{
	uint32_t v = 0;
	int err;

	/* Only numbers in 1..inode_count are recorded (the codec's rule). */
	if (!f->map || number == 0 || number > f->sb.inode_count)
		return FSCK_NONE;
	err = sqk_store_get(f->map, number, &v, sizeof(v));
	sqk_fsck_fail(f, err);
	return err || !v ? FSCK_NONE : v - 1;
}

int sqk_fsck_rec_add(struct sqk_fsck *f, const struct fsck_rec *r, uint32_t *index)
{
	uint32_t v = f->nrecs + 1;
	int err;

	if (f->nrecs == UINT32_MAX - 1)
		return SQK_ERR_NOMEM;
	err = sqk_store_put(f->recs, f->nrecs, r, sizeof(*r));
	if (!err)
		err = sqk_store_put(f->map, r->number, &v, sizeof(v));
	if (err) {
		sqk_fsck_fail(f, err);
		return err;
	}
	*index = f->nrecs++;
	return 0;
}

struct fsck_dir sqk_fsck_dir(struct sqk_fsck *f, uint32_t i)
{
	struct fsck_dir d;
	int err = sqk_store_get(f->dirs, i, &d, sizeof(d));

	if (err) {
		sqk_fsck_fail(f, err);
		memset(&d, 0, sizeof(d));
	}
	return d;
}

void sqk_fsck_dir_set(struct sqk_fsck *f, uint32_t i, const struct fsck_dir *d)
{
	sqk_fsck_fail(f, sqk_store_put(f->dirs, i, d, sizeof(*d)));
}

int sqk_fsck_dir_add(struct sqk_fsck *f, const struct fsck_dir *d, uint32_t *index)
{
	int err;

	if (f->ndirs == UINT32_MAX - 1)
		return SQK_ERR_NOMEM;
	err = sqk_store_put(f->dirs, f->ndirs, d, sizeof(*d));
	if (err) {
		sqk_fsck_fail(f, err);
		return err;
	}
	*index = f->ndirs++;
	return 0;
}

void sqk_fsck_link_add(struct sqk_fsck *f, uint32_t from, uint32_t to)
{
	uint32_t e[2] = {from, to};
	int err = sqk_store_put(f->links, f->nlinks, e, sizeof(e));

	sqk_fsck_fail(f, err);
	if (!err)
		f->nlinks++;
}

void sqk_fsck_link(struct sqk_fsck *f, uint64_t k, uint32_t *from, uint32_t *to)
{
	uint32_t e[2] = {0, 0};

	sqk_fsck_fail(f, sqk_store_get(f->links, k, e, sizeof(e)));
	*from = e[0];
	*to = e[1];
}
