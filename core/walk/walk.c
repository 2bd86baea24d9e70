// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "read/dir.h"
#include "read/image.h"
#include "util/array.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/store.h"
#include "walk.h"

/*
 * Directories entered, and the first path of every inode with several
 * links, kept in stores (util/store.h): a walk of a tree of any size keeps
 * a bit a directory and a path a hard-linked inode within the image's
 * budget, the rest in temporary files.
 */
struct walk_state {
	struct sqk_walk *w;
	struct sqk_spill *budget;
	struct sqk_store *dirs;	    /* a bit by inode number: the directories entered */
	struct sqk_store_hash seen; /* inode number -> offset + 1 into paths */
	struct sqk_store *paths;    /* each path: its length (4 bytes), then its bytes */
	uint64_t paths_end;
	char *first; /* the path read back last */
	size_t first_cap;
	char *path; /* the current path: as long as the tree is deep */
	size_t path_cap;
	int sink_failed;  /* the error came from the sink: never skipped */
	int store_failed; /* from a temporary file: never skipped either */
};

/* A store's result: its failures end the walk whatever the mode. */
static int store_result(struct walk_state *st, int err)
{
	if (err < 0)
		st->store_failed = 1;
	return err;
}

/* A sink callback's result; its failures end the walk whatever the mode. */
static int sink_result(struct walk_state *st, int err)
{
	if (err) {
		struct sqk_sink *s = st->w->sink;

		st->sink_failed = 1;
		if (s->fault.err) {
			st->w->fault = s->fault;
			/* The image's failure at the entry the walk is at. */
			if (!s->fault.output && !*s->fault.path)
				sqk_fault_path(&st->w->fault, st->path);
		}
	}
	return err;
}

/* Was number seen as a file's with several links? 1 and *path its first path, 0, or an error. */
static int seen_find(struct walk_state *st, uint32_t number, const char **path)
{
	uint64_t v;
	uint32_t len;
	int r = sqk_store_hash_get(&st->seen, number, &v);

	if (r <= 0)
		return store_result(st, r);
	r = sqk_store_read(st->paths, v - 1, &len, sizeof(len));
	if (!r && SQK_ARRAY_GROW(st->first, st->first_cap, (size_t)len + 1))
		return SQK_ERR_NOMEM;
	if (!r)
		r = sqk_store_read(st->paths, v - 1 + sizeof(len), st->first, len);
	if (r)
		return store_result(st, r);
	st->first[len] = '\0';
	*path = st->first;
	return 1;
}

static int seen_add(struct walk_state *st, uint32_t number, const char *path)
{
	uint32_t len = (uint32_t)strlen(path);
	uint64_t at = st->paths_end;
	int err;

	err = sqk_store_write(st->paths, at, &len, sizeof(len));
	if (!err)
		err = sqk_store_write(st->paths, at + sizeof(len), path, len);
	if (!err)
		err = sqk_store_hash_set(&st->seen, number, at + 1);
	if (err)
		return store_result(st, err);
	st->paths_end += sizeof(len) + len;
	return 0;
}

int sqk_walk_selected(char *const *select, unsigned nselect, const char *path, size_t len)
{
	int way = 0;
	unsigned i;

	if (!nselect)
		return SQK_SEL_INSIDE;
	if (len == 0)
		return SQK_SEL_WAY;
	for (i = 0; i < nselect; i++) {
		const char *s = select[i];
		size_t slen = strlen(s);

		if (slen <= len && memcmp(s, path, slen) == 0 && (path[slen] == '/' || !path[slen]))
			return SQK_SEL_INSIDE;
		if (len < slen && memcmp(s, path, len) == 0 && s[len] == '/')
			way = 1;
	}
	return way ? SQK_SEL_WAY : SQK_SEL_NONE;
}

static int selected(const struct sqk_walk *w, const char *path, size_t len)
{
	unsigned i;

	if (sqk_walk_selected(w->select, w->nselect, path, len) != SQK_SEL_NONE)
		return 1;
	/* An entry wanted alone, or one of its parents. */
	for (i = 0; i < w->nway; i++)
		if (!strncmp(w->way[i], path, len) && (!w->way[i][len] || w->way[i][len] == '/'))
			return 1;
	return 0;
}

static int walk_dir(struct walk_state *st, struct sqk_inode *dir, size_t plen, unsigned depth);

static int visit(struct walk_state *st, const struct sqk_dir_entry *ent, size_t plen,
		 unsigned depth)
{
	struct sqk_walk *w = st->w;
	struct sqk_inode ino;
	const char *first = NULL;
	int err, seen;

	if (sqk_sig_caught())
		return SQK_ERR_INTR;
	err = sqk_dirent_inode(w->img, ent, &ino);
	if (err)
		return err;
	if (ent->type == SQK_DIR) {
		/* A file's number on a directory, or a directory reached twice: a loop. */
		err = seen_find(st, ino.number, &first);
		if (err > 0)
			err = SQK_ERR_LOOP;
		if (!err)
			err = store_result(st, sqk_dir_enter(st->dirs, ino.number, depth + 1,
							     SQK_WALK_MAX_DEPTH));
		if (!err)
			err = walk_dir(st, &ino, plen, depth + 1);
		sqk_inode_free(&ino);
		return err;
	}
	/* A directory's number on a non-directory: a loop. */
	err = store_result(st, sqk_store_bit(st->dirs, ino.number, 0));
	if (err > 0)
		err = SQK_ERR_LOOP;
	seen = err ? 0 : seen_find(st, ino.number, &first);
	if (seen < 0)
		err = seen;
	if (!err && seen) {
		w->links++;
		err = sink_result(st, w->sink->node(w->sink, st->path, &ino, first));
	} else if (!err) {
		if (ino.nlink > 1)
			err = seen_add(st, ino.number, st->path);
		if (!err) {
			if (ent->type == SQK_FILE)
				w->files++;
			else
				w->others++;
			err = sink_result(st, w->sink->node(w->sink, st->path, &ino, NULL));
		}
	}
	sqk_inode_free(&ino);
	return err;
}

static int append(struct walk_state *st, size_t plen, const char *name, size_t len)
{
	if (SQK_ARRAY_GROW(st->path, st->path_cap, plen + 1 + len + 1))
		return SQK_ERR_NOMEM;
	if (plen)
		st->path[plen++] = '/';
	memcpy(st->path + plen, name, len);
	st->path[plen + len] = '\0';
	return 0;
}

/*
 * An entry that could not be read, with --keep-going: reported, and the
 * walk goes on. Anything else (the sink's output, memory, a signal) ends it.
 */
static int skip_lost(struct walk_state *st, int err)
{
	struct sqk_walk *w = st->w;
	struct sqk_fault f;

	if (!w->lost || st->sink_failed || st->store_failed || err == SQK_ERR_NOMEM ||
	    err == SQK_ERR_INTR)
		return err;
	memset(&f, 0, sizeof(f));
	sqk_fault_set(&f, err, 0, 0, st->path);
	return w->lost(w->lost_ctx, &f);
}

/* A directory's entries, a piece of its listing at a time. */
static int walk_listing(struct walk_state *st, struct sqk_inode *dir, size_t plen, unsigned depth,
			struct sqk_dir_list *l)
{
	struct sqk_walk *w = st->w;
	size_t i;
	int err;

	w->dirs++;
	err = sink_result(st, w->sink->dir_begin(w->sink, st->path, dir));
	while (!err && l->n) {
		for (i = 0; !err && i < l->n; i++) {
			const struct sqk_dir_entry *e = &l->ents[i];

			err = append(st, plen, e->name, e->name_len);
			if (err)
				break;
			if (!selected(w, st->path, strlen(st->path)))
				continue;
			err = visit(st, e, plen ? plen + 1 + e->name_len : e->name_len, depth);
			if (err)
				err = skip_lost(st, err);
		}
		/* Read whole once already: a piece that fails now is the directory's failure. */
		if (!err && l->error) {
			st->path[plen] = '\0';
			err = l->error;
		}
		if (!err)
			err = sqk_dir_list_next(l);
	}
	if (err)
		return err;
	st->path[plen] = '\0';
	return sink_result(st, w->sink->dir_end(w->sink, st->path, dir));
}

/*
 * The listing is read before the sink hears of the directory: one that
 * cannot be read is left out whole, as unsquashfs leaves it. It is then
 * visited a piece at a time, each read again when its turn comes, so that
 * a directory of millions of entries costs a piece's memory. The listing's
 * state is on the heap: the walk takes a frame a level, and trees are
 * thousands of levels deep.
 */
static int walk_dir(struct walk_state *st, struct sqk_inode *dir, size_t plen, unsigned depth)
{
	struct sqk_dir_list *l = malloc(sizeof(*l));
	int err;

	if (!l)
		return SQK_ERR_NOMEM;
	st->path[plen] = '\0';
	err = sqk_dir_list_open(st->w->img, dir, 1, l);
	if (err) {
		if (err == SQK_ERR_BADNAME || err == SQK_ERR_SEQUENCE)
			append(st, plen, l->bad.name, l->bad.name_len);
		free(l);
		return err;
	}
	err = walk_listing(st, dir, plen, depth, l);
	sqk_dir_list_close(l);
	free(l);
	return err;
}

int sqk_walk(struct sqk_walk *w)
{
	struct walk_state st;
	struct sqk_inode root;
	int err;

	memset(&st, 0, sizeof(st));
	st.w = w;
	st.budget = sqk_image_budget(w->img);
	sqk_store_hash_init(&st.seen, st.budget);
	memset(&w->fault, 0, sizeof(w->fault));
	memset(&w->sink->fault, 0, sizeof(w->sink->fault));
	w->sink->lost = w->lost;
	w->sink->lost_ctx = w->lost_ctx;
	err = sqk_inode_read(w->img, sqk_image_super(w->img)->root_inode, &root);
	if (!err && sqk_basic_type(root.type) != SQK_DIR) {
		sqk_inode_free(&root);
		err = SQK_ERR_CORRUPT;
	}
	if (err) {
		sqk_fault_set(&w->fault, err, 0, 0, "");
		return err;
	}
	err = SQK_ARRAY_GROW(st.path, st.path_cap, 4096) ? SQK_ERR_NOMEM : 0;
	if (!err)
		err = sqk_store_create(st.budget, 0, 0, &st.dirs);
	if (!err)
		err = sqk_store_create(st.budget, 0, 0, &st.paths);
	if (!err) {
		st.path[0] = '\0';
		err = store_result(&st, sqk_dir_enter(st.dirs, root.number, 0, SQK_WALK_MAX_DEPTH));
	}
	if (!err)
		err = walk_dir(&st, &root, 0, 0);
	/*
	 * The walk's own failure, where it was (a temporary file's, where that
	 * is); the sink's came with its story.
	 */
	if (err && st.store_failed && sqk_spill_failed(st.budget, err, &w->fault))
		;
	else if (err)
		sqk_fault_set(&w->fault, err, 0, 0, st.path ? st.path : "");
	free(st.path);
	free(st.first);
	sqk_inode_free(&root);
	sqk_store_hash_release(&st.seen);
	sqk_store_destroy(st.paths);
	sqk_store_destroy(st.dirs);
	return err;
}

int sqk_resolve(struct sqk_image *img, const char *path, struct sqk_inode *ino)
{
	const char *p = path;
	int err;

	err = sqk_inode_read(img, sqk_image_super(img)->root_inode, ino);
	while (!err) {
		struct sqk_dir_entry ent;
		size_t len;

		while (*p == '/')
			p++;
		if (!*p)
			return 0;
		len = strcspn(p, "/");
		if (sqk_basic_type(ino->type) != SQK_DIR) {
			err = SQK_ERR_NOTDIR;
			break;
		}
		err = sqk_dir_lookup(img, ino, p, len, &ent);
		sqk_inode_free(ino);
		if (!err)
			err = sqk_inode_read(img, ent.ref, ino);
		p += len;
	}
	sqk_inode_free(ino);
	return err;
}
