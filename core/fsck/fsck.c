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
#include "util/store.h"

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

/* The image path of a record, from the entries naming it; 0 or -1 when there is none. */
static int rec_path(struct sqk_fsck *f, uint32_t rec, char *out, size_t cap)
{
	char name[SQK_NAME_MAX_BUF];
	uint32_t cur = rec, len, steps = 0;
	size_t pos = cap - 1;

	out[pos] = '\0';
	while (cur != f->root) {
		struct fsck_rec r = sqk_fsck_rec(f, cur);

		if (r.up == FSCK_NONE || r.entry == FSCK_NO_REF || ++steps > 1024 ||
		    fsck_stopped(f))
			return -1;
		if (sqk_fsck_entry_name(f, r.entry, name, &len) != 0 || len + 1 > pos)
			return -1;
		pos -= len;
		memcpy(out + pos, name, len);
		out[--pos] = '/';
		cur = r.up;
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
		if (asprintf(&detail, "inode %u: %s", sqk_fsck_rec(f, e->rec).number, e->detail) <
		    0)
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

/* The directory listing record i, for reachability: FSCK_NONE at a file or a top. */
static uint32_t tree_parent(struct sqk_fsck *f, const struct fsck_rec *r)
{
	return r->dir == FSCK_NONE ? FSCK_NONE : sqk_fsck_dir(f, r->dir).tree_parent;
}

/* Is record i reachable from the root? Walks up the directories listing it. */
static int reach_dir(struct sqk_fsck *f, uint32_t i)
{
	uint32_t cur = i, steps = 0, s;
	struct fsck_rec r = sqk_fsck_rec(f, cur);
	int state;

	/* Go up until something is known, marking the way. */
	while (r.state == R_UNKNOWN && !fsck_stopped(f)) {
		uint32_t up;

		if (cur == f->root) {
			r.state = R_REACHABLE;
			sqk_fsck_rec_set(f, cur, &r);
			break;
		}
		up = tree_parent(f, &r);
		r.state = up == FSCK_NONE ? R_UNREACHABLE : R_VISITING;
		sqk_fsck_rec_set(f, cur, &r);
		if (up == FSCK_NONE)
			break;
		cur = up;
		r = sqk_fsck_rec(f, cur);
		steps++;
	}
	state = r.state;
	if (state == R_VISITING) {
		/* cur is on a cycle of directories each listed inside the next. */
		sqk_fsck_err(f, FSCK_NONE, T_DIR, C_DIR_LOOP,
			     "directory inode %u is listed inside its own subtree", r.number);
		state = R_UNREACHABLE;
	}
	/* Everything on the way shares the answer. */
	for (cur = i, s = 0; s <= steps && !fsck_stopped(f); s++) {
		r = sqk_fsck_rec(f, cur);
		if (r.state != R_VISITING)
			break;
		r.state = (uint8_t)state;
		sqk_fsck_rec_set(f, cur, &r);
		if (r.dir == FSCK_NONE)
			break;
		cur = tree_parent(f, &r);
		if (cur == FSCK_NONE)
			break;
	}
	return state == R_REACHABLE;
}

/* Every record, and each file as reachable as the directory its first entry is in. */
static void reach_all(struct sqk_fsck *f)
{
	uint32_t i, n = f->nrecs, from, to;
	uint64_t k;

	for (i = 0; i < f->ndirs && !fsck_stopped(f); i++)
		reach_dir(f, sqk_fsck_dir(f, i).rec);
	for (i = 0; i < n && !fsck_stopped(f); i++) {
		struct fsck_rec r = sqk_fsck_rec(f, i);

		if (r.dir != FSCK_NONE)
			continue;
		r.state = r.up != FSCK_NONE && sqk_fsck_rec(f, r.up).state == R_REACHABLE
				  ? R_REACHABLE
				  : R_UNREACHABLE;
		sqk_fsck_rec_set(f, i, &r);
	}
	for (k = 0; k < f->nlinks && !fsck_stopped(f); k++) {
		sqk_fsck_link(f, k, &from, &to);
		if (sqk_fsck_rec(f, from).state == R_REACHABLE) {
			struct fsck_rec r = sqk_fsck_rec(f, to);

			r.state = R_REACHABLE;
			sqk_fsck_rec_set(f, to, &r);
		}
	}
}

static void check_tree(struct sqk_fsck *f)
{
	uint32_t i, n = f->nrecs;

	if (f->root == FSCK_NONE)
		return;
	reach_all(f);

	/* Each directory names, as its parent, the directory that lists it. */
	for (i = 0; i < f->ndirs && !fsck_stopped(f); i++) {
		struct fsck_dir d = sqk_fsck_dir(f, i);
		uint32_t number;

		if (d.tree_parent == FSCK_NONE)
			continue;
		number = sqk_fsck_rec(f, d.tree_parent).number;
		if (d.parent != number)
			sqk_fsck_err(f, d.rec, T_INODE, C_DIR_PARENT,
				     "the parent inode number is %u, but inode %u lists it",
				     d.parent, number);
	}
	for (i = 0; i < n && !fsck_stopped(f); i++) {
		struct fsck_rec r = sqk_fsck_rec(f, i);
		struct fsck_dir d = {0};

		if (r.dir != FSCK_NONE)
			d = sqk_fsck_dir(f, r.dir);
		if (r.state != R_REACHABLE) {
			/*
			 * Only what no listing names is reported: what sits in an orphaned
			 * directory goes with it. After a listing was cut short, what it
			 * would have named is unknown.
			 */
			if (r.up == FSCK_NONE && !f->listing_cut)
				sqk_fsck_err(f, i, T_INODE, C_ORPHAN,
					     "no directory lists this %s; it is not reachable "
					     "from the root",
					     r.dir != FSCK_NONE ? "directory" : "inode");
			continue;
		}
		if (r.dir == FSCK_NONE) {
			if (r.nlink != r.links && (!f->listing_cut || r.links > r.nlink))
				sqk_fsck_err(f, i, T_INODE, C_NLINK,
					     "link count %u, but %u directory entries name it",
					     r.nlink, r.links);
			continue;
		}
		/*
		 * mksquashfs and squashkit write 2 + subdirectories; squashfs-tools-ng
		 * writes 2 + entries. Either is accepted.
		 */
		if (d.listed && r.nlink != 2 + d.subdirs && r.nlink != 2 + d.entries)
			sqk_fsck_err(
				f, i, T_INODE, C_NLINK,
				"link count %u, but the directory has %u subdirectories and %u "
				"entries (accepted: %u or %u)",
				r.nlink, d.subdirs, d.entries, 2 + d.subdirs, 2 + d.entries);
	}
}

static void check_root(struct sqk_fsck *f)
{
	struct fsck_rec r;
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
	r = sqk_fsck_rec(f, f->root);
	if (r.dir == FSCK_NONE) {
		sqk_fsck_err(f, FSCK_NONE, T_SUPER, C_SUPER, "the root inode %u is not a directory",
			     r.number);
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
		err = sqk_fsck_recs_init(f);
		if (err)
			return err;
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

int sqk_fsck_temp_failed(const struct sqk_fsck *f, int err, struct sqk_fault *fault)
{
	return f->budget && sqk_spill_failed(f->budget, err, fault);
}

void sqk_fsck_counts(const struct sqk_fsck *f, struct sqk_fsck_counts *out)
{
	*out = f->counts;
}

void sqk_fsck_take_image(struct sqk_fsck *f, struct sqk_image **img, struct sqk_file **file)
{
	/* The stores go first: they draw on the image's budget. */
	sqk_pool_destroy(f->pool);
	f->pool = NULL;
	sqk_fsck_data_free(f);
	sqk_fsck_recs_free(f);
	*img = f->img;
	*file = f->file;
	f->img = NULL;
	f->file = NULL;
}

void sqk_fsck_destroy(struct sqk_fsck *f)
{
	size_t i;

	if (!f)
		return;
	sqk_pool_destroy(f->pool);
	/* The stores first: they draw on the image's budget. */
	sqk_fsck_data_free(f);
	sqk_fsck_recs_free(f);
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
	free(f->frag.pos);
	free(f->exp.pos);
	free(f->ids.pos);
	free(f->xids.pos);
	free(f->frags);
	free(f->verity_named);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
