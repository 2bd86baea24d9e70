// SPDX-License-Identifier: BSD-2-Clause
/*
 * Extraction into a directory, an archive or a description: the walk, the
 * extract driver and the archive and describe sinks that `squashkit
 * unimage` runs, with their stories told to the caller's callbacks and
 * sqk_error_message().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_extract.h"
#include "util/outfile.h"
#include "util/signals.h"
#include "walk/archive_sink.h"
#include "walk/describe.h"
#include "walk/extract.h"
#include "walk/resolve.h"
#include "walk/walk.h"

struct run {
	struct sqk_walk w;
	const struct sqk_extract_opts *o;
	sqk_problem_fn problem;
	void *ctx;
	unsigned lost;
	struct sqk_fault first; /* the first entry left out */
	/* The paths asked for, resolved: what each names, and what it went through. */
	struct sqk_api_strv select, way;
	const char *device; /* written in place on a block device: what it holds then */
};

/* The image file's errno behind a fault of the image's, else 0. */
static int image_errnum(const struct run *r, const struct sqk_fault *f)
{
	return f->output || f->errnum ? 0 : sqk_api_io_errnum(r->w.img, f->err);
}

/* An entry made or written with a problem that does not stop the run. */
static void warn(void *ctx, const char *path, const char *what)
{
	struct run *r = ctx;
	struct sqk_api_abs at;
	const char *p;

	if (!r->problem)
		return;
	p = sqk_api_abspath(&at, path);
	r->problem(r->ctx, p ? p : path, 0, what);
	sqk_api_abs_done(&at);
}

/* "keep-going": an entry that cannot be read, left out. */
static int lost(void *ctx, const struct sqk_fault *f)
{
	struct run *r = ctx;

	if (!r->lost++)
		r->first = *f;
	if (r->problem) {
		struct sqk_api_abs at;
		const char *p = sqk_api_abspath(&at, f->path);

		r->problem(r->ctx, p ? p : f->path, f->err, sqk_fault_text(f, image_errnum(r, f)));
		sqk_api_abs_done(&at);
	}
	return 0;
}

/*
 * "keep-made" without "keep-going": an entry that cannot be read ends the
 * run, and a file whose data could not be read goes from what stays.
 */
static int lost_ends(void *ctx, const struct sqk_fault *f)
{
	return f->err;
}

/*
 * Tell the failure callback, when there is one, of a failure not a
 * signal's; writing in place on a device, of a signal's too, and that the
 * device holds part of the output.
 */
static void tell(const struct run *r, const struct sqk_extract_failure *x)
{
	struct sqk_extract_failure y;
	char what[512];

	if (!r->o || !r->o->fail || (x->err == SQK_ERR_INTR && !r->device))
		return;
	if (r->device) {
		y = *x;
		snprintf(what, sizeof(what), "%s; the device holds a partial %s",
			 x->what ? x->what : sqk_strerror(x->err), r->device);
		y.what = what;
		x = &y;
	}
	r->o->fail(r->o->fail_ctx, x);
}

/*
 * A failure of a stage as a whole: told, and the message "where: what"
 * (what NULL: the words of errnum, or of err).
 */
static int stage_fail(const struct run *r, enum sqk_extract_stage stage, int err, int errnum,
		      const char *where, const char *what)
{
	struct sqk_extract_failure x = {sqk_api_code(err, errnum), errnum, stage, 0, "", what, 0};

	if (!what)
		x.what = errnum ? strerror(errnum) : sqk_strerror(err);
	tell(r, &x);
	return sqk_api_fail(err, errnum, where, "%s", x.what);
}

/* A failure at an entry told by a fault: the destination's entry or the image's. */
static int entry_fail(const struct run *r, const struct sqk_fault *f, const char *where)
{
	struct sqk_extract_failure x;
	struct sqk_api_abs at;

	sqk_api_failure_of(r->w.img, f, &x, &at);
	tell(r, &x);
	sqk_api_abs_done(&at);
	return sqk_api_fault(f, where);
}

/* A symlink a path went through, or a directory it left by "..": wanted alone. */
static int went_through(void *ctx, const char *path, int is_link)
{
	struct run *r = ctx;

	return sqk_api_strv_add(&r->way, path);
}

/*
 * Each path asked for, resolved as lstat(2) resolves one in a mounted
 * image: what it names is selected with what is below it, and every
 * symlink it went through and directory it left by ".." alone, so that
 * the path resolves the same way in what is made.
 */
static int resolve_paths(struct run *r, struct sqk_image *img, const struct sqk_extract_opts *o)
{
	int all = 0;
	size_t i;

	for (i = 0; i < o->paths.n; i++) {
		struct sqk_resolve_trace t = {0, went_through, r, NULL};
		struct sqk_fault f = {0};
		struct sqk_inode ino;
		int err = sqk_resolve_trace(img, o->paths.v[i], 0, &t, &ino);

		if (!err) {
			sqk_inode_free(&ino);
			all |= !*t.path;
			err = *t.path && sqk_api_strv_add(&r->select, t.path) ? SQK_ERR_NOMEM : 0;
			free(t.path);
		}
		if (err == SQK_ERR_NOMEM)
			return sqk_api_fail(err, 0, NULL, NULL);
		if (err) {
			/* The code's words (a lookup's failure, whatever the file's errno). */
			sqk_fault_set(&f, err, 0, 0, o->paths.v[i]);
			snprintf(f.what, sizeof(f.what), "%s",
				 err == SQK_ERR_LOOP ? strerror(ELOOP) : sqk_strerror(err));
			return entry_fail(r, &f, "the image");
		}
	}
	/* A path that names the root selects everything. */
	if (!all && r->select.n) {
		r->w.select = r->select.v;
		r->w.nselect = (unsigned)r->select.n;
		r->w.way = r->way.v;
		r->w.nway = (unsigned)r->way.n;
	}
	return 0;
}

/* The walk over the selection, each selected path resolved first. */
static int start(struct run *r, struct sqk_image *img, const struct sqk_extract_opts *o,
		 sqk_problem_fn problem, void *ctx)
{
	int err;

	memset(r, 0, sizeof(*r));
	if (!img || !o)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no image or no options");
	r->o = o;
	r->problem = problem;
	r->ctx = ctx;
	r->w.img = img;
	err = resolve_paths(r, img, o);
	if (err)
		return err;
	if (o->keep_going) {
		r->w.lost = lost;
		r->w.lost_ctx = r;
	} else if (o->keep_made) {
		r->w.lost = lost_ends;
	}
	return 0;
}

/* What start() kept, given back; err passes through. */
static int finish(struct run *r, int err)
{
	sqk_api_strv_free(&r->select);
	sqk_api_strv_free(&r->way);
	return err;
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
	struct run *r = ctx;
	struct sqk_sink *inner = sqk_extract_sink(x);

	if (!r->o->entry && !r->o->pass_over) {
		r->w.sink = inner;
		return sqk_walk(&r->w);
	}
	/* Between the walk and the sink: the walk gives the sink its lost. */
	inner->lost = r->w.lost;
	inner->lost_ctx = r->w.lost_ctx;
	return sqk_api_entry_walk(&r->w, inner, x, r->o);
}

/* How a sqk_xdir_run that failed is told. */
static int dir_failed(struct run *r, const struct sqk_xdir *d, int err, int errnum)
{
	const struct sqk_fault *f;

	if (d->stage == SQK_XDIR_DEST && err == SQK_ERR_EXIST)
		return stage_fail(r, SQK_EXTRACT_DEST, err, 0, d->dest,
				  "destination exists (set \"force\")");
	if (d->stage == SQK_XDIR_DEST)
		return stage_fail(r, SQK_EXTRACT_DEST, err, errnum ? errnum : EIO, d->dest, NULL);
	if (d->stage == SQK_XDIR_START)
		return stage_fail(r, SQK_EXTRACT_START, err, sqk_err_errnum(err), d->dest, NULL);
	f = d->stage == SQK_XDIR_WALK ? &r->w.fault : &d->fault;
	return entry_fail(r, f, f->output ? d->dest : "the image");
}

static int extract_dir(struct run *r, struct sqk_image *img, const char *dest,
		       const struct sqk_extract_opts *o)
{
	struct sqk_extract_conf xo = {
		.warn = warn,
		.warn_ctx = r,
	};
	struct sqk_xdir d = {
		.dest = dest,
		.opts = &xo,
		.walk = walk_into,
		.ctx = r,
	};
	int err;

	if (!dest || !*dest)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no destination");
	xo.force = o->force;
	xo.no_xattrs = o->no_xattrs;
	xo.no_owner = o->no_owner;
	xo.xattr_filter = &o->filter;
	xo.ignore_errors = o->pass_over;
	d.may_exist = o->force || o->fill;
	d.undo = !o->keep_going && !o->keep_made;
	d.threads = o->threads;
	/* Held, a signal stops the run, which undoes itself; release then dies of it. */
	if (o->signals)
		sqk_sig_hold();
	err = sqk_xdir_run(img, &d);
	err = err ? dir_failed(r, &d, err, errno) : outcome(r);
	if (o->signals)
		sqk_sig_release();
	return err;
}

int sqk_extract_dir(struct sqk_image *img, const char *dest, const struct sqk_extract_opts *o,
		    sqk_problem_fn problem, void *ctx)
{
	struct run r;
	int err = start(&r, img, o, problem, ctx);

	if (!err)
		err = extract_dir(&r, img, dest, o);
	return finish(&r, err);
}

int sqk_extract_list(struct sqk_image *img, const struct sqk_extract_opts *o,
		     sqk_problem_fn problem, void *ctx)
{
	struct run r;
	int err = start(&r, img, o, problem, ctx);

	if (!err && sqk_api_entry_walk(&r.w, NULL, NULL, o) != 0)
		err = entry_fail(&r, &r.w.fault, "the image");
	return finish(&r, err ? err : outcome(&r));
}

/* The archive to fd: 0 when it went through (entries may have been left out). */
static int archive(struct run *r, struct sqk_image *img, int fd)
{
	const char *name = "the archive";
	struct sqk_archive_sink *s = NULL;
	struct sqk_fault f;
	int err;

	err = sqk_archive_sink_create(img, fd, r->o->format, r->o->no_xattrs, warn, r, &s);
	if (err)
		return stage_fail(r, SQK_EXTRACT_START, err, sqk_err_errnum(err), name, NULL);
	sqk_archive_sink_set_filter(s, &r->o->filter);
	r->w.sink = sqk_archive_sink_sink(s);
	err = sqk_walk(&r->w);
	f = r->w.fault;
	if (!err && (err = sqk_archive_sink_finish(s)) != 0)
		f = r->w.sink->fault; /* copied: the sink goes now */
	sqk_archive_sink_destroy(s);
	if (!err)
		return 0;
	/* What libarchive refused, or the output's failure, is the archive's. */
	return entry_fail(r, &f, f.output || *f.what ? name : "the image");
}

/* The description to fd: 0, or the failure told. */
static int describe(struct run *r, struct sqk_image *img, int fd)
{
	const char *name = "the description";
	struct sqk_describe *s = NULL;
	struct sqk_fault f;
	uint64_t left;
	int err;

	err = sqk_describe_create(img, fd, &s);
	if (err)
		return stage_fail(r, SQK_EXTRACT_START, err, sqk_err_errnum(err), name, NULL);
	r->w.sink = sqk_describe_sink(s);
	err = sqk_walk(&r->w);
	f = r->w.fault;
	if (!err && (err = sqk_describe_finish(s)) != 0)
		f = r->w.sink->fault; /* copied: the sink goes now */
	left = sqk_describe_xattrs_left(s);
	sqk_describe_destroy(s);
	if (err)
		return entry_fail(r, &f, f.output ? name : "the image");
	if (left && !r->o->no_xattrs) {
		struct sqk_extract_failure x = {
			SQK_ERR_UNSUPPORTED, 0, SQK_EXTRACT_XATTRS, 0, "", NULL, left};
		char what[160];

		snprintf(what, sizeof(what),
			 "the extended attributes of %llu entries cannot be held in a pseudo file",
			 (unsigned long long)left);
		x.what = what;
		tell(r, &x);
		return sqk_api_fail(x.err, 0, "the image",
				    "%s (set \"no-xattrs\" to leave them out)", what);
	}
	return 0;
}

typedef int (*to_fd_fn)(struct run *r, struct sqk_image *img, int fd);

/* A stale temporary file of the output's, removed: a notice. */
static void stale(void *ctx, const char *path)
{
	const struct sqk_extract_opts *o = ctx;

	if (o->notice)
		o->notice(o->notice_ctx, path,
			  "removed a stale temporary file (its writer is gone)");
}

/* Through fd: the caller's descriptor. */
static int to_fd(struct sqk_image *img, int fd, const struct sqk_extract_opts *o,
		 sqk_problem_fn problem, void *ctx, to_fd_fn fn)
{
	struct run r;
	int err = start(&r, img, o, problem, ctx);

	if (!err)
		err = fn(&r, img, fd);
	return finish(&r, err ? err : outcome(&r));
}

/* To path: a temporary file beside it, renamed into place when whole. */
static int to_outfile(struct run *r, struct sqk_image *img, const char *path,
		      const struct sqk_extract_opts *o, to_fd_fn fn)
{
	struct sqk_outfile_how how = {o ? o->force : 0, 0, stale, (void *)o};
	struct sqk_outfile *of;
	sigset_t pipe_mask;
	int err;

	if (!path)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no output path");
	errno = 0;
	err = sqk_outfile_create(path, &how, &of, NULL);
	if (err == SQK_ERR_EXIST)
		return stage_fail(r, SQK_EXTRACT_DEST, err, 0, path,
				  "file exists (set \"force\" to replace it)");
	if (err == SQK_ERR_ARG)
		return stage_fail(r, SQK_EXTRACT_DEST, err, 0, path, "is a directory");
	if (err)
		return stage_fail(r, SQK_EXTRACT_DEST, err, sqk_err_errnum(err), path, NULL);
	if (sqk_outfile_kind(of) == SQK_OUT_DEVICE)
		r->device = fn == archive ? "archive" : "description";
	/* A stream's reader may go: a write then fails with EPIPE, it does not kill. */
	if (sqk_outfile_kind(of) == SQK_OUT_STREAM)
		sqk_sig_pipe_hold(&pipe_mask);
	err = fn(r, img, sqk_file_fd(sqk_outfile_file(of)));
	if (sqk_outfile_kind(of) == SQK_OUT_STREAM)
		sqk_sig_pipe_release(&pipe_mask);
	if (err) {
		sqk_outfile_abort(of); /* the message is the extraction's */
		return err;
	}
	err = sqk_outfile_commit(of);
	if (err)
		return stage_fail(r, SQK_EXTRACT_COMMIT, err, errno, path, NULL);
	return outcome(r);
}

static int to_path(struct sqk_image *img, const char *path, const struct sqk_extract_opts *o,
		   sqk_problem_fn problem, void *ctx, to_fd_fn fn)
{
	struct run r;
	int err = start(&r, img, o, problem, ctx);

	if (!err)
		err = to_outfile(&r, img, path, o, fn);
	return finish(&r, err);
}

int sqk_extract_archive_fd(struct sqk_image *img, int fd, const struct sqk_extract_opts *o,
			   sqk_problem_fn problem, void *ctx)
{
	return to_fd(img, fd, o, problem, ctx, archive);
}

int sqk_extract_archive(struct sqk_image *img, const char *path, const struct sqk_extract_opts *o,
			sqk_problem_fn problem, void *ctx)
{
	return to_path(img, path, o, problem, ctx, archive);
}

/* A description is of the whole tree: keep-going has no place in it. */
static int describable(const struct sqk_extract_opts *o)
{
	if (o && o->keep_going)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
				    "\"keep-going\" extracts what can be read; a description is "
				    "of the whole tree");
	return 0;
}

int sqk_extract_describe_fd(struct sqk_image *img, int fd, const struct sqk_extract_opts *o,
			    sqk_problem_fn problem, void *ctx)
{
	int err = describable(o);

	return err ? err : to_fd(img, fd, o, problem, ctx, describe);
}

int sqk_extract_describe(struct sqk_image *img, const char *path, const struct sqk_extract_opts *o,
			 sqk_problem_fn problem, void *ctx)
{
	int err = describable(o);

	return err ? err : to_path(img, path, o, problem, ctx, describe);
}
