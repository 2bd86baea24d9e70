// SPDX-License-Identifier: BSD-2-Clause
/*
 * Directory handles. A listing is read as it is asked for, an entry at a
 * time, by an iterator kept with the handle between calls (it holds no
 * metadata block then): offsets are entry indexes, so the next call goes on
 * where the last stopped, and one for an earlier offset reads the listing
 * again from its start. The iterator goes once the listing's end is
 * reached; a directory of millions of entries costs the handle a few
 * hundred bytes, never its listing.
 */
#include <stdlib.h>
#include <string.h>

#include "format/fmt_type.h"
#include "fs_int.h"
#include "read/dir.h"
#include "util/error.h"

/*
 * Where a listing is being read: the iterator gives entry at next, and the
 * entry before it is kept, for the call after one whose buffer it did not
 * fit (the next starts at it again).
 */
struct place {
	struct sqk_dir_iter it;
	struct sqk_dir_entry last;
};

struct sqk_fs_dir {
	pthread_mutex_t lock;
	struct sqk_inode ino;
	struct place *it; /* NULL when none is kept */
	uint64_t at;
	/* Once known: the listing ends (or breaks, with end_err) at entry end. */
	int ended, end_err;
	uint64_t end;
};

int sqk_fs_opendir(struct sqk_fs *fs, uint64_t node, struct sqk_fs_dir **out)
{
	struct sqk_fs_dir *d;
	int err;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return SQK_ERR_NOMEM;
	err = sqk_fs_node_get(fs, node, &d->ino, NULL);
	if (!err && sqk_basic_type(d->ino.type) != SQK_DIR)
		err = SQK_ERR_NOTDIR;
	if (err) {
		free(d);
		return err;
	}
	pthread_mutex_init(&d->lock, NULL);
	*out = d;
	return 0;
}

int sqk_fs_dir_of(struct sqk_fs *fs, uint64_t node, struct sqk_fs_dir **out)
{
	struct sqk_fs_dir *d;
	int err;

	*out = sqk_fs_node_dir(fs, node);
	if (*out)
		return 0;
	err = sqk_fs_opendir(fs, node, &d);
	if (err)
		return err;
	*out = sqk_fs_node_keep_dir(fs, node, d);
	return *out ? 0 : SQK_ERR_NOENT;
}

void sqk_fs_closedir(struct sqk_fs_dir *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->lock);
	if (d->it)
		sqk_dir_iter_close(&d->it->it);
	free(d->it);
	free(d);
}

/* The iterator's listing is over (r: 0 at its end, or the error): it goes. */
static void ended(struct sqk_fs_dir *d, int r)
{
	d->ended = 1;
	d->end = d->at;
	d->end_err = r;
	sqk_dir_iter_close(&d->it->it);
	free(d->it);
	d->it = NULL;
}

/* Entry idx into de: 1, 0 past the end, or the error the listing breaks with there. */
static int entry_at(struct sqk_fs *fs, struct sqk_fs_dir *d, uint64_t idx, struct sqk_dir_entry *de)
{
	int r;

	if (d->ended && idx >= d->end)
		return d->end_err;
	if (d->it && d->at && idx == d->at - 1) {
		*de = d->it->last;
		return 1;
	}
	if (!d->it || idx < d->at) {
		if (!d->it && !(d->it = malloc(sizeof(*d->it))))
			return SQK_ERR_NOMEM;
		r = sqk_dir_iter_open(fs->img, &d->ino, &d->it->it);
		if (r) {
			free(d->it);
			d->it = NULL;
			return r;
		}
		d->at = 0;
	}
	for (;;) {
		r = sqk_dir_iter_next(&d->it->it, de);
		if (r <= 0) {
			ended(d, r);
			return r;
		}
		if (d->at++ == idx)
			break;
	}
	d->it->last = *de;
	/* Nothing held between calls: the caller may look the entry up. */
	sqk_dir_iter_close(&d->it->it);
	return 1;
}

int sqk_fs_readdir(struct sqk_fs *fs, struct sqk_fs_dir *d, uint64_t off, struct sqk_fs_dirent *ent)
{
	struct sqk_dir_entry de;
	int ret;

	memset(ent, 0, sizeof(*ent));
	ent->type = S_IFDIR;
	if (off == 0) {
		ent->name = ".";
		ent->name_len = 1;
		ent->number = d->ino.number;
		return 1;
	}
	if (off == 1) {
		/* As the kernel: the parent number the inode stores, the root's too. */
		ent->name = "..";
		ent->name_len = 2;
		ent->number = d->ino.parent;
		return 1;
	}
	pthread_mutex_lock(&d->lock);
	ret = entry_at(fs, d, off - 2, &de);
	pthread_mutex_unlock(&d->lock);
	if (ret != 1)
		return ret;
	memcpy(ent->buf, de.name, de.name_len + 1);
	ent->name = ent->buf;
	ent->name_len = de.name_len;
	ent->number = de.number;
	ent->type = sqk_fmt_type_mode(de.type);
	ent->ref = de.ref;
	return 1;
}
