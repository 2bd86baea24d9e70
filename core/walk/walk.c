// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "read/dir.h"
#include "read/image.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/signals.h"
#include "util/u64set.h"
#include "walk.h"

/* Directories entered, and the first path of every inode with several links. */
struct walk_state {
	struct sqk_walk *w;
	struct sqk_u64set dirs; /* inode numbers of the directories entered */
	struct sqk_hash seen;	/* inode number -> index + 1 into paths */
	char **paths;
	size_t npaths, paths_cap;
	char *path; /* the current path: as long as the tree is deep */
	size_t path_cap;
	struct sqk_dir_entry bad; /* a listing's bad entry, for the error's path */
	int sink_failed;	  /* the error came from the sink: never skipped */
};

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

/* Was number seen as a file's with several links? *path is then its first path. */
static int seen_find(const struct walk_state *st, uint32_t number, const char **path)
{
	uint64_t v = sqk_hash_get(&st->seen, number);

	if (v)
		*path = st->paths[v - 1];
	return v != 0;
}

static int seen_add(struct walk_state *st, uint32_t number, const char *path)
{
	char *copy;

	if (SQK_ARRAY_GROW(st->paths, st->paths_cap, st->npaths + 1))
		return SQK_ERR_NOMEM;
	copy = strdup(path);
	if (!copy)
		return SQK_ERR_NOMEM;
	if (sqk_hash_add(&st->seen, number, st->npaths + 1)) {
		free(copy);
		return SQK_ERR_NOMEM;
	}
	st->paths[st->npaths++] = copy;
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
		if (seen_find(st, ino.number, &first))
			err = SQK_ERR_LOOP;
		if (!err)
			err = sqk_dir_enter(&st->dirs, ino.number, depth + 1, SQK_WALK_MAX_DEPTH);
		if (!err)
			err = walk_dir(st, &ino, plen, depth + 1);
		sqk_inode_free(&ino);
		return err;
	}
	/* A directory's number on a non-directory: a loop. */
	if (sqk_u64set_has(&st->dirs, ino.number))
		err = SQK_ERR_LOOP;
	seen = !err && seen_find(st, ino.number, &first);
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

	if (!w->lost || st->sink_failed || err == SQK_ERR_NOMEM || err == SQK_ERR_INTR)
		return err;
	memset(&f, 0, sizeof(f));
	sqk_fault_set(&f, err, 0, 0, st->path);
	return w->lost(w->lost_ctx, &f);
}

/*
 * The listing is read before the sink hears of the directory: one that
 * cannot be read is left out whole, as unsquashfs leaves it.
 */
static int walk_dir(struct walk_state *st, struct sqk_inode *dir, size_t plen, unsigned depth)
{
	struct sqk_walk *w = st->w;
	struct sqk_dir_entry *ents = NULL;
	size_t n = 0, i;
	int err;

	st->path[plen] = '\0';
	err = sqk_dir_read_all(w->img, dir, &ents, &n, &st->bad);
	if (err) {
		if (err == SQK_ERR_BADNAME || err == SQK_ERR_SEQUENCE)
			append(st, plen, st->bad.name, st->bad.name_len);
		return err;
	}
	w->dirs++;
	err = sink_result(st, w->sink->dir_begin(w->sink, st->path, dir));
	for (i = 0; !err && i < n; i++) {
		err = append(st, plen, ents[i].name, ents[i].name_len);
		if (err)
			break;
		if (!selected(w, st->path, strlen(st->path)))
			continue;
		err = visit(st, &ents[i], plen ? plen + 1 + ents[i].name_len : ents[i].name_len,
			    depth);
		if (err)
			err = skip_lost(st, err);
	}
	free(ents);
	if (err)
		return err;
	st->path[plen] = '\0';
	return sink_result(st, w->sink->dir_end(w->sink, st->path, dir));
}

int sqk_walk(struct sqk_walk *w)
{
	struct walk_state st;
	struct sqk_inode root;
	size_t i;
	int err;

	memset(&st, 0, sizeof(st));
	st.w = w;
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
	if (!err) {
		st.path[0] = '\0';
		err = sqk_dir_enter(&st.dirs, root.number, 0, SQK_WALK_MAX_DEPTH);
	}
	if (!err)
		err = walk_dir(&st, &root, 0, 0);
	/* The walk's own failure, where it was; the sink's came with its story. */
	if (err)
		sqk_fault_set(&w->fault, err, 0, 0, st.path ? st.path : "");
	free(st.path);
	sqk_inode_free(&root);
	for (i = 0; i < st.npaths; i++)
		free(st.paths[i]);
	free(st.paths);
	sqk_hash_release(&st.seen);
	sqk_u64set_free(&st.dirs);
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
