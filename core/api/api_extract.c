// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extraction into a directory or an archive: the walk, the extract driver
 * and the archive sink that `squashkit unimage` runs, with their stories
 * told to the caller's problem callback and sqk_error_message().
 */
#include <errno.h>
#include <string.h>

#include "api_extract.h"
#include "util/outfile.h"
#include "walk/archive_sink.h"
#include "walk/extract.h"
#include "walk/walk.h"

struct run {
	struct sqk_walk w;
	const struct sqk_extract_opts *o;
	sqk_problem_fn problem;
	void *ctx;
	unsigned lost;
	struct sqk_fault first; /* the first entry left out */
};

/* An entry made or written with a problem that does not stop the run. */
static void warn(void *ctx, const char *path, const char *what)
{
	struct run *r = ctx;

	if (r->problem)
		r->problem(r->ctx, sqk_api_relpath(path), 0, what);
}

/* "keep-going": an entry that cannot be read, left out. */
static int lost(void *ctx, const struct sqk_fault *f)
{
	struct run *r = ctx;
	const char *what = *f->what    ? f->what
			   : f->errnum ? strerror(f->errnum)
				       : sqk_strerror(f->err);

	if (!r->lost++)
		r->first = *f;
	if (r->problem)
		r->problem(r->ctx, sqk_api_relpath(f->path), f->err, what);
	return 0;
}

/* The walk over the selection, each selected path checked first. */
static int start(struct run *r, struct sqk_image *img, const struct sqk_extract_opts *o,
		 sqk_problem_fn problem, void *ctx)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!img || !o)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no image or no options");
	r->o = o;
	r->problem = problem;
	r->ctx = ctx;
	for (i = 0; i < o->paths.n; i++) {
		struct sqk_inode ino;
		int err = sqk_resolve(img, o->paths.v[i], &ino);

		if (err)
			return sqk_api_fail(err, 0, "the image", "/%s: %s", o->paths.v[i],
					    sqk_strerror(err));
		sqk_inode_free(&ino);
	}
	r->w.img = img;
	r->w.select = o->paths.v;
	r->w.nselect = (unsigned)o->paths.n;
	if (o->keep_going) {
		r->w.lost = lost;
		r->w.lost_ctx = r;
	}
	return 0;
}

/* A failure told by a fault: the destination's entry or the image's. */
static int failed(const struct sqk_fault *f, const char *out)
{
	return sqk_api_fault(f, f->output ? out : "the image");
}

/* What a run that went through returns: the first entry left out, or 0. */
static int outcome(struct run *r)
{
	if (!r->lost)
		return sqk_api_ok();
	return sqk_api_fail(r->first.err, r->first.errnum, NULL,
			    "%u entries could not be extracted (the first: /%s)", r->lost,
			    sqk_api_relpath(r->first.path));
}

static int walk_into(void *ctx, struct sqk_extract *x)
{
	struct sqk_walk *w = ctx;

	w->sink = sqk_extract_sink(x);
	return sqk_walk(w);
}

int sqk_extract_dir(struct sqk_image *img, const char *dest, const struct sqk_extract_opts *o,
		    sqk_problem_fn problem, void *ctx)
{
	struct run r;
	int err = start(&r, img, o, problem, ctx);
	struct sqk_extract_conf xo = {
		.warn = warn,
		.warn_ctx = &r,
	};
	struct sqk_xdir d = {
		.dest = dest,
		.opts = &xo,
		.walk = walk_into,
		.ctx = &r.w,
	};

	if (err)
		return err;
	if (!dest || !*dest)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no destination");
	xo.force = o->force;
	xo.no_xattrs = o->no_xattrs;
	xo.no_owner = o->no_owner;
	xo.xattr_filter = &o->filter;
	d.may_exist = o->force;
	d.undo = !o->keep_going;
	d.threads = o->threads;
	err = sqk_xdir_run(img, &d);
	if (!err)
		return outcome(&r);
	if (d.stage == SQK_XDIR_DEST && err == SQK_ERR_EXIST)
		return sqk_api_fail(err, 0, dest, "destination exists (set \"force\")");
	if (d.stage == SQK_XDIR_DEST || d.stage == SQK_XDIR_START)
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, dest, NULL);
	return failed(d.stage == SQK_XDIR_WALK ? &r.w.fault : &d.fault, dest);
}

/* The archive to fd: 0 when it went through (entries may have been left out). */
static int archive(struct run *r, struct sqk_image *img, int fd)
{
	struct sqk_archive_sink *s = NULL;
	const struct sqk_fault *f = &r->w.fault;
	int err;

	err = sqk_archive_sink_create(img, fd, r->o->format, r->o->no_xattrs, warn, r, &s);
	if (err)
		return sqk_api_fail(err, 0, "the archive", NULL);
	sqk_archive_sink_set_filter(s, &r->o->filter);
	r->w.sink = sqk_archive_sink_sink(s);
	err = sqk_walk(&r->w);
	if (!err && (err = sqk_archive_sink_finish(s)) != 0)
		f = &r->w.sink->fault;
	sqk_archive_sink_destroy(s);
	if (!err)
		return 0;
	/* What libarchive refused, or the output's failure, is the archive's. */
	return sqk_api_fault(f, f->output || *f->what ? "the archive" : "the image");
}

int sqk_extract_archive_fd(struct sqk_image *img, int fd, const struct sqk_extract_opts *o,
			   sqk_problem_fn problem, void *ctx)
{
	struct run r;
	int err = start(&r, img, o, problem, ctx);

	if (!err)
		err = archive(&r, img, fd);
	return err ? err : outcome(&r);
}

int sqk_extract_archive(struct sqk_image *img, const char *path, const struct sqk_extract_opts *o,
			sqk_problem_fn problem, void *ctx)
{
	struct sqk_outfile *of;
	struct run r;
	int err = start(&r, img, o, problem, ctx);

	if (err)
		return err;
	if (!path)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no archive path");
	err = sqk_outfile_create(path, o->force, &of);
	if (err == SQK_ERR_EXIST)
		return sqk_api_fail(err, 0, path, "file exists (set \"force\" to replace it)");
	if (err == SQK_ERR_ARG)
		return sqk_api_fail(err, 0, path, "is a directory");
	if (err)
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, path, NULL);
	err = archive(&r, img, sqk_file_fd(sqk_outfile_file(of)));
	if (err) {
		sqk_outfile_abort(of); /* the message is the extraction's */
		return err;
	}
	err = sqk_outfile_commit(of);
	if (err)
		return sqk_api_fail(err, errno, path, NULL);
	return outcome(&r);
}
