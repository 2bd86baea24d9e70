// SPDX-License-Identifier: BSD-2-Clause
/*
 * fsck: the run, the problems found and their paths, and the checks of the
 * tree as a whole (reachability, loops, link counts), which need every
 * inode and every listing first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck_int.h"
#include "read/image.h"
#include "util/array.h"
#include "util/error.h"
#include "util/file.h"
#include "util/pool.h"

static const char *const check_names[C_COUNT] = {
	[C_SUPER] = "superblock",
	[C_COMP] = "compressor",
	[C_META] = "metadata",
	[C_INODE] = "inode",
	[C_NUMBER] = "inode-number",
	[C_ORPHAN] = "orphan",
	[C_NLINK] = "nlink",
	[C_DIR_HEADER] = "dir-header",
	[C_DIR_NAME] = "dir-name",
	[C_DIR_ORDER] = "dir-order",
	[C_DIR_ENTRY] = "dir-entry",
	[C_DIR_TYPE] = "dir-type",
	[C_DIR_SIZE] = "dir-size",
	[C_DIR_PARENT] = "dir-parent",
	[C_DIR_LOOP] = "dir-loop",
	[C_DIR_INDEX] = "dir-index",
	[C_DATA] = "data",
	[C_FRAGMENT] = "fragment",
	[C_SPARSE] = "sparse",
	[C_ID] = "id",
	[C_XATTR] = "xattr",
	[C_EXPORT] = "export",
	[C_KERNEL] = "kernel-decode",
	[C_VERITY] = "verity",
};

/* Reachability states of a record. */
enum { R_UNKNOWN, R_VISITING, R_REACHABLE, R_UNREACHABLE };

const char *sqk_fsck_why(int err)
{
	if (err == SQK_ERR_COMPRESSOR)
		return "invalid compressed data, or more than a block of it";
	if (err == SQK_ERR_CORRUPT)
		return "bad size or position";
	return sqk_strerror(err);
}

int sqk_fsck_fatal(struct sqk_fsck *f, int err)
{
	if (err != SQK_ERR_IO && err != SQK_ERR_NOMEM)
		return 0;
	pthread_mutex_lock(&f->lock);
	if (!fsck_stopped(f)) {
		__atomic_store_n(&f->fatal, 1, __ATOMIC_RELAXED);
		f->fatal_err = err;
	}
	pthread_mutex_unlock(&f->lock);
	return 1;
}

static void add_err(struct sqk_fsck *f, int keyed, uint64_t key, uint32_t rec, const char *table,
		    enum fsck_check check, const char *fmt, va_list ap)
{
	unsigned max = f->o.max_per_check ? f->o.max_per_check : 100;
	struct sqk_fsck_err *e;
	char *detail;

	pthread_mutex_lock(&f->lock);
	f->counts.errors++;
	if (!keyed)
		key = f->seq++;
	if (++f->per_check[check] > max)
		goto out;
	if (SQK_ARRAY_GROW(f->errs, f->errcap, f->nerrs + 1))
		goto out;
	if (vasprintf(&detail, fmt, ap) < 0)
		goto out;
	e = &f->errs[f->nerrs++];
	e->key = key;
	e->rec = rec;
	e->table = table;
	e->check = check;
	e->detail = detail;
out:
	pthread_mutex_unlock(&f->lock);
}

void sqk_fsck_err(struct sqk_fsck *f, uint32_t rec, const char *table, enum fsck_check check,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_err(f, 0, 0, rec, table, check, fmt, ap);
	va_end(ap);
}

void sqk_fsck_err_key(struct sqk_fsck *f, uint64_t key, uint32_t rec, const char *table,
		      enum fsck_check check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_err(f, 1, key, rec, table, check, fmt, ap);
	va_end(ap);
}

uint64_t sqk_fsck_reserve_keys(struct sqk_fsck *f, uint64_t n)
{
	uint64_t k;

	pthread_mutex_lock(&f->lock);
	k = f->seq;
	f->seq += n;
	pthread_mutex_unlock(&f->lock);
	return k;
}

static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

struct fsck_rec *sqk_fsck_rec_by_number(struct sqk_fsck *f, uint32_t number)
{
	uint32_t i;

	if (!f->mapcap)
		return NULL;
	for (i = hash32(number) & (f->mapcap - 1); f->map[i]; i = (i + 1) & (f->mapcap - 1))
		if (f->recs[f->map[i] - 1].number == number)
			return &f->recs[f->map[i] - 1];
	return NULL;
}

static int map_grow(struct sqk_fsck *f)
{
	uint32_t cap = f->mapcap ? f->mapcap * 2 : 1024, i, j;
	uint32_t *map = calloc(cap, sizeof(*map));

	if (!map)
		return SQK_ERR_NOMEM;
	for (j = 0; j < f->mapcap; j++) {
		if (!f->map[j])
			continue;
		for (i = hash32(f->recs[f->map[j] - 1].number) & (cap - 1); map[i];
		     i = (i + 1) & (cap - 1))
			;
		map[i] = f->map[j];
	}
	free(f->map);
	f->map = map;
	f->mapcap = cap;
	return 0;
}

/* Add a record; its number must not be there yet. Memory grows with what the image holds. */
int sqk_fsck_rec_add(struct sqk_fsck *f, const struct fsck_rec *r, uint32_t *index)
{
	uint32_t i;
	int err;

	if (f->nrecs == UINT32_MAX - 1)
		return SQK_ERR_NOMEM;
	if (f->nrecs == f->reccap) {
		uint32_t cap = f->reccap ? f->reccap * 2 : 256;
		struct fsck_rec *p = realloc(f->recs, (size_t)cap * sizeof(*p));

		if (!p)
			return SQK_ERR_NOMEM;
		f->recs = p;
		f->reccap = cap;
	}
	if ((uint64_t)(f->nrecs + 1) * 2 > f->mapcap) {
		err = map_grow(f);
		if (err)
			return err;
	}
	f->recs[f->nrecs] = *r;
	for (i = hash32(r->number) & (f->mapcap - 1); f->map[i]; i = (i + 1) & (f->mapcap - 1))
		;
	f->map[i] = f->nrecs + 1;
	*index = f->nrecs++;
	return 0;
}

/* The image path of a record, from the entries naming it; 0 or -1 when there is none. */
static int rec_path(struct sqk_fsck *f, uint32_t rec, char *out, size_t cap)
{
	char name[SQK_NAME_MAX_BUF];
	uint32_t cur = rec, len, steps = 0;
	size_t pos = cap - 1;

	out[pos] = '\0';
	while (cur != f->root) {
		const struct fsck_rec *r = &f->recs[cur];

		if (r->up == FSCK_NONE || r->entry == FSCK_NO_REF || ++steps > 1024)
			return -1;
		if (sqk_fsck_entry_name(f, r->entry, name, &len) != 0 || len + 1 > pos)
			return -1;
		pos -= len;
		memcpy(out + pos, name, len);
		out[--pos] = '/';
		cur = r->up;
	}
	if (pos == cap - 1)
		out[--pos] = '/';
	memmove(out, out + pos, cap - pos);
	return 0;
}

static int cmp_err(const void *a, const void *b)
{
	const struct sqk_fsck_err *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static void emit(struct sqk_fsck *f)
{
	unsigned max = f->o.max_per_check ? f->o.max_per_check : 100;
	char path[4096 + 256 + 2];
	size_t i;
	int c;

	if (f->nerrs)
		qsort(f->errs, f->nerrs, sizeof(*f->errs), cmp_err);
	for (i = 0; i < f->nerrs; i++) {
		struct sqk_fsck_err *e = &f->errs[i];
		char *detail = NULL;

		if (!f->o.report)
			continue;
		if (e->rec == FSCK_NONE) {
			f->o.report(f->o.ctx, e->table, check_names[e->check], e->detail);
			continue;
		}
		if (f->img && rec_path(f, e->rec, path, sizeof(path)) == 0) {
			f->o.report(f->o.ctx, path, check_names[e->check], e->detail);
			continue;
		}
		/* Not reachable by name: say which inode it is. */
		if (asprintf(&detail, "inode %u: %s", f->recs[e->rec].number, e->detail) < 0)
			detail = NULL;
		f->o.report(f->o.ctx, T_INODE, check_names[e->check], detail ? detail : e->detail);
		free(detail);
	}
	for (c = 0; c < C_COUNT && f->o.report; c++) {
		char more[96];

		if (f->per_check[c] <= max)
			continue;
		snprintf(more, sizeof(more), "%llu more problems of this kind are not listed",
			 (unsigned long long)(f->per_check[c] - max));
		f->o.report(f->o.ctx, "fsck", check_names[c], more);
	}
}

/* Is record i reachable from the root? Walks up the directories listing it. */
static int reach_dir(struct sqk_fsck *f, uint32_t i)
{
	uint32_t cur = i, steps = 0, s;
	int state;

	/* Go up until something is known, marking the way. */
	while (f->recs[cur].state == R_UNKNOWN) {
		struct fsck_rec *r = &f->recs[cur];

		if (cur == f->root) {
			r->state = R_REACHABLE;
			break;
		}
		r->state = R_VISITING;
		if (r->dir == FSCK_NONE || f->dirs[r->dir].tree_parent == FSCK_NONE) {
			r->state = R_UNREACHABLE;
			break;
		}
		cur = f->dirs[r->dir].tree_parent;
		steps++;
	}
	state = f->recs[cur].state;
	if (state == R_VISITING) {
		/* cur is on a cycle of directories each listed inside the next. */
		sqk_fsck_err(f, FSCK_NONE, T_DIR, C_DIR_LOOP,
			     "directory inode %u is listed inside its own subtree",
			     f->recs[cur].number);
		state = R_UNREACHABLE;
	}
	/* Everything on the way shares the answer. */
	for (cur = i, s = 0; s <= steps && f->recs[cur].state == R_VISITING; s++) {
		f->recs[cur].state = (uint8_t)state;
		if (f->recs[cur].dir == FSCK_NONE)
			break;
		cur = f->dirs[f->recs[cur].dir].tree_parent;
		if (cur == FSCK_NONE)
			break;
	}
	return state == R_REACHABLE;
}

static void check_tree(struct sqk_fsck *f)
{
	uint32_t i, n = f->nrecs;
	size_t k;

	if (f->root == FSCK_NONE)
		return;
	for (i = 0; i < f->ndirs; i++)
		reach_dir(f, f->dirs[i].rec);
	for (i = 0; i < n; i++) {
		struct fsck_rec *r = &f->recs[i];

		if (r->dir != FSCK_NONE)
			continue;
		r->state = r->up != FSCK_NONE && f->recs[r->up].state == R_REACHABLE
				   ? R_REACHABLE
				   : R_UNREACHABLE;
	}
	for (k = 0; k < f->nlinks; k++)
		if (f->recs[f->links[k][0]].state == R_REACHABLE)
			f->recs[f->links[k][1]].state = R_REACHABLE;

	/* Each directory names, as its parent, the directory that lists it. */
	for (i = 0; i < f->ndirs; i++) {
		struct fsck_dir *d = &f->dirs[i];

		if (d->tree_parent != FSCK_NONE && d->parent != f->recs[d->tree_parent].number)
			sqk_fsck_err(f, d->rec, T_INODE, C_DIR_PARENT,
				     "the parent inode number is %u, but inode %u lists it",
				     d->parent, f->recs[d->tree_parent].number);
	}
	for (i = 0; i < n; i++) {
		struct fsck_rec *r = &f->recs[i];
		struct fsck_dir *d = r->dir != FSCK_NONE ? &f->dirs[r->dir] : NULL;

		if (r->state != R_REACHABLE) {
			/*
			 * Only what no listing names is reported: what sits in an orphaned
			 * directory goes with it. After a listing was cut short, what it
			 * would have named is unknown.
			 */
			if (r->up == FSCK_NONE && !f->listing_cut)
				sqk_fsck_err(f, i, T_INODE, C_ORPHAN,
					     "no directory lists this %s; it is not reachable "
					     "from the root",
					     d ? "directory" : "inode");
			continue;
		}
		if (!d) {
			if (r->nlink != r->links && (!f->listing_cut || r->links > r->nlink))
				sqk_fsck_err(f, i, T_INODE, C_NLINK,
					     "link count %u, but %u directory entries name it",
					     r->nlink, r->links);
			continue;
		}
		/*
		 * mksquashfs and squashkit write 2 + subdirectories; squashfs-tools-ng
		 * writes 2 + entries. Either is accepted.
		 */
		if (d->listed && r->nlink != 2 + d->subdirs && r->nlink != 2 + d->entries)
			sqk_fsck_err(
				f, i, T_INODE, C_NLINK,
				"link count %u, but the directory has %u subdirectories and %u "
				"entries (accepted: %u or %u)",
				r->nlink, d->subdirs, d->entries, 2 + d->subdirs, 2 + d->entries);
	}
}

static void check_root(struct sqk_fsck *f)
{
	struct fsck_rec *r;
	uint32_t idx;

	if (f->root == FSCK_NONE && f->scan_cut &&
	    sqk_fsck_inode_at(f, f->sb.root_inode, 0, &idx) == 0)
		f->root = idx;
	if (f->root == FSCK_NONE) {
		sqk_fsck_err(
			f, FSCK_NONE, T_SUPER, C_SUPER,
			"the root inode reference (block %llu, offset %u) does not point at an "
			"inode",
			(unsigned long long)SQK_REF_BLOCK(f->sb.root_inode),
			SQK_REF_OFFSET(f->sb.root_inode));
		return;
	}
	r = &f->recs[f->root];
	if (r->dir == FSCK_NONE) {
		sqk_fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "the root inode %u is not a directory",
			     r->number);
		f->root = FSCK_NONE;
	}
	/* The root's parent field was checked with its inode (sqk_fmt_inode_check_links). */
}

int sqk_fsck_create(struct sqk_file *file, const struct sqk_fsck_opts *opts, struct sqk_fsck **out)
{
	struct sqk_fsck *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f) {
		sqk_file_destroy(file);
		return SQK_ERR_NOMEM;
	}
	f->o = *opts;
	f->file = file;
	f->root = FSCK_NONE;
	/* Decoding inodes out of order is bounded, whatever the image says. */
	f->fallback_left = 64ull << 20;
	pthread_mutex_init(&f->lock, NULL);
	*out = f;
	return 0;
}

int sqk_fsck_run(struct sqk_fsck *f)
{
	int err;

	err = sqk_fsck_super(f);
	if (err < 0 || fsck_stopped(f))
		return fsck_stopped(f) ? f->fatal_err : err;
	if (err == 0) {
		if (f->o.threads) {
			f->pool = sqk_pool_create(f->o.threads, 0);
			if (!f->pool)
				return SQK_ERR_NOMEM;
		}
		sqk_fsck_fragments(f);
		sqk_fsck_data_wait(f); /* the files' tails are checked against the fragments */
		if (!fsck_stopped(f))
			sqk_fsck_inodes(f);
		if (!fsck_stopped(f))
			check_root(f);
		if (!fsck_stopped(f))
			sqk_fsck_directories(f);
		sqk_fsck_data_wait(f);
		if (!fsck_stopped(f))
			sqk_fsck_data_shared(f);
		if (!fsck_stopped(f))
			sqk_fsck_export(f);
		if (!fsck_stopped(f))
			sqk_fsck_xattrs(f);
		if (!fsck_stopped(f))
			check_tree(f);
	}
	if (!fsck_stopped(f))
		sqk_fsck_verity_rest(f);
	if (fsck_stopped(f))
		return f->fatal_err;
	emit(f);
	return 0;
}

void sqk_fsck_counts(const struct sqk_fsck *f, struct sqk_fsck_counts *out)
{
	*out = f->counts;
}

void sqk_fsck_take_image(struct sqk_fsck *f, struct sqk_image **img, struct sqk_file **file)
{
	*img = f->img;
	*file = f->file;
	f->img = NULL;
	f->file = NULL;
}

void sqk_fsck_destroy(struct sqk_fsck *f)
{
	size_t i;
	uint32_t j;

	if (!f)
		return;
	sqk_pool_destroy(f->pool);
	sqk_fsck_data_free(f);
	if (f->inode_ms) {
		sqk_fsck_ms_free(f->inode_ms);
		free(f->inode_ms);
	}
	sqk_image_destroy(f->img);
	sqk_file_destroy(f->file);
	if (f->comp)
		f->comp->destroy(f->comp);
	for (i = 0; i < f->nerrs; i++)
		free(f->errs[i].detail);
	free(f->errs);
	for (j = 0; j < f->ndirs; j++) {
		uint32_t k;

		for (k = 0; k < f->dirs[j].nindex; k++)
			free(f->dirs[j].index[k].name);
		free(f->dirs[j].index);
	}
	free(f->dirs);
	free(f->recs);
	free(f->map);
	free(f->links);
	free(f->frag.pos);
	free(f->exp.pos);
	free(f->ids.pos);
	free(f->xids.pos);
	free(f->frags);
	free(f->verity_named);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
