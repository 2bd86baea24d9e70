// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit unsquashfs: the sink between the native walk and the native
 * extract sink. It applies the peer's extract/exclude names, prints and
 * counts entries as the peer does, and sorts errors into the peer's
 * classes: with -ignore-errors an entry that cannot be created is reported
 * and skipped (a directory with everything below it), as unsquashfs does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "compat.h"
#include "compat_unsq.h"
#include "imageopt.h"
#include "read/image.h"
#include "util/error.h"
#include "walk/extract.h"

static struct usq *of(struct sqk_sink *s)
{
	return (struct usq *)((char *)s - offsetof(struct usq, sink));
}

static void flush_pending(struct usq *u, int print)
{
	if (!u->have_pending)
		return;
	if (print)
		cli_usq_print_entry(stdout, &u->fmt, u->pending, &u->pending_ino);
	free(u->pending);
	u->pending = NULL;
	u->have_pending = 0;
}

/* path is u->skip or below it. */
static int skipped(const struct usq *u, const char *path)
{
	size_t n;

	if (!u->skip)
		return 0;
	n = strlen(u->skip);
	return strncmp(path, u->skip, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The line for a failure: the destination's (DEST/path) or the image's. */
static void report(struct usq *u, const struct sqk_fault *f)
{
	if (f->err != SQK_ERR_INTR)
		cli_report_fault(u->image, u->img, u->dest, 1, f);
}

/*
 * An entry the extract sink could not create: with -ignore-errors that is
 * reported and passed over (the peer's "ignorable" class); anything else,
 * and every error without it, ends the extraction with the inner sink's
 * story of it.
 */
static int creation_failed(struct usq *u, int err)
{
	struct sqk_fault f;

	if (!u->ignore_errors ||
	    (err != SQK_ERR_EXIST && err != SQK_ERR_IO && err != SQK_ERR_NOSPACE) ||
	    sqk_extract_pass_over(u->x, &f) != 0) {
		u->sink.fault = u->inner->fault;
		return err;
	}
	report(u, &f);
	u->failures++;
	return 0;
}

/*
 * An entry that cannot be read: with -ignore-errors it is named and left
 * out, as the peer does; without, it ends the extraction (named once, at
 * the end). The first pass, which only counts, passes over it quietly.
 */
static int lost_entry(void *ctx, const struct sqk_fault *f)
{
	struct usq *u = ctx;

	if (!u->ignore_errors)
		return f->err;
	if (u->inner) {
		report(u, f);
		u->failures++;
	}
	return 0;
}

static int dir_begin(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct usq *u = of(s);
	int m, err;

	flush_pending(u, 0);
	if (skipped(u, path))
		return 0;
	m = cli_usq_filter_match(&u->filter, path);
	if (m == USQ_OUT)
		return 0;
	if (u->print && u->concise) {
		u->pending = strdup(path);
		if (!u->pending)
			return SQK_ERR_NOMEM;
		u->pending_ino = *ino;
		u->pending_ino.blocks = NULL;
		u->pending_ino.target = NULL;
		u->have_pending = 1;
	} else if (u->print) {
		cli_usq_print_entry(stdout, &u->fmt, path, ino);
	}
	err = u->inner ? u->inner->dir_begin(u->inner, path, ino) : 0;
	if (err) {
		err = creation_failed(u, err);
		if (!err && !(u->skip = strdup(path)))
			err = SQK_ERR_NOMEM;
		return err;
	}
	u->dirs++;
	return 0;
}

static int dir_end(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct usq *u = of(s);

	if (u->have_pending && strcmp(u->pending, path) == 0)
		flush_pending(u, 1);
	flush_pending(u, 0);
	if (skipped(u, path)) {
		if (strcmp(path, u->skip) == 0) {
			free(u->skip);
			u->skip = NULL;
		}
		return 0;
	}
	if (cli_usq_filter_match(&u->filter, path) == USQ_OUT)
		return 0;
	if (u->inner && u->inner->dir_end(u->inner, path, ino) != 0) {
		u->sink.fault = u->inner->fault;
		return u->sink.fault.err;
	}
	return 0;
}

static int node(struct sqk_sink *s, const char *path, struct sqk_inode *ino, const char *link_to)
{
	struct usq *u = of(s);
	unsigned warned;
	int err;

	flush_pending(u, 0);
	if (skipped(u, path) || cli_usq_filter_match(&u->filter, path) != USQ_IN)
		return 0;
	/* A hard link whose first name was left out: the first that passed is. */
	if (link_to && cli_usq_filter_match(&u->filter, link_to) != USQ_IN) {
		err = 0;
		link_to = cli_usq_links_substitute(&u->links, link_to, path, &err);
		if (err)
			return err;
	}
	if (u->print)
		cli_usq_print_entry(stdout, &u->fmt, path, ino);
	if (!link_to && S_ISREG(ino->mode))
		u->blocks += (ino->size + u->block_size - 1) / u->block_size;
	warned = u->walker_warnings;
	err = u->inner ? u->inner->node(u->inner, path, ino, link_to) : 0;
	if (err)
		return creation_failed(u, err);
	/*
	 * Counted once made, as the peer counts. Only a regular file's data
	 * and attributes are written later; anything else warned about now
	 * was not made (a device when not root) or not made whole.
	 */
	if (u->walker_warnings != warned && (link_to || !S_ISREG(ino->mode)))
		return 0;
	u->inodes++;
	if (link_to)
		u->hardlinks++;
	else if (S_ISREG(ino->mode))
		u->files++;
	else if (S_ISLNK(ino->mode))
		u->symlinks++;
	else if (S_ISBLK(ino->mode) || S_ISCHR(ino->mode))
		u->devices++;
	else if (S_ISFIFO(ino->mode))
		u->fifos++;
	else
		u->sockets++;
	return 0;
}

void cli_usq_sink_init(struct usq *u)
{
	u->sink.dir_begin = dir_begin;
	u->sink.dir_end = dir_end;
	u->sink.node = node;
}

/* A problem with an entry made in the destination (DEST/path: what). */
static void warn_entry(void *ctx, const char *path, const char *what)
{
	struct usq *u = ctx;
	size_t len = strlen(u->dest);

	if (pthread_equal(pthread_self(), u->walker))
		u->walker_warnings++;
	while (len > 1 && u->dest[len - 1] == '/')
		len--;
	fprintf(stderr, "squashkit unsquashfs: %.*s/", (int)len, u->dest);
	cli_print_escaped(stderr, path);
	fprintf(stderr, ": %s\n", what);
}

static int walk(struct usq *u, struct sqk_image *img)
{
	struct sqk_walk w;
	int err;

	memset(&w, 0, sizeof(w));
	w.img = img;
	w.sink = &u->sink;
	w.lost = lost_entry;
	w.lost_ctx = u;
	err = sqk_walk(&w);
	flush_pending(u, 0);
	free(u->skip);
	u->skip = NULL;
	if (err)
		report(u, &w.fault);
	return err;
}

int cli_usq_list(struct usq *u, struct sqk_image *img)
{
	u->print = 1;
	return walk(u, img) ? COMPAT_FATAL : COMPAT_OK;
}

static void created(uint64_t n, const char *one, const char *many)
{
	printf("created %llu %s\n", (unsigned long long)n, n == 1 ? one : many);
}

/* The second pass, into the directory sink, for sqk_xdir_run. */
static int walk_into(void *ctx, struct sqk_extract *x)
{
	struct usq *u = ctx;

	u->x = x;
	u->inner = sqk_extract_sink(x);
	/* The files not made whole go at the end, whatever stops the run. */
	u->inner->lost = lost_entry;
	u->inner->lost_ctx = u;
	u->walker = pthread_self();
	u->print = u->info;
	return walk(u, u->img);
}

/*
 * Extract into dest, which may exist (as the peer allows) but is never
 * replaced. A failure leaves what was made whole, as the peer leaves it;
 * -ignore-errors goes past entries that cannot be read or made.
 */
int cli_usq_extract(struct usq *u, struct sqk_image *img)
{
	struct sqk_extract_conf xo = {
		u->force,	 u->no_xattrs, 0, warn_entry, u, cli_attropt_filter(&u->attr),
		u->ignore_errors};
	struct sqk_xdir d = {
		.dest = u->dest,
		.may_exist = 1,
		.threads = u->threads,
		.opts = &xo,
		.walk = walk_into,
		.ctx = u,
	};
	int err;

	u->concise = 0;
	/* The peer's first pass: what is to be written, before anything is. */
	if (walk(u, img))
		return COMPAT_FATAL;
	if (!u->quiet)
		printf("Parallel unsquashfs: Using %u processor%s\n%llu inodes (%llu blocks) to "
		       "write\n\n",
		       u->threads, u->threads == 1 ? "" : "s", (unsigned long long)u->inodes,
		       (unsigned long long)u->blocks);
	u->inodes = u->blocks = u->files = u->dirs = u->symlinks = u->devices = u->fifos =
		u->sockets = u->hardlinks = 0;
	cli_usq_links_release(&u->links);
	err = sqk_xdir_run(img, &d);
	u->warnings = d.warnings;
	u->x = NULL;
	u->inner = NULL;
	if (err && d.stage == SQK_XDIR_DEST)
		return cli_compat_fail("%s: %s", u->dest, strerror(errno));
	if (err && d.stage == SQK_XDIR_START)
		cli_compat_fail("%s", sqk_strerror(err));
	else if (err && d.stage == SQK_XDIR_FINISH)
		report(u, &d.fault);
	if (err)
		return COMPAT_FATAL;
	if (!u->quiet) {
		putchar('\n');
		created(u->files, "file", "files");
		created(u->dirs, "directory", "directories");
		created(u->symlinks, "symlink", "symlinks");
		created(u->devices, "device", "devices");
		created(u->fifos, "fifo", "fifos");
		created(u->sockets, "socket", "sockets");
		created(u->hardlinks, "hardlink", "hardlinks");
	}
	/* The peer's -strict-errors would have stopped at the first of them. */
	if (u->warnings + u->failures == 0)
		return COMPAT_OK;
	return u->strict_errors ? COMPAT_FATAL : u->exit_code ? COMPAT_NONFATAL : COMPAT_OK;
}
