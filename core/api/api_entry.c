// SPDX-License-Identifier: BSD-2-Clause
/*
 * The entry callback of an extraction or a listing: the entry sink's
 * steps (walk/entry_sink.h) told as struct sqk_entry, with a public stat.
 */
#include <string.h>
#include <sys/stat.h>

#include "api_extract.h"
#include "format/fmt_inode.h"
#include "walk/entry_sink.h"

struct told {
	struct sqk_image *img;
	const struct sqk_extract_opts *o;
};

void sqk_api_failure_of(struct sqk_image *img, const struct sqk_fault *f,
			struct sqk_extract_failure *x, struct sqk_api_abs *path)
{
	int ie = f->output || f->errnum ? 0 : sqk_api_io_errnum(img, f->err);

	memset(x, 0, sizeof(*x));
	x->errnum = f->errnum ? f->errnum : ie;
	x->err = sqk_api_code(f->err, x->errnum);
	x->stage = SQK_EXTRACT_ENTRY;
	x->output = f->output;
	/* "" is about no one entry; a path cut to its end ("...") stays so. */
	path->big = NULL;
	x->path =
		!*f->path || !strncmp(f->path, "...", 3) ? f->path : sqk_api_abspath(path, f->path);
	if (!x->path)
		x->path = f->path;
	x->what = sqk_fault_text(f, ie);
}

static const enum sqk_entry_event events[] = {
	[SQK_ES_BEGIN] = SQK_ENTRY_BEGIN,
	[SQK_ES_MADE] = SQK_ENTRY_MADE,
	[SQK_ES_END] = SQK_ENTRY_END,
	[SQK_ES_PASSED] = SQK_ENTRY_PASSED_OVER,
};

static int tell(void *ctx, enum sqk_entry_sink_step step, const char *path,
		const struct sqk_inode *ino, const char *link_to, const struct sqk_fault *f)
{
	struct told *t = ctx;
	struct sqk_extract_failure x;
	struct sqk_api_abs at, to, fpath;
	struct sqk_stat st;
	struct sqk_entry e = {events[step], NULL, &st, NULL, NULL, 0, NULL};
	int r;

	if (!t->o->entry)
		return 0;
	e.path = sqk_api_abspath(&at, path);
	e.link_to = link_to ? sqk_api_abspath(&to, link_to) : NULL;
	if (!e.path || (link_to && !e.link_to)) {
		sqk_api_abs_done(&at);
		return SQK_ERR_NOMEM;
	}
	sqk_inode_stat(ino, &st);
	if (S_ISLNK(ino->mode))
		e.target = ino->target;
	e.size_mounted = S_ISDIR(ino->mode) ? sqk_fmt_dir_size(ino->size) : ino->size;
	fpath.big = NULL;
	if (f) {
		sqk_api_failure_of(t->img, f, &x, &fpath);
		e.failure = &x;
	}
	r = t->o->entry(t->o->entry_ctx, &e);
	sqk_api_abs_done(&at);
	if (link_to)
		sqk_api_abs_done(&to);
	sqk_api_abs_done(&fpath);
	return r;
}

int sqk_api_entry_walk(struct sqk_walk *w, struct sqk_sink *inner, struct sqk_extract *x,
		       const struct sqk_extract_opts *o)
{
	struct told t = {w->img, o};
	struct sqk_entry_sink e;
	int err;

	sqk_entry_sink_init(&e, inner, o->pass_over ? x : NULL, tell, &t);
	w->sink = &e.sink;
	err = sqk_walk(w);
	sqk_entry_sink_release(&e);
	return err;
}
