// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit ls: list a directory of an image, one directory at a time.
 *
 * The tree is never loaded, nor is a listing: PATH is resolved component by
 * component, and each directory's listing is gone through in passes, the
 * public iterator holding no block between its calls. The first pass reads
 * every entry (and, for -l and --json, its inode, which gives -l its column
 * widths) before a line is printed, so that a directory that cannot be read
 * shows nothing; the second prints; with -R a third goes down into the
 * subdirectories, a listing open at each level. A directory of millions of
 * entries costs no more memory than one of ten.
 *
 * Past the inspectors' driver this uses the public API alone; -R guards
 * against a directory listed inside itself in a corrupt image with a
 * sqk_dir_guard (the public walk has its own, but walks depth first, not
 * a listing at a time).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "show.h"
#include "fe.h"

static const char usage_text[] =
	"Usage: squashkit ls [OPTIONS] IMAGE [PATH...]\n"
	"List the directory PATH of IMAGE (default: the root), or PATH itself when it\n"
	"is not a directory. Every entry is shown, dot files too, in byte order.\n"
	"With several PATHs, as ls(1): those that are not directories first, then each\n"
	"directory under a \"PATH:\" header.\n\n"
	"  -l, --long        mode, links, owner (numeric), size or device numbers,\n"
	"                    mtime (UTC), name and symlink target\n"
	"  -R, --recursive   list subdirectories too, each under a \"PATH:\" header\n"

	"      --json        a JSON array with one object per entry\n" SQK_HELP_INSPECTOR_TAIL;

static const struct option longopts[] = {
	{"long", no_argument, NULL, 'l'},
	{"recursive", no_argument, NULL, 'R'},
	{NULL, 0, NULL, 0},
};

/* What -l and --json show of an inode. */
struct info {
	mode_t mode;
	uint32_t number, nlink, uid, gid, mtime;
	dev_t rdev;
	uint64_t size; /* as a mount reports it */
	char *target;
};

struct ls {
	struct sqk_show *show;
	struct sqk_image *img;
	int lng, rec, json;
	int headers;  /* a "PATH:" over each listing: -R, or several PATHs */
	int sections; /* headers printed */
	int files;    /* PATHs shown that are no directories */
	/* Directories listed by -R: one reached twice is a loop in a corrupt image. */
	struct sqk_dir_guard *guard; /* against a directory listed inside itself */
	/* The first failure: where, and the errno behind it. */
	char err_path[4096 + 256 + 2];
	int err_errno;
};

static int info_from(struct ls *ls, struct info *i, const struct sqk_inode *ino)
{
	struct sqk_inode_layout l;
	struct sqk_stat st;
	int err;

	sqk_inode_stat(ino, &st);
	memset(i, 0, sizeof(*i));
	i->mode = st.mode;
	i->number = st.ino;
	i->nlink = st.nlink;
	i->uid = st.uid;
	i->gid = st.gid;
	i->mtime = st.mtime;
	i->rdev = st.rdev;
	err = sqk_inode_layout(ls->img, ino, &l);
	i->size = l.size_mounted;
	if (!err && S_ISLNK(st.mode)) {
		i->target = malloc(st.size + 1);
		if (!i->target)
			return SQK_ERR_NOMEM;
		err = sqk_inode_readlink(ino, i->target, st.size + 1);
	}
	return err < 0 ? err : 0;
}

static int is_device(const struct info *i)
{
	return S_ISBLK(i->mode) || S_ISCHR(i->mode);
}

/* The size column: bytes, or "major, minor" for a device. */
static void size_text(const struct info *i, char *out, size_t len)
{
	if (is_device(i))
		snprintf(out, len, "%u, %u", major(i->rdev), minor(i->rdev));
	else
		snprintf(out, len, "%llu", (unsigned long long)i->size);
}

static int digits(unsigned long long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

struct widths {
	int nlink, uid, gid, size;
};

static void widen(struct widths *w, const struct info *i)
{
	char sz[48];
	int n;

	size_text(i, sz, sizeof(sz));
	n = (int)strlen(sz);
	if (digits(i->nlink) > w->nlink)
		w->nlink = digits(i->nlink);
	if (digits(i->uid) > w->uid)
		w->uid = digits(i->uid);
	if (digits(i->gid) > w->gid)
		w->gid = digits(i->gid);
	if (n > w->size)
		w->size = n;
}

static void print_long(const struct info *i, const struct widths *w, const char *name)
{
	char mode[11], sz[48], when[32];

	cli_mode_string(i->mode, mode);
	size_text(i, sz, sizeof(sz));
	cli_time_string(i->mtime, 0, when, sizeof(when));
	printf("%s %*u %*u %*u %*s %s ", mode, w->nlink, i->nlink, w->uid, i->uid, w->gid, i->gid,
	       w->size, sz, when);
	cli_print_escaped(stdout, name);
	if (i->target) {
		fputs(" -> ", stdout);
		cli_print_escaped(stdout, i->target);
	}
	fputc('\n', stdout);
}

/* dir "/" + name "a" -> "/a"; dir "/x" + "a" -> "/x/a"; malloc'd. */
static char *join(const char *dir, const char *name, size_t nlen)
{
	size_t dlen = strlen(dir);
	char *p = malloc(dlen + 1 + nlen + 1);

	if (!p)
		return NULL;
	memcpy(p, dir, dlen);
	if (dlen == 0 || dir[dlen - 1] != '/')
		p[dlen++] = '/';
	memcpy(p + dlen, name, nlen);
	p[dlen + nlen] = '\0';
	return p;
}

static void print_json(struct ls *ls, const struct info *i, const char *name, const char *path)
{
	struct sqk_json *j = &ls->show->out;

	sqk_json_begin_object(j, 0);
	sqk_json_key_string(j, "name", name);
	if (path)
		sqk_json_key_string(j, "path", path);
	else
		sqk_json_key_null(j, "path");
	sqk_json_key_uint(j, "inode", i->number);
	sqk_json_key_string(j, "type", sqk_type_key(i->mode));
	sqk_json_key_uint(j, "mode", i->mode & 07777);
	sqk_json_key_uint(j, "uid", i->uid);
	sqk_json_key_uint(j, "gid", i->gid);
	sqk_json_key_uint(j, "size", i->size);
	sqk_json_key_uint(j, "mtime", i->mtime);
	sqk_json_key_uint(j, "nlink", i->nlink);
	if (i->target)
		sqk_json_key_string(j, "target", i->target);
	if (is_device(i)) {
		sqk_json_key_uint(j, "major", major(i->rdev));
		sqk_json_key_uint(j, "minor", minor(i->rdev));
	}
	sqk_json_end_object(j);
}

/* Where a failure was (dir, or dir/name), and the errno of the call that failed. */
static void set_err_path(struct ls *ls, const char *dir, const char *name)
{
	snprintf(ls->err_path, sizeof(ls->err_path), "%s%s%s", dir,
		 name && strcmp(dir, "/") != 0 ? "/" : "", name ? name : "");
	ls->err_errno = sqk_error_errno();
}

/*
 * One pass over the listing of dir (at path), each entry given to fn with
 * its inode's info when want_info: 0, or the first failure, its path set.
 */
static int each_entry(struct ls *ls, const struct sqk_inode *dir, const char *path, int want_info,
		      int (*fn)(struct ls *ls, const char *path, const struct sqk_dirent *e,
				const struct info *i, void *arg),
		      void *arg)
{
	struct sqk_dirent e;
	struct sqk_dir *d;
	struct info i;
	int r = sqk_dir_open(ls->img, dir, &d);

	while (d && (r = sqk_dir_next(d, &e)) == 1) {
		struct sqk_inode *ino = NULL;

		memset(&i, 0, sizeof(i));
		if (want_info) {
			r = sqk_dirent_open(ls->img, &e, &ino);
			if (!r)
				r = info_from(ls, &i, ino);
			sqk_inode_destroy(ino);
			if (r) {
				free(i.target);
				set_err_path(ls, path, e.name);
				sqk_dir_destroy(d);
				return r;
			}
		}
		/* fn says where it failed itself. */
		r = fn(ls, path, &e, &i, arg);
		free(i.target);
		if (r) {
			sqk_dir_destroy(d);
			return r;
		}
	}
	/* The listing's own failure. */
	if (r < 0)
		set_err_path(ls, path, NULL);
	sqk_dir_destroy(d);
	return r < 0 ? r : 0;
}

/* What the first pass learns: -l's column widths, and whether -R has a way down. */
struct first_pass {
	struct widths w;
	int subdirs;
};

static int widen_entry(struct ls *ls, const char *path, const struct sqk_dirent *e,
		       const struct info *i, void *arg)
{
	struct first_pass *p = arg;

	widen(&p->w, i);
	p->subdirs |= S_ISDIR(e->type);
	return 0;
}

/* The second: the entry's line. */
static int print_entry(struct ls *ls, const char *path, const struct sqk_dirent *e,
		       const struct info *i, void *arg)
{
	if (ls->json) {
		char *p = join(path, e->name, e->name_len);

		print_json(ls, i, e->name, p);
		free(p);
	} else if (ls->lng) {
		print_long(i, arg, e->name);
	} else {
		cli_print_escaped(stdout, e->name);
		fputc('\n', stdout);
	}
	return 0;
}

static int list_dir(struct ls *ls, const struct sqk_inode *dir, const char *path, unsigned depth);

/* -R's third: into each subdirectory. */
static int descend(struct ls *ls, const char *path, const struct sqk_dirent *e,
		   const struct info *i, void *arg)
{
	const unsigned *depth = arg;
	struct sqk_inode *sub;
	char *child;
	int err;

	if (!S_ISDIR(e->type))
		return 0;
	child = join(path, e->name, e->name_len);
	if (!child) {
		set_err_path(ls, path, e->name);
		return SQK_ERR_NOMEM;
	}
	err = sqk_dirent_open(ls->img, e, &sub);
	if (!err) {
		err = sqk_dir_guard_enter(ls->guard, e->ino, *depth + 1);
		if (err)
			set_err_path(ls, child, NULL);
		else
			err = list_dir(ls, sub, child, *depth + 1);
		sqk_inode_destroy(sub);
	} else {
		set_err_path(ls, child, NULL);
	}
	free(child);
	return err;
}

static int list_dir(struct ls *ls, const struct sqk_inode *dir, const char *path, unsigned depth)
{
	struct first_pass p = {{1, 1, 1, 1}, 0};
	int info = ls->lng || ls->json, err;

	if (ls->headers && !ls->json) {
		if (ls->sections++ || ls->files)
			fputc('\n', stdout);
		cli_print_escaped(stdout, path);
		fputs(":\n", stdout);
	}
	err = each_entry(ls, dir, path, info, widen_entry, &p);
	if (!err)
		err = each_entry(ls, dir, path, info, print_entry, &p.w);
	if (!err && ls->rec && p.subdirs)
		err = each_entry(ls, dir, path, 0, descend, &depth);
	return err;
}

static const char *base_name(const char *norm)
{
	const char *s = strrchr(norm, '/');

	return s && s[1] ? s + 1 : norm;
}

/* A PATH that is no directory: its one line, as ls shows a file operand. */
static int list_file(struct ls *ls, const struct sqk_inode *ino, const char *path, const char *norm)
{
	struct widths w = {1, 1, 1, 1};
	struct info i;
	int err = info_from(ls, &i, ino);

	if (!err) {
		widen(&w, &i);
		if (ls->json)
			print_json(ls, &i, base_name(norm), norm);
		else if (ls->lng)
			print_long(&i, &w, path);
		else
			printf("%s\n", path);
	} else {
		set_err_path(ls, norm, NULL);
	}
	free(i.target);
	return err;
}

/*
 * One PATH operand: in the first pass (dirs 0) a file's line, in the
 * second (dirs 1) a directory's listing. 0, -1 after saying why, or 1 when
 * PATH is not for this pass.
 */
static int list(struct ls *ls, const char *path, int dirs)
{
	struct sqk_inode *ino;
	struct sqk_stat st;
	char *norm = cli_show_normalise(path);
	int err, ret = 0;

	if (!norm) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return -1;
	}
	/* A PATH that cannot be resolved is said once, in the first pass. */
	err = sqk_inode_open_lstat(ls->img, path, &ino);
	if (err) {
		/* Named as given, as cat and stat name theirs. */
		if (!dirs)
			cli_show_path_error(ls->show->image, path, cli_api_why(err));
		free(norm);
		return dirs ? 1 : -1;
	}
	sqk_inode_stat(ino, &st);
	if (S_ISDIR(st.mode) != dirs) {
		ret = 1;
	} else if (dirs) {
		/* A directory reached again under another operand is no loop. */
		sqk_dir_guard_destroy(ls->guard);
		err = sqk_dir_guard_create(&ls->guard);
		if (!err)
			err = sqk_dir_guard_enter(ls->guard, st.ino, 0);
		if (err)
			set_err_path(ls, norm, NULL);
		else
			err = list_dir(ls, ino, norm, 0);
	} else {
		err = list_file(ls, ino, path, norm);
		ls->files++;
	}
	sqk_inode_destroy(ino);
	if (err)
		cli_show_path_error(ls->show->image, ls->err_path,
				    cli_api_text(err, ls->err_errno));
	free(norm);
	return err ? -1 : ret;
}

/* Operands in byte order, as ls sorts them. */
static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int option(struct sqk_show *s, int opt, const char *arg)
{
	struct ls *ls = s->ctx;

	if (opt == 'l')
		ls->lng = 1;
	else
		ls->rec = 1;
	return 0;
}

/*
 * As ls(1): the PATHs that are no directories first, then each directory,
 * under a "PATH:" header when there are several PATHs (or -R); a PATH that
 * fails is said and the others are listed. With --json, one array of them all.
 */
static int run(struct sqk_show *s)
{
	static char *root[] = {"/"};
	struct ls *ls = s->ctx;
	char **paths = s->npaths ? s->paths : root;
	unsigned n = s->npaths ? s->npaths : 1, i;
	int ret = EXIT_OK;

	ls->show = s;
	ls->img = s->img;
	ls->json = s->json;
	ls->headers = ls->rec || n > 1;
	qsort(paths, n, sizeof(*paths), by_name);
	if (ls->json)
		sqk_json_begin_array(&s->out, SQK_JSON_LINES);
	for (int dirs = 0; dirs < 2; dirs++)
		for (i = 0; i < n; i++)
			if (list(ls, paths[i], dirs) < 0)
				ret = EXIT_FAIL;
	/* The array is closed even after a failure: what was printed stays valid JSON. */
	if (ls->json) {
		sqk_json_end_array(&s->out);
		sqk_json_finish(&s->out);
	}
	sqk_dir_guard_destroy(ls->guard);
	return ret;
}

int cli_ls(int argc, char **argv)
{
	static const struct sqk_show_cmd ls_cmd = {
		.usage = usage_text,
		.shortopts = "lR",
		.longopts = longopts,
		.json = 1,
		.max_paths = ~0u,
		.option = option,
		.run = run,
	};
	struct ls *ls = calloc(1, sizeof(*ls));
	int ret;

	if (!ls) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	ret = cli_show_main(argc, argv, &ls_cmd, ls);
	free(ls);
	return ret;
}
