// SPDX-License-Identifier: BSD-2-Clause
/*
 * Directory handles. The listing is read whole on the first readdir and
 * kept with the handle: offsets are then indexes into it, valid in any
 * order and from any thread, and no metadata block is held while the
 * caller looks the entries up (readdirplus).
 */
#include <stdlib.h>
#include <string.h>

#include "format/fmt_type.h"
#include "fs_int.h"
#include "read/dir.h"
#include "util/array.h"
#include "util/error.h"

struct fs_ent {
	uint64_t ref;
	uint32_t number;
	uint32_t name_off;
	uint16_t name_len;
	uint8_t type; /* basic type */
};

struct sqk_fs_dir {
	pthread_mutex_t lock;
	struct sqk_inode ino;
	int loaded;
	int error; /* the listing broke after count good entries */
	struct fs_ent *ents;
	size_t count, cap;
	char *names;
	size_t names_len, names_cap;
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
	free(d->ents);
	free(d->names);
	free(d);
}

static int append(struct sqk_fs_dir *d, const struct sqk_dir_entry *de)
{
	struct fs_ent *e;

	if (SQK_ARRAY_GROW(d->ents, d->cap, d->count + 1) ||
	    SQK_ARRAY_GROW(d->names, d->names_cap, d->names_len + de->name_len + 1))
		return SQK_ERR_NOMEM;
	e = &d->ents[d->count++];
	e->ref = de->ref;
	e->number = de->number;
	e->type = (uint8_t)de->type;
	e->name_len = (uint16_t)de->name_len;
	e->name_off = (uint32_t)d->names_len;
	memcpy(d->names + d->names_len, de->name, de->name_len + 1);
	d->names_len += de->name_len + 1;
	return 0;
}

/* Everything up to the first broken entry is served; the error comes after it. */
static void load(struct sqk_fs *fs, struct sqk_fs_dir *d)
{
	struct sqk_dir_iter it;
	struct sqk_dir_entry de;
	int err;

	err = sqk_dir_iter_open(fs->img, &d->ino, &it);
	while (!err) {
		err = sqk_dir_iter_next(&it, &de);
		if (err <= 0)
			break;
		err = append(d, &de);
	}
	sqk_dir_iter_close(&it);
	d->error = err;
	d->loaded = 1;
}

int sqk_fs_readdir(struct sqk_fs *fs, struct sqk_fs_dir *d, uint64_t off, struct sqk_fs_dirent *ent)
{
	const struct fs_ent *e;
	int ret = 1;

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
	if (!d->loaded)
		load(fs, d);
	if (off - 2 < d->count) {
		e = &d->ents[off - 2];
		ent->name = d->names + e->name_off;
		ent->name_len = e->name_len;
		ent->number = e->number;
		ent->type = sqk_fmt_type_mode(e->type);
		ent->ref = e->ref;
	} else {
		ret = d->error;
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}
