// SPDX-License-Identifier: BSD-2-Clause
/* Verifying an image: fsck's run, its problems kept as data. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_int.h"
#include "util/pool.h"
#include "fsck/fsck.h"

struct sqk_report {
	struct sqk_problem *list;
	size_t n, cap;
	struct sqk_check_counts counts;
	int nomem;
	/* The checker's image and the file under it, kept for sqk_report_image(). */
	struct sqk_image *img;
	struct sqk_file *file;
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

/* Check the image in f (taken). */
static int check_file(struct sqk_file *f, const char *name, const struct sqk_open_opts *opts,
		      unsigned threads, struct sqk_report **out)
{
	struct sqk_open_opts o;
	struct sqk_fsck_opts fo = {0};
	struct sqk_fsck_counts c;
	struct sqk_report *r;
	struct sqk_fsck *fsck = NULL;
	int err;

	*out = NULL;
	sqk_api_open_defaults(opts, &o);
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
	fo.threads = threads;
	fo.image = opts ? &o.image : NULL;
	fo.report = keep;
	fo.ctx = r;
	errno = 0;
	err = sqk_fsck_create(f, &fo, &fsck);
	if (err) {
		sqk_report_free(r);
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
			sqk_report_free(r);
			return sqk_api_fault(&tf, NULL);
		}
		sqk_fsck_destroy(fsck);
		sqk_report_free(r);
		return sqk_api_fail(err, errnum, name, NULL);
	}
	sqk_fsck_counts(fsck, &c);
	sqk_fsck_take_image(fsck, &r->img, &r->file);
	sqk_fsck_destroy(fsck);
	r->counts = (struct sqk_check_counts){c.inodes,	   c.directories, c.blocks,
					      c.fragments, c.bytes,	  c.errors};
	*out = r;
	return sqk_api_ok();
}

int sqk_check_path(const char *path, const struct sqk_open_opts *opts, unsigned threads,
		   struct sqk_report **out)
{
	struct sqk_file *f;
	int err = sqk_api_path_file(path, &f);

	*out = NULL;
	return err ? err : check_file(f, path, opts, threads, out);
}

int sqk_check_io(const struct sqk_io *io, const struct sqk_open_opts *opts, unsigned threads,
		 struct sqk_report **out)
{
	struct sqk_file *f;
	int err = sqk_api_io_file(io, &f);

	*out = NULL;
	return err ? err : check_file(f, SQK_API_IO_NAME, opts, threads, out);
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

void sqk_report_counts(const struct sqk_report *r, struct sqk_check_counts *c)
{
	*c = r->counts;
}

struct sqk_image *sqk_report_image(const struct sqk_report *r)
{
	return r->img;
}

void sqk_report_free(struct sqk_report *r)
{
	size_t i;

	if (!r)
		return;
	sqk_image_close(r->img);
	sqk_file_destroy(r->file);
	for (i = 0; i < r->n; i++) {
		free((char *)r->list[i].path);
		free((char *)r->list[i].check);
		free((char *)r->list[i].detail);
	}
	free(r->list);
	free(r);
}
