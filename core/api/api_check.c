// SPDX-License-Identifier: BSD-2-Clause
/* Verifying an image: fsck's run, its problems kept as data. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_int.h"
#include "fsck/fsck.h"
#include "read/image_verity.h"
#include "util/pool.h"
#include "verity/verity_check.h"

struct sqk_report {
	struct sqk_problem *list;
	size_t n, cap;
	struct sqk_check_counts counts;
	int nomem;
	/* The checker's image and the file under it, kept for sqk_report_image(). */
	struct sqk_image *img;
	struct sqk_file *file;
	/* With a root hash: the tree checked, the stretches of the image it found bad. */
	int verity;
	struct sqk_verity_info vinfo;
	struct sqk_fsck_bad *bad;
	size_t nbad, badcap;
	uint64_t vproblems; /* problems of the tree itself, kept before fsck's */
};

static char *dup_or_flag(struct sqk_report *r, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		r->nomem = 1;
	return d;
}

static void keep(void *ctx, const char *path, const char *check, const char *detail)
{
	struct sqk_report *r = ctx;
	struct sqk_problem *p;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct sqk_problem *l = realloc(r->list, cap * sizeof(*l));

		if (!l) {
			r->nomem = 1;
			return;
		}
		r->list = l;
		r->cap = cap;
	}
	p = &r->list[r->n++];
	p->path = dup_or_flag(r, path);
	p->check = dup_or_flag(r, check);
	p->detail = dup_or_flag(r, detail);
}

/* A bad data block, or the data blocks under a bad hash block: a stretch of the image for fsck. */
static void bad_stretch(struct sqk_report *r, uint64_t first, uint64_t n, const char *why)
{
	struct sqk_fsck_bad *b;

	if (r->nbad && r->bad[r->nbad - 1].end == first * SQK_VERITY_BLOCK &&
	    !strcmp(r->bad[r->nbad - 1].why, why)) {
		r->bad[r->nbad - 1].end += n * SQK_VERITY_BLOCK;
		return;
	}
	if (r->nbad == r->badcap) {
		size_t cap = r->badcap ? 2 * r->badcap : 16;

		b = realloc(r->bad, cap * sizeof(*b));
		if (!b) {
			r->nomem = 1;
			return;
		}
		r->bad = b;
		r->badcap = cap;
	}
	b = &r->bad[r->nbad++];
	b->start = first * SQK_VERITY_BLOCK;
	b->end = (first + n) * SQK_VERITY_BLOCK;
	snprintf(b->why, sizeof(b->why), "%s", why);
}

static void on_bad(void *ctx, const struct sqk_verity_bad *b)
{
	struct sqk_report *r = ctx;
	char words[200];

	sqk_verity_bad_text(b, words, sizeof(words));
	if (b->level < 0) {
		bad_stretch(r, b->block, 1, words);
		return;
	}
	keep(r, "verity hash tree", "verity", words);
	r->vproblems++;
	if (b->why != SQK_VERITY_SPARE) {
		/* The blocks under it cannot be read through the tree: the files there are named.
		 */
		snprintf(words, sizeof(words),
			 "hash block %llu of level %d, which covers it, does not match the tree",
			 (unsigned long long)b->block, b->level);
		bad_stretch(r, b->covers, b->ncovers, words);
	}
}

/*
 * The tree of the image in f (placed) against the root hash o gives, and
 * the signature: problems kept, bad stretches noted for fsck. 0, or an
 * error, said, when the check could not be made.
 */
static int check_tree(struct sqk_report *r, struct sqk_file *f, const char *name,
		      const struct sqk_open_opts *o, unsigned threads)
{
	const struct sqk_api_verity *v = &o->verity;
	struct sqk_verity_where w;
	struct sqk_verity_area *a;
	const char *why, *which;
	char hex[SQK_VERITY_HEX_MAX];
	uint64_t n;
	int err;

	r->verity = 1;
	errno = 0;
	err = sqk_image_verity_area(f, sqk_api_verity_where(o, &w), &a, &why);
	if (err == SQK_ERR_IO || err == SQK_ERR_NOMEM || err == SQK_ERR_ARG)
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0,
				    w.hash_path ? w.hash_path : name, why ? "dm-verity: %s" : NULL,
				    why);
	if (err) {
		keep(r, "verity superblock", "verity", why ? why : sqk_strerror(err));
		r->vproblems++;
		return 0;
	}
	sqk_api_verity_info(&a->p, a->root, a->h.digest, a->g.end - a->p.hash_offset, !a->own_hash,
			    &r->vinfo);
	errno = 0;
	err = sqk_verity_check(a, f, threads, on_bad, r, &n);
	sqk_verity_area_free(a);
	if (err)
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0,
				    w.hash_path ? w.hash_path : name, NULL);
	if (!v->sig[0])
		return 0;
	sqk_verity_hex(w.root, w.root_len, hex);
	errno = 0;
	err = sqk_api_verity_signature(hex, v->sig, v->cert, &why, &which);
	if (err == SQK_ERR_CORRUPT) {
		keep(r, v->sig, "verity-signature", why);
		r->vproblems++;
	} else if (err) {
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, which, why ? "%s" : NULL,
				    why);
	}
	return 0;
}

/* Only the verity problems of fsck's, when the tree alone was asked for. */
static void verity_only(struct sqk_report *r)
{
	size_t i, k = 0;

	for (i = 0; i < r->n; i++) {
		if (!strncmp(r->list[i].check, "verity", 6)) {
			r->list[k++] = r->list[i];
			continue;
		}
		free((char *)r->list[i].path);
		free((char *)r->list[i].check);
		free((char *)r->list[i].detail);
	}
	r->n = k;
}

/* Check the image in f (taken); tree_only: its dm-verity tree alone. */
static int check_file(struct sqk_file *f, const char *name, const struct sqk_open_opts *opts,
		      unsigned threads, int tree_only, struct sqk_report **out)
{
	struct sqk_open_opts o;
	struct sqk_fsck_opts fo = {0};
	struct sqk_fsck_counts c;
	struct sqk_report *r;
	struct sqk_fsck *fsck = NULL;
	int err;

	*out = NULL;
	sqk_api_open_defaults(opts, &o);
	if (tree_only && !o.verity.on) {
		sqk_file_destroy(f);
		return sqk_api_fail(SQK_ERR_ARG, 0, name, "no root hash to check the tree with");
	}
	err = sqk_api_place(f, name, &o, &f);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r) {
		sqk_file_destroy(f);
		return sqk_api_fail(SQK_ERR_NOMEM, 0, name, NULL);
	}
	if (!threads)
		threads = sqk_online_cpus();
	if (o.verity.on && (err = check_tree(r, f, name, &o, threads))) {
		sqk_file_destroy(f);
		sqk_report_destroy(r);
		return err;
	}
	/* The tree alone, sound: nothing to name. */
	if (tree_only && !r->nbad) {
		sqk_file_destroy(f);
		r->counts.problems = r->vproblems;
		*out = r;
		return r->nomem ? sqk_api_fail(SQK_ERR_NOMEM, 0, name, NULL) : sqk_api_ok();
	}
	fo.threads = threads;
	fo.image = opts ? &o.image : NULL;
	fo.report = keep;
	fo.ctx = r;
	fo.verity_bad = r->bad;
	fo.nverity_bad = r->nbad;
	errno = 0;
	err = sqk_fsck_create(f, &fo, &fsck);
	if (err) {
		sqk_report_destroy(r);
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, name, NULL);
	}
	err = sqk_fsck_run(fsck);
	if (!err && r->nomem)
		err = SQK_ERR_NOMEM;
	if (err) {
		int errnum = err == SQK_ERR_IO ? f->errnum : 0;
		struct sqk_fault tf;

		/* A temporary file's failure is told with its directory, without the image's name.
		 */
		if (sqk_fsck_temp_failed(fsck, err, &tf)) {
			sqk_fsck_destroy(fsck);
			sqk_report_destroy(r);
			return sqk_api_fault(&tf, NULL);
		}
		sqk_fsck_destroy(fsck);
		sqk_report_destroy(r);
		return sqk_api_fail(err, errnum, name, NULL);
	}
	sqk_fsck_counts(fsck, &c);
	sqk_fsck_take_image(fsck, &r->img, &r->file);
	sqk_fsck_destroy(fsck);
	r->counts = (struct sqk_check_counts){c.inodes,	   c.directories, c.blocks,
					      c.fragments, c.bytes,	  c.errors + r->vproblems};
	if (tree_only) {
		verity_only(r);
		r->counts.problems = r->n;
	}
	*out = r;
	return sqk_api_ok();
}

int sqk_check_path(const char *path, const struct sqk_open_opts *opts, unsigned threads,
		   struct sqk_report **out)
{
	struct sqk_file *f;
	int err = sqk_api_path_file(path, &f);

	*out = NULL;
	return err ? err : check_file(f, path, opts, threads, 0, out);
}

int(sqk_check_io)(const struct sqk_io *io, const struct sqk_open_opts *opts, unsigned threads,
		  struct sqk_report **out, size_t io_size)
{
	struct sqk_file *f;
	int err = sqk_api_io_file(io, io_size, &f);

	*out = NULL;
	return err ? err : check_file(f, SQK_API_IO_NAME, opts, threads, 0, out);
}

int sqk_verity_check_path(const char *path, const struct sqk_open_opts *opts, unsigned threads,
			  struct sqk_report **out)
{
	struct sqk_file *f;
	int err = sqk_api_path_file(path, &f);

	*out = NULL;
	return err ? err : check_file(f, path, opts, threads, 1, out);
}

int(sqk_verity_check_io)(const struct sqk_io *io, const struct sqk_open_opts *opts,
			 unsigned threads, struct sqk_report **out, size_t io_size)
{
	struct sqk_file *f;
	int err = sqk_api_io_file(io, io_size, &f);

	*out = NULL;
	return err ? err : check_file(f, SQK_API_IO_NAME, opts, threads, 1, out);
}

int(sqk_report_verity)(const struct sqk_report *r, struct sqk_verity_info *info, size_t size)
{
	if (sqk_api_size(size, SQK_API_V1(struct sqk_verity_info, hash_type), "sqk_verity_info"))
		return SQK_ERR_ARG;
	if (!r->verity || !r->vinfo.hash[0])
		return SQK_ERR_NOENT;
	sqk_api_out(info, size, &r->vinfo, sizeof(r->vinfo), 0, NULL);
	return 0;
}

int sqk_report_clean(const struct sqk_report *r)
{
	return r->counts.problems == 0;
}

size_t sqk_report_count(const struct sqk_report *r)
{
	return r->n;
}

const struct sqk_problem *sqk_report_problem(const struct sqk_report *r, size_t i)
{
	return i < r->n ? &r->list[i] : NULL;
}

int(sqk_report_counts)(const struct sqk_report *r, struct sqk_check_counts *c, size_t size)
{
	return sqk_api_out(c, size, &r->counts, sizeof(r->counts),
			   SQK_API_V1(struct sqk_check_counts, problems), "sqk_check_counts");
}

struct sqk_image *sqk_report_image(const struct sqk_report *r)
{
	return r->img;
}

void sqk_report_destroy(struct sqk_report *r)
{
	size_t i;

	if (!r)
		return;
	sqk_image_destroy(r->img);
	sqk_file_destroy(r->file);
	free(r->bad);
	for (i = 0; i < r->n; i++) {
		free((char *)r->list[i].path);
		free((char *)r->list[i].check);
		free((char *)r->list[i].detail);
	}
	free(r->list);
	free(r);
}
