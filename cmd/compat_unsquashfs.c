// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit unsquashfs: unsquashfs's command line (4.5.1) on squashkit's
 * reader. Extraction is the native extract sink driven by the native walk,
 * -cat is `squashkit cat`, -pf is `unimage --describe`; what is the peer's
 * own is the option syntax, the extract/exclude name matching (a sink
 * between the walk and the extract sink) and the text it prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attropt.h"
#include "cmd.h"
#include "compat.h"
#include "compat_unsq.h"
#include "error.h"
#include "extract.h"
#include "format.h"
#include "image.h"
#include "imageopt.h"
#include "inode.h"
#include "pool.h"

enum {
	U_VERSION,
	U_CAT,
	U_DEST,
	U_MAX_DEPTH,
	U_EXCLUDES,
	U_EXCLUDE_LIST,
	U_FOLLOW,
	U_QUIET,
	U_NO_PROGRESS,
	U_NO_XATTRS,
	U_XATTRS,
	U_USER_XATTRS,
	U_PROCESSORS,
	U_INFO,
	U_LINFO,
	U_LS,
	U_LLS,
	U_LLN,
	U_LC,
	U_LLC,
	U_OFFSET,
	U_FORCE,
	U_IGNORE_ERRORS,
	U_STRICT_ERRORS,
	U_NO_EXIT_CODE,
	U_STAT,
	U_UTC,
	U_MKFS_TIME,
	U_EXTRACT_FILE,
	U_EXCLUDE_FILE,
	U_PF,
	U_QUEUE,
	U_NO_WILDCARDS,
	U_REGEX,
	U_HELP,
	U_REFUSED,
};

/* Every option of unsquashfs 4.5.1, with the spellings it accepts. */
static const struct compat_opt options[] = {
	{"version|v", 0, COMPAT_MAPPED, U_VERSION},
	{"cat", 0, COMPAT_MAPPED, U_CAT},
	{"dest|d", 1, COMPAT_MAPPED, U_DEST},
	{"max-depth|max", 1, COMPAT_MAPPED, U_MAX_DEPTH},
	{"excludes", 0, COMPAT_MAPPED, U_EXCLUDES},
	{"exclude-list|ex", 0, COMPAT_MAPPED, U_EXCLUDE_LIST},
	{"follow-symlinks|follow|L", 0, COMPAT_REFUSED, U_FOLLOW},
	{"missing-symlinks|missing", 0, COMPAT_REFUSED, U_REFUSED},
	{"quiet|q", 0, COMPAT_MAPPED, U_QUIET},
	{"no-progress|n", 0, COMPAT_MAPPED, U_NO_PROGRESS},
	{"no-xattrs|no", 0, COMPAT_MAPPED, U_NO_XATTRS},
	{"xattrs|x", 0, COMPAT_MAPPED, U_XATTRS},
	{"user-xattrs|u", 0, COMPAT_MAPPED, U_USER_XATTRS},
	{"processors|p", 1, COMPAT_MAPPED, U_PROCESSORS},
	{"info|i", 0, COMPAT_MAPPED, U_INFO},
	{"linfo|li", 0, COMPAT_MAPPED, U_LINFO},
	{"ls|l", 0, COMPAT_MAPPED, U_LS},
	{"lls|ll", 0, COMPAT_MAPPED, U_LLS},
	{"llnumeric|lln", 0, COMPAT_MAPPED, U_LLN},
	{"lc", 0, COMPAT_MAPPED, U_LC},
	{"llc", 0, COMPAT_MAPPED, U_LLC},
	{"offset|o", 1, COMPAT_MAPPED, U_OFFSET},
	{"force|f", 0, COMPAT_MAPPED, U_FORCE},
	{"ignore-errors|ig", 0, COMPAT_MAPPED, U_IGNORE_ERRORS},
	{"strict-errors|st", 0, COMPAT_MAPPED, U_STRICT_ERRORS},
	{"no-exit-code|no-exit", 0, COMPAT_MAPPED, U_NO_EXIT_CODE},
	{"stat|s", 0, COMPAT_MAPPED, U_STAT},
	{"UTC", 0, COMPAT_MAPPED, U_UTC},
	{"mkfs-time|fstime", 0, COMPAT_MAPPED, U_MKFS_TIME},
	{"extract-file|e|ef", 1, COMPAT_MAPPED, U_EXTRACT_FILE},
	{"exclude-file|exc|excf", 1, COMPAT_MAPPED, U_EXCLUDE_FILE},
	{"pf|pseudo-file", 1, COMPAT_MAPPED, U_PF},
	{"data-queue|da|frag-queue|fr", 1, COMPAT_NOEFFECT, U_QUEUE},
	{"no-wildcards|no-wild", 0, COMPAT_MAPPED, U_NO_WILDCARDS},
	{"regex|r", 0, COMPAT_MAPPED, U_REGEX},
	{"help|h", 0, COMPAT_MAPPED, U_HELP},
	{NULL, 0, 0, 0},
};

static const char usage_text[] =
	"Usage: squashkit unsquashfs [OPTIONS] FILESYSTEM [PATH...]\n"
	"unsquashfs's command line (4.5.1) on squashkit's reader: the same options,\n"
	"listings and exit codes. Every option and its mapping: squashkit-compat(1).\n";

struct usq {
	const char *dest, *image, *pf, *offset;
	int cat, ls, lng, numeric, concise, info, quiet, progress, force, no_xattrs;
	int stat, utc, mkfs_time, excludes, ignore_errors, strict_errors, exit_code;
	unsigned threads;
	struct usq_filter filter;
	struct usq_format fmt;
	struct sqk_attropt attr;
	/* The sink between the walk and the extract sink (NULL when listing). */
	struct sqk_sink sink;
	struct sqk_sink *inner;
	int print; /* print entries as they pass */
	/* -lc: a directory is printed when nothing came after it before its end. */
	char *pending;
	struct sqk_inode pending_ino;
	int have_pending;
	/* Counted as unsquashfs counts them. */
	uint64_t inodes, blocks, files, dirs, symlinks, devices, fifos, sockets, hardlinks;
	uint32_t block_size;
	unsigned warnings;
	struct usq_links links;
};

static int read_list_file(struct usq *u, int exclude, const char *file)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	if (!f)
		return compat_fail("%s: %s", file, strerror(errno));
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len > 0 && usq_filter_add(&u->filter, exclude, line) != 0)
			err = compat_fail("%s: invalid name '%s'", file, line);
	}
	free(line);
	fclose(f);
	return err;
}

static void flush_pending(struct usq *u, int print)
{
	if (!u->have_pending)
		return;
	if (print)
		usq_print_entry(stdout, &u->fmt, u->pending, &u->pending_ino);
	free(u->pending);
	u->pending = NULL;
	u->have_pending = 0;
}

static int dir_begin(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct usq *u = (struct usq *)((char *)s - offsetof(struct usq, sink));
	int m = usq_filter_match(&u->filter, path);

	flush_pending(u, 0);
	if (m == USQ_OUT)
		return 0;
	u->dirs++;
	if (u->print && u->concise) {
		u->pending = strdup(path);
		if (!u->pending)
			return SQK_ERR_NOMEM;
		u->pending_ino = *ino;
		u->pending_ino.blocks = NULL;
		u->pending_ino.target = NULL;
		u->have_pending = 1;
	} else if (u->print) {
		usq_print_entry(stdout, &u->fmt, path, ino);
	}
	return u->inner ? u->inner->dir_begin(u->inner, path, ino) : 0;
}

static int dir_end(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	struct usq *u = (struct usq *)((char *)s - offsetof(struct usq, sink));

	if (u->have_pending && strcmp(u->pending, path) == 0)
		flush_pending(u, 1);
	flush_pending(u, 0);
	if (usq_filter_match(&u->filter, path) == USQ_OUT)
		return 0;
	return u->inner ? u->inner->dir_end(u->inner, path, ino) : 0;
}

static int node(struct sqk_sink *s, const char *path, struct sqk_inode *ino, const char *link_to)
{
	struct usq *u = (struct usq *)((char *)s - offsetof(struct usq, sink));

	flush_pending(u, 0);
	if (usq_filter_match(&u->filter, path) != USQ_IN)
		return 0;
	/* A hard link whose first name was left out: the first that passed is. */
	if (link_to && usq_filter_match(&u->filter, link_to) != USQ_IN) {
		int err = 0;

		link_to = usq_links_substitute(&u->links, link_to, path, &err);
		if (err)
			return err;
	}
	u->inodes++;
	if (link_to)
		u->hardlinks++;
	else if (S_ISREG(ino->mode))
		u->files++, u->blocks += (ino->size + u->block_size - 1) / u->block_size;
	else if (S_ISLNK(ino->mode))
		u->symlinks++;
	else if (S_ISBLK(ino->mode) || S_ISCHR(ino->mode))
		u->devices++;
	else if (S_ISFIFO(ino->mode))
		u->fifos++;
	else
		u->sockets++;
	if (u->print)
		usq_print_entry(stdout, &u->fmt, path, ino);
	return u->inner ? u->inner->node(u->inner, path, ino, link_to) : 0;
}

static void warn_entry(void *ctx, const char *path, const char *what)
{
	struct usq *u = ctx;

	fprintf(stderr, "squashkit unsquashfs: %s: /", u->image);
	sqk_print_escaped(stderr, path);
	fprintf(stderr, ": %s\n", what);
}

static void report(struct usq *u, const char *where, int err)
{
	fprintf(stderr, "squashkit unsquashfs: %s: ", u->image);
	if (where && *where) {
		sqk_print_escaped(stderr, where);
		fputs(": ", stderr);
	}
	if (err == SQK_ERR_IO || err == SQK_ERR_NOSPACE)
		fprintf(stderr, "%s\n", strerror(errno ? errno : EIO));
	else
		fprintf(stderr, "%s\n", sqk_strerror(err));
}

static int walk(struct usq *u, struct sqk_image *img)
{
	struct sqk_walk w;
	int err;

	memset(&w, 0, sizeof(w));
	w.img = img;
	w.sink = &u->sink;
	err = sqk_walk(&w);
	flush_pending(u, 0);
	if (err)
		report(u, w.err_path, err);
	return err;
}

static void plural(const char *what, uint64_t n, const char *one, const char *many)
{
	printf("created %llu %s\n", (unsigned long long)n, n == 1 ? one : many);
	(void)what;
}

/* Extract into dest, which may exist (as the peer allows) but is never replaced. */
static int extract(struct usq *u, struct sqk_image *img)
{
	struct sqk_extract_opts xo = {
		u->force, u->no_xattrs, 0, warn_entry, u, sqk_attropt_filter(&u->attr)};
	struct sqk_extract *x = NULL;
	struct sqk_pool *pool;
	char where[4400] = "";
	int created = 0, fd, err;

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
	usq_links_release(&u->links);
	if (mkdir(u->dest, 0755) == 0)
		created = 1;
	else if (errno != EEXIST)
		return compat_fail("%s: %s", u->dest, strerror(errno));
	fd = open(u->dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return compat_fail("%s: %s", u->dest, strerror(errno));
	pool = sqk_pool_create(u->threads, 0);
	err = pool ? sqk_extract_create(img, pool, fd, &xo, &x) : SQK_ERR_NOMEM;
	if (!err) {
		int werr;

		u->inner = sqk_extract_sink(x);
		u->print = u->info;
		werr = walk(u, img);
		err = sqk_extract_finish(x, where, sizeof(where), &u->warnings);
		if (werr)
			err = werr;
		else if (err)
			report(u, where, err);
	} else {
		report(u, NULL, err);
	}
	sqk_extract_destroy(x);
	sqk_pool_destroy(pool);
	close(fd);
	if (err && created)
		sqk_remove_tree(AT_FDCWD, u->dest);
	if (err)
		return COMPAT_FATAL;
	if (!u->quiet) {
		putchar('\n');
		plural("", u->files, "file", "files");
		plural("", u->dirs, "directory", "directories");
		plural("", u->symlinks, "symlink", "symlinks");
		plural("", u->devices, "device", "devices");
		plural("", u->fifos, "fifo", "fifos");
		plural("", u->sockets, "socket", "sockets");
		plural("", u->hardlinks, "hardlink", "hardlinks");
	}
	if (u->warnings && !u->ignore_errors)
		return u->strict_errors ? COMPAT_FATAL : u->exit_code ? COMPAT_NONFATAL : COMPAT_OK;
	return COMPAT_OK;
}

/* Run a native command on argv, the image's offset passed on as --offset. */
static int native(struct usq *u, int (*cmd)(int, char **), const char *name, const char *opt,
		  char **paths, int npaths)
{
	char **argv = calloc((size_t)npaths + 6, sizeof(*argv));
	int argc = 0, i, ret;

	if (!argv)
		return compat_fail("%s", sqk_strerror(SQK_ERR_NOMEM));
	argv[argc++] = (char *)name;
	if (opt)
		argv[argc++] = (char *)opt;
	if (u->offset) {
		argv[argc++] = "--offset";
		argv[argc++] = (char *)u->offset;
	}
	argv[argc++] = (char *)u->image;
	for (i = 0; i < npaths; i++)
		argv[argc++] = paths[i];
	optind = 0;
	ret = cmd(argc, argv);
	free(argv);
	return ret == EXIT_OK ? COMPAT_OK : COMPAT_FATAL;
}

static int take(struct usq *u, const struct compat_opt *o, const char *val)
{
	uint64_t v;

	switch (o->id) {
	case U_CAT:
		u->cat = 1;
		break;
	case U_DEST:
		u->dest = val;
		break;
	case U_MAX_DEPTH:
		if (compat_uint(val, INT32_MAX, &v) != 0)
			return compat_fail("-max-depth: invalid levels '%s'", val);
		u->filter.max_depth = (int)v;
		break;
	case U_EXCLUDES:
		u->excludes = 1;
		break;
	case U_QUIET:
		u->quiet = 1;
		break;
	case U_NO_PROGRESS:
		u->progress = 0;
		break;
	case U_NO_XATTRS:
		u->no_xattrs = 1;
		break;
	case U_XATTRS:
		u->no_xattrs = 0;
		break;
	case U_USER_XATTRS:
		u->no_xattrs = 0;
		if (sqk_attropt_take(&u->attr, OPT_XATTRS_INCLUDE, "^user\\.") != 0)
			return COMPAT_FATAL;
		break;
	case U_PROCESSORS:
		if (compat_uint(val, 1024, &v) != 0 || v == 0)
			return compat_fail("-processors: invalid number '%s'", val);
		u->threads = (unsigned)v;
		break;
	case U_INFO:
		u->info = 1;
		break;
	case U_LINFO:
		u->info = 1, u->lng = 1;
		break;
	case U_LS:
		u->ls = 1;
		break;
	case U_LLS:
		u->ls = 1, u->lng = 1;
		break;
	case U_LLN:
		u->ls = 1, u->lng = 1, u->numeric = 1;
		break;
	case U_LC:
		u->ls = 1, u->concise = 1;
		break;
	case U_LLC:
		u->ls = 1, u->lng = 1, u->concise = 1;
		break;
	case U_OFFSET: {
		static char buf[24];

		if (compat_size(val, &v) != 0)
			return compat_fail("-offset: invalid offset '%s'", val);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
		u->offset = buf;
		if (sqk_offset_option(buf) != 0)
			return COMPAT_FATAL;
		break;
	}
	case U_FORCE:
		u->force = 1;
		break;
	case U_IGNORE_ERRORS:
		u->ignore_errors = 1;
		break;
	case U_STRICT_ERRORS:
		u->strict_errors = 1;
		break;
	case U_NO_EXIT_CODE:
		u->exit_code = 0;
		break;
	case U_STAT:
		u->stat = 1;
		break;
	case U_UTC:
		u->utc = 1;
		break;
	case U_MKFS_TIME:
		u->mkfs_time = 1;
		break;
	case U_EXTRACT_FILE:
		return read_list_file(u, 0, val);
	case U_EXCLUDE_FILE:
		return read_list_file(u, 1, val);
	case U_PF:
		u->pf = val;
		break;
	case U_NO_WILDCARDS:
		u->filter.no_wildcards = 1;
		break;
	case U_REGEX:
		u->filter.regex = 1;
		break;
	}
	return 0;
}

static int parse(struct usq *u, int argc, char **argv, int *first)
{
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const struct compat_opt *o = compat_find(options, argv[i]);
		const char *val = NULL;

		if (!o)
			return compat_fail("%s: invalid option (see squashkit-compat(1))", argv[i]);
		if (o->kind == COMPAT_REFUSED)
			return compat_unsupported(argv[i]);
		if (o->id == U_VERSION || o->id == U_HELP) {
			if (o->id == U_VERSION)
				printf("squashkit unsquashfs %s (unsquashfs 4.5.1 command line)\n",
				       SQK_VERSION);
			else
				fputs(usage_text, stdout);
			return -1;
		}
		if (o->id == U_EXCLUDE_LIST) {
			/* Names up to ";", each an exclude. */
			for (i++; i < argc && strcmp(argv[i], ";") != 0; i++)
				if (usq_filter_add(&u->filter, 1, argv[i]) != 0)
					return compat_fail("-exclude-list: invalid name '%s'",
							   argv[i]);
			if (i == argc)
				return compat_fail("-exclude-list: missing ';'");
			continue;
		}
		if (o->nargs && !(val = compat_value(argc, argv, &i)))
			return COMPAT_FATAL;
		ret = take(u, o, val);
		if (ret)
			return ret;
	}
	if (i >= argc)
		return compat_fail("missing FILESYSTEM operand (see squashkit-compat(1))");
	*first = i;
	return 0;
}

static int run(struct usq *u, int argc, char **argv)
{
	struct sqk_image_opts io;
	struct sqk_image *img;
	int first = 0, i, ret;

	ret = parse(u, argc, argv, &first);
	if (ret)
		return ret < 0 ? COMPAT_OK : ret;
	u->image = argv[first];
	if (u->pf) {
		char *opt;

		if (asprintf(&opt, "--describe=%s", u->pf) < 0)
			return compat_fail("%s", sqk_strerror(SQK_ERR_NOMEM));
		ret = native(u, cmd_unimage, "unimage", opt, argv + first + 1, argc - first - 1);
		free(opt);
		return ret;
	}
	if (u->cat)
		return native(u, cmd_cat, "cat", NULL, argv + first + 1, argc - first - 1);
	for (i = first + 1; i < argc; i++)
		if (usq_filter_add(&u->filter, u->excludes, argv[i]) != 0)
			return compat_fail("%s: invalid name", argv[i]);
	sqk_image_opts_default(&io);
	io.meta_entries = 16;
	io.frag_entries = u->threads + 3;
	io.data_entries = u->threads + 1;
	io.decompressors = u->threads + 1;
	img = sqk_open_image(u->image, &io);
	if (!img)
		return COMPAT_FATAL;
	u->block_size = sqk_image_super(img)->block_size;
	u->fmt.dest = u->dest;
	u->fmt.utc = u->utc;
	u->fmt.lng = u->lng;
	u->fmt.numeric = u->numeric;
	if (u->stat) {
		ret = usq_print_stat(stdout, img, u->image, u->utc) ? COMPAT_FATAL : COMPAT_OK;
	} else if (u->mkfs_time) {
		printf("%u\n", sqk_image_super(img)->mkfs_time);
		ret = COMPAT_OK;
	} else if (u->ls) {
		u->print = 1;
		ret = walk(u, img) ? COMPAT_FATAL : COMPAT_OK;
	} else {
		u->concise = 0;
		ret = extract(u, img);
	}
	sqk_image_close(img);
	if (fflush(stdout) != 0 || ferror(stdout))
		ret = compat_fail("stdout: %s", strerror(errno ? errno : EIO));
	return ret;
}

int compat_unsquashfs_main(int argc, char **argv)
{
	struct usq u;
	int ret;

	memset(&u, 0, sizeof(u));
	u.dest = "squashfs-root";
	u.progress = 1;
	u.exit_code = 1;
	u.filter.max_depth = -1;
	u.threads = sqk_online_cpus();
	u.sink.dir_begin = dir_begin;
	u.sink.dir_end = dir_end;
	u.sink.node = node;
	signal(SIGPIPE, SIG_IGN);
	ret = run(&u, argc, argv);
	free(u.pending);
	usq_links_release(&u.links);
	usq_filter_release(&u.filter);
	sqk_attropt_release(&u.attr);
	return ret;
}
