// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit unsquashfs: its listing and extraction through the public API.
 * Each entry comes to the entry callback before it is made: the peer's
 * extract/exclude names choose it, and it is printed and counted as the
 * peer prints and counts it. With -ignore-errors an entry that cannot be
 * read, or made ("pass-over"), is reported and left out (a directory with
 * everything below it), as unsquashfs does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "compat.h"
#include "compat_unsq.h"

static void flush_pending(struct usq *u, int print)
{
	if (!u->pending)
		return;
	if (print)
		cli_usq_print_entry(stdout, &u->fmt, u->pending, &u->pending_st, u->pending_size,
				    NULL);
	free(u->pending);
	u->pending = NULL;
}

/* "DEST/path: what", an entry inside the destination. */
static void dest_line(struct usq *u, const char *path, const char *what)
{
	size_t len = strlen(u->dest);

	while (len > 1 && u->dest[len - 1] == '/')
		len--;
	fprintf(stderr, "squashkit unsquashfs: %.*s/", (int)len, u->dest);
	cli_print_escaped(stderr, path);
	fprintf(stderr, ": %s\n", what);
}

/* "IMAGE: /path: what", or "IMAGE: what" about the image as a whole. */
static void image_line(struct usq *u, const char *path, const char *what)
{
	fprintf(stderr, "squashkit unsquashfs: %s", u->image);
	if (*path) {
		fputs(": /", stderr);
		cli_print_escaped(stderr, path);
	}
	fprintf(stderr, ": %s\n", what);
}

/* The line for a failure at an entry: the destination's or the image's. */
static void entry_line(struct usq *u, const struct sqk_extract_failure *f)
{
	if (f->output && *f->path)
		dest_line(u, cli_relpath(f->path), f->what);
	else if (f->output)
		fprintf(stderr, "squashkit unsquashfs: %s: %s\n", u->dest, f->what);
	else
		image_line(u, cli_relpath(f->path), f->what);
}

/* An entry before it is made: chosen by the names, printed, its blocks counted. */
static int begin(struct usq *u, const struct sqk_entry *e)
{
	const char *path = cli_relpath(e->path);
	int m = cli_usq_filter_match(&u->filter, path);

	flush_pending(u, 0);
	if (S_ISDIR(e->st->mode) ? m == USQ_OUT : m != USQ_IN)
		return SQK_ENTRY_SKIP;
	if (u->print && u->concise && S_ISDIR(e->st->mode)) {
		if (!(u->pending = strdup(path)))
			return SQK_ERR_NOMEM;
		u->pending_st = *e->st;
		u->pending_size = e->size_mounted;
	} else if (u->print) {
		cli_usq_print_entry(stdout, &u->fmt, path, e->st, e->size_mounted, e->target);
	}
	if (!e->link_to && S_ISREG(e->st->mode))
		u->blocks += (e->st->size + u->block_size - 1) / u->block_size;
	u->warned = u->walker_warnings;
	return SQK_ENTRY_EXTRACT;
}

/*
 * Counted once made, as the peer counts. Only a regular file's data and
 * attributes are written later; anything else warned about by now was not
 * made (a device when not root) or not made whole.
 */
static void made(struct usq *u, const struct sqk_entry *e)
{
	mode_t mode = e->st->mode;

	if (S_ISDIR(mode)) {
		u->dirs++;
		return;
	}
	if (u->walker_warnings != u->warned && (e->link_to || !S_ISREG(mode)))
		return;
	u->inodes++;
	if (e->link_to)
		u->hardlinks++;
	else if (S_ISREG(mode))
		u->files++;
	else if (S_ISLNK(mode))
		u->symlinks++;
	else if (S_ISBLK(mode) || S_ISCHR(mode))
		u->devices++;
	else if (S_ISFIFO(mode))
		u->fifos++;
	else
		u->sockets++;
}

static int entry(void *ctx, const struct sqk_entry *e)
{
	struct usq *u = ctx;

	switch (e->event) {
	case SQK_ENTRY_BEGIN:
		return begin(u, e);
	case SQK_ENTRY_MADE:
		made(u, e);
		break;
	case SQK_ENTRY_END:
		/* -lc: a directory nothing was printed in. */
		flush_pending(u, u->pending && strcmp(u->pending, cli_relpath(e->path)) == 0);
		break;
	case SQK_ENTRY_PASSED_OVER:
		entry_line(u, e->failure);
		u->failures++;
		break;
	}
	return 0;
}

/*
 * An entry that cannot be read (-ignore-errors): named and left out in the
 * extraction (the first pass and the listings pass over it quietly); or a
 * problem with an entry made (DEST/path: what).
 */
static void problem(void *ctx, const char *path, int err, const char *what)
{
	struct usq *u = ctx;

	path = cli_relpath(path);
	if (err) {
		if (u->extracting) {
			image_line(u, path, what);
			u->failures++;
		}
		return;
	}
	if (pthread_equal(pthread_self(), u->walker))
		u->walker_warnings++;
	u->warnings++;
	dest_line(u, path, what);
}

/* The one line for a failed run, as the peer's stages have always had it. */
static void failure(void *ctx, const struct sqk_extract_failure *f)
{
	struct usq *u = ctx;

	u->failed = 1;
	if (f->stage == SQK_EXTRACT_DEST)
		cli_compat_fail("%s: %s", u->dest, f->what);
	else if (f->stage == SQK_EXTRACT_START)
		cli_compat_fail("%s", sqk_strerror(f->err));
	else
		entry_line(u, f);
}

/* The options of the walk and the extraction, as unsquashfs's were given. */
static struct sqk_extract_opts *options(struct usq *u)
{
	struct sqk_extract_opts *o = sqk_extract_opts_create();
	char threads[16];
	int err = 0;

	if (!o)
		return NULL;
	snprintf(threads, sizeof(threads), "%u", u->threads);
	err |= sqk_extract_opts_set(o, "threads", threads);
	err |= sqk_extract_opts_set(o, "fill", NULL);
	err |= sqk_extract_opts_set_entry(o, entry, u);
	err |= sqk_extract_opts_set_failure(o, failure, u);
	if (u->ignore_errors) {
		err |= sqk_extract_opts_set(o, "keep-going", NULL);
		err |= sqk_extract_opts_set(o, "pass-over", NULL);
	} else {
		err |= sqk_extract_opts_set(o, "keep-made", NULL);
	}
	if (u->force)
		err |= sqk_extract_opts_set(o, "force", NULL);
	if (u->no_xattrs)
		err |= sqk_extract_opts_set(o, "no-xattrs", NULL);
	if (u->user_xattrs)
		err |= sqk_extract_opts_set(o, "xattrs-include", "^user\\.");
	if (err) {
		sqk_extract_opts_destroy(o);
		return NULL;
	}
	return o;
}

/*
 * What a run's error means: with -ignore-errors, entries left out (told
 * already) end nothing; a failure the callback heard of does.
 */
static int fatal(const struct usq *u, int err)
{
	return err && (u->failed || !u->ignore_errors);
}

/* Walk without making anything. */
static int walk(struct usq *u, struct sqk_image *img, const struct sqk_extract_opts *o)
{
	int err = sqk_extract_list(img, o, problem, u);

	flush_pending(u, 0);
	return fatal(u, err);
}

int cli_usq_list(struct usq *u, struct sqk_image *img)
{
	struct sqk_extract_opts *o = options(u);
	int err;

	if (!o)
		return cli_compat_fail("%s", sqk_error_message());
	u->print = 1;
	err = walk(u, img, o);
	sqk_extract_opts_destroy(o);
	return err ? COMPAT_FATAL : COMPAT_OK;
}

static void created(uint64_t n, const char *one, const char *many)
{
	printf("created %llu %s\n", (unsigned long long)n, n == 1 ? one : many);
}

/* The peer's two passes: what is to be written, counted, then the writing. */
static int extract(struct usq *u, struct sqk_image *img, const struct sqk_extract_opts *o)
{
	int err;

	u->concise = 0;
	if (walk(u, img, o))
		return COMPAT_FATAL;
	if (!u->quiet)
		printf("Parallel unsquashfs: Using %u processor%s\n%llu inodes (%llu blocks) to "
		       "write\n\n",
		       u->threads, u->threads == 1 ? "" : "s", (unsigned long long)u->inodes,
		       (unsigned long long)u->blocks);
	u->inodes = u->blocks = u->files = u->dirs = u->symlinks = u->devices = u->fifos =
		u->sockets = u->hardlinks = 0;
	u->walker = pthread_self();
	u->print = u->info;
	u->extracting = 1;
	err = sqk_extract_dir(img, u->dest, o, problem, u);
	flush_pending(u, 0);
	if (fatal(u, err))
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

/*
 * Extract into dest, which may exist (as the peer allows) but is never
 * replaced. A failure leaves what was made whole, as the peer leaves it;
 * -ignore-errors goes past entries that cannot be read or made.
 */
int cli_usq_extract(struct usq *u, struct sqk_image *img)
{
	struct sqk_extract_opts *o = options(u);
	int ret;

	if (!o)
		return cli_compat_fail("%s", sqk_error_message());
	ret = extract(u, img, o);
	sqk_extract_opts_destroy(o);
	return ret;
}
