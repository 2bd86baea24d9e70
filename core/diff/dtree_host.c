// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tree of a host directory. Everything is read relative to the
 * descriptor of the directory the walk is in (a stack of them, sqk_dirstack),
 * with O_NOFOLLOW and AT_SYMLINK_NOFOLLOW: a symlink is compared as itself,
 * never followed, and a rename above the walk does not move it elsewhere.
 * Names are listed as raw bytes in the order an image keeps them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "dtree.h"
#include "format/fmt_name.h"
#include "format/fmt_xattr.h"
#include "format/format.h"
#include "util/array.h"
#include "util/error.h"
#include "walk/dirstack.h"

struct dir_id {
	dev_t dev;
	ino_t ino;
};

/*
 * A directory entered: its names packed one after another (NUL-terminated),
 * where each starts in their order, and the entry next gives next.
 */
struct listing {
	char *names;
	size_t len, cap;
	uint32_t *at;
	size_t n, at_cap, next;
	struct sqk_dir_entry e; /* the entry given last */
};

struct host_tree {
	struct sqk_dtree t;
	int root_fd;
	struct sqk_dirstack dirs;
	/* The directories entered, root first: one met again below itself is a loop (a bind mount).
	 */
	struct dir_id *up;
	struct listing **ls; /* nls of them: a level's stays for the next walk */
	size_t nup, up_cap, nls;
};

static void node_from(struct sqk_dnode *n, const struct stat *st, const char *name)
{
	memset(n, 0, sizeof(*n));
	n->type = sqk_fmt_type_of_mode(st->st_mode);
	n->perm = st->st_mode & 07777;
	n->uid = st->st_uid;
	n->gid = st->st_gid;
	n->mtime = st->st_mtim.tv_sec;
	n->size = n->type == SQK_FILE ? (uint64_t)st->st_size : 0;
	n->nlink = (uint32_t)st->st_nlink;
	n->dev = st->st_dev;
	n->ino = st->st_ino;
	n->major = major(st->st_rdev);
	n->minor = minor(st->st_rdev);
	n->name = name;
}

/* The directory the walk is in. */
static int cur_fd(struct host_tree *h)
{
	return h->dirs.depth ? sqk_dirstack_fd(&h->dirs) : h->root_fd;
}

static int host_root(struct sqk_dtree *t, struct sqk_dnode *out)
{
	struct host_tree *h = (struct host_tree *)t;
	struct stat st;

	if (fstat(h->root_fd, &st) != 0)
		return sqk_err_from_errno();
	node_from(out, &st, NULL);
	return 0;
}

static int by_name(const void *a, const void *b, void *arg)
{
	const char *names = arg, *x = names + *(const uint32_t *)a,
		   *y = names + *(const uint32_t *)b;

	return sqk_name_cmp(x, strlen(x), y, strlen(y));
}

/* The names of the directory open at fd (which stays open), sorted into l. */
static int list(int fd, struct listing *l)
{
	struct dirent *d;
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0), err = 0;
	DIR *dir;

	l->len = l->n = l->next = 0;
	if (dfd < 0)
		return sqk_err_from_errno();
	dir = fdopendir(dfd);
	if (!dir) {
		err = sqk_err_from_errno();
		close(dfd);
		return err;
	}
	/* The copy shares the offset: a directory listed before is listed whole again. */
	rewinddir(dir);
	for (;;) {
		size_t len;

		errno = 0;
		d = readdir(dir);
		if (!d) {
			if (errno)
				err = sqk_err_from_errno();
			break;
		}
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		len = strlen(d->d_name);
		if (len > SQK_NAME_MAX) {
			errno = ENAMETOOLONG;
			err = SQK_ERR_IO;
			break;
		}
		if (l->len + len + 1 > UINT32_MAX || SQK_ARRAY_GROW(l->at, l->at_cap, l->n + 1) ||
		    SQK_ARRAY_GROW(l->names, l->cap, l->len + len + 1)) {
			err = SQK_ERR_NOMEM;
			break;
		}
		memcpy(l->names + l->len, d->d_name, len + 1);
		l->at[l->n++] = (uint32_t)l->len;
		l->len += len + 1;
	}
	if (err) {
		int saved = errno;

		closedir(dir);
		errno = saved;
		return err;
	}
	closedir(dir);
	if (l->n > 1)
		qsort_r(l->at, l->n, sizeof(*l->at), by_name, l->names);
	return 0;
}

static int host_enter(struct sqk_dtree *t, struct sqk_dnode *dir)
{
	struct host_tree *h = (struct host_tree *)t;
	struct stat st;
	size_t i;
	int fd, err;

	fd = dir->name
		     ? openat(cur_fd(h), dir->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		     : fcntl(h->root_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return sqk_err_from_errno();
	err = fstat(fd, &st) != 0 ? sqk_err_from_errno() : 0;
	for (i = 0; !err && i < h->nup; i++)
		if (h->up[i].dev == st.st_dev && h->up[i].ino == st.st_ino)
			err = SQK_ERR_LOOP;
	if (!err && SQK_ARRAY_GROW(h->up, h->up_cap, h->nup + 1))
		err = SQK_ERR_NOMEM;
	if (!err && h->nup == h->nls) {
		/*
		 * A listing a level, kept for the next walk down to that depth;
		 * each allocated on its own, as the nodes of a level point into
		 * its entry while the levels below are entered.
		 */
		struct listing **p = realloc(h->ls, (h->nls + 1) * sizeof(*p));

		if (p)
			h->ls = p;
		if (!p || !(p[h->nls] = calloc(1, sizeof(**p))))
			err = SQK_ERR_NOMEM;
		else
			h->nls++;
	}
	if (!err)
		err = list(fd, h->ls[h->nup]);
	if (!err) {
		err = sqk_dirstack_push(&h->dirs, fd, dir->name, 0, 0);
		if (!err)
			h->up[h->nup++] = (struct dir_id){st.st_dev, st.st_ino};
	}
	if (err) {
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return err;
}

static int host_next(struct sqk_dtree *t, const struct sqk_dir_entry **e)
{
	struct host_tree *h = (struct host_tree *)t;
	struct listing *l = h->ls[h->nup - 1];
	const char *name;

	if (l->next == l->n)
		return 0;
	name = l->names + l->at[l->next++];
	l->e.name_len = (uint32_t)strlen(name);
	memcpy(l->e.name, name, l->e.name_len + 1);
	*e = &l->e;
	return 1;
}

static int host_rewind(struct sqk_dtree *t)
{
	struct host_tree *h = (struct host_tree *)t;

	h->ls[h->nup - 1]->next = 0;
	return 0;
}

/* A listing that held many names gives their memory back. */
static void forget_names(struct listing *l)
{
	if (l->cap > (64u << 10)) {
		free(l->names);
		free(l->at);
		l->names = NULL;
		l->at = NULL;
		l->cap = l->at_cap = 0;
	}
}

static void host_leave(struct sqk_dtree *t)
{
	struct host_tree *h = (struct host_tree *)t;
	int fd = -1, owner_ok;

	/* Going back up reopens a level only when the stack had closed it. */
	sqk_dirstack_pop(&h->dirs, &fd, &owner_ok);
	if (fd >= 0)
		close(fd);
	forget_names(h->ls[--h->nup]);
}

static int read_target(int dirfd, const char *name, struct sqk_dnode *n)
{
	size_t cap = 256;

	for (;;) {
		char *buf = malloc(cap);
		ssize_t len;

		if (!buf)
			return SQK_ERR_NOMEM;
		len = readlinkat(dirfd, name, buf, cap);
		if (len < 0) {
			int err = sqk_err_from_errno();

			free(buf);
			return err;
		}
		if ((size_t)len < cap) {
			buf[len] = '\0';
			n->target = buf;
			n->target_len = (size_t)len;
			return 0;
		}
		free(buf);
		cap *= 2;
	}
}

static int host_stat(struct sqk_dtree *t, const struct sqk_dir_entry *e, struct sqk_dnode *out)
{
	struct host_tree *h = (struct host_tree *)t;
	struct stat st;

	if (fstatat(cur_fd(h), e->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return sqk_err_from_errno();
	node_from(out, &st, e->name);
	if (out->type == SQK_SYMLINK)
		return read_target(cur_fd(h), e->name, out);
	return 0;
}

/*
 * The xattrs of an entry are read through /proc/self/fd/DIR/NAME with the l*
 * calls (a symlink or a device has no descriptor to ask), the root's through
 * its descriptor.
 */
struct xat {
	int fd;
	const char *path;
};

static ssize_t xlist(const struct xat *x, char *buf, size_t len)
{
	return x->path ? llistxattr(x->path, buf, len) : flistxattr(x->fd, buf, len);
}

static ssize_t xget(const struct xat *x, const char *name, void *buf, size_t len)
{
	return x->path ? lgetxattr(x->path, name, buf, len) : fgetxattr(x->fd, name, buf, len);
}

/* The value of name, malloc'd; 1 when it went away meanwhile. */
static int xvalue(const struct xat *x, const char *name, struct sqk_xattr *out)
{
	for (;;) {
		ssize_t len = xget(x, name, NULL, 0), got;
		uint8_t *v;

		if (len < 0)
			return errno == ENODATA ? 1 : sqk_err_from_errno();
		v = malloc((size_t)len + 1);
		if (!v)
			return SQK_ERR_NOMEM;
		got = xget(x, name, v, (size_t)len);
		if (got >= 0) {
			out->value = v;
			out->value_len = (uint32_t)got;
			return 0;
		}
		free(v);
		if (errno != ERANGE) /* ERANGE: it grew meanwhile */
			return errno == ENODATA ? 1 : sqk_err_from_errno();
	}
}

/* The names in the list, NUL-separated, malloc'd; *len 0 when there are none. */
static int xnames(const struct xat *x, char **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	for (;;) {
		ssize_t len = xlist(x, NULL, 0), got;
		char *names;

		if (len < 0)
			return errno == ENOTSUP ? 0 : sqk_err_from_errno();
		if (len == 0)
			return 0;
		names = malloc((size_t)len);
		if (!names)
			return SQK_ERR_NOMEM;
		got = xlist(x, names, (size_t)len);
		if (got >= 0) {
			*out = names;
			*outlen = (size_t)got;
			return 0;
		}
		free(names);
		if (errno != ERANGE)
			return sqk_err_from_errno();
	}
}

static int host_xattrs(struct sqk_dtree *t, const struct sqk_dnode *node, struct sqk_xattr **list,
		       uint32_t *count)
{
	struct host_tree *h = (struct host_tree *)t;
	char proc[64 + SQK_NAME_MAX_BUF], *names, *p;
	struct xat x = {h->root_fd, NULL};
	struct sqk_xattr *v = NULL;
	size_t len, cap = 0, n = 0;
	int err;

	*list = NULL;
	*count = 0;
	if (node->name) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", cur_fd(h), node->name);
		x.path = proc;
	}
	err = xnames(&x, &names, &len);
	for (p = names; !err && p && p < names + len; p += strlen(p) + 1) {
		size_t plen;

		/* Only the names an image can hold: user., trusted., security. */
		if (sqk_fmt_xattr_type(p, &plen) < 0)
			continue;
		if (SQK_ARRAY_GROW(v, cap, n + 1)) {
			err = SQK_ERR_NOMEM;
			break;
		}
		memset(&v[n], 0, sizeof(v[n]));
		err = xvalue(&x, p, &v[n]);
		if (err == 1) {
			err = 0;
			continue;
		}
		if (!err && !(v[n].name = strdup(p)))
			err = SQK_ERR_NOMEM;
		n++;
	}
	free(names);
	if (err) {
		int saved = errno;

		sqk_xattr_free(v, (uint32_t)n);
		errno = saved;
		return err;
	}
	*list = v;
	*count = (uint32_t)n;
	return 0;
}

static int host_open(struct sqk_dtree *t, struct sqk_dnode *node, struct sqk_dfile **out)
{
	struct host_tree *h = (struct host_tree *)t;
	struct sqk_dfile *f;
	struct stat st = {0};
	int fd;

	/* O_NONBLOCK: a fifo put in the file's place meanwhile must not hang the open. */
	fd = openat(cur_fd(h), node->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sqk_err_from_errno();
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		/* Not a file any more: something else took its name meanwhile. */
		int saved = errno;

		close(fd);
		errno = saved;
		if (st.st_mode && !S_ISREG(st.st_mode))
			errno = ESTALE;
		return SQK_ERR_IO;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return SQK_ERR_NOMEM;
	}
	f->tree = t;
	f->fd = fd;
	*out = f;
	return 0;
}

static int host_read(struct sqk_dfile *f, uint64_t off, void *buf, size_t len, size_t *got)
{
	uint8_t *p = buf;

	*got = 0;
	while (*got < len) {
		ssize_t r = pread(f->fd, p + *got, len - *got, (off_t)(off + *got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return sqk_err_from_errno();
		if (r == 0)
			break; /* it ends early: the comparison sees a difference there */
		*got += (size_t)r;
	}
	return 0;
}

static void host_close(struct sqk_dfile *f)
{
	if (f) {
		close(f->fd);
		free(f);
	}
}

static void host_release(struct sqk_dnode *node)
{
	free(node->target);
	node->target = NULL;
}

static void host_destroy(struct sqk_dtree *t)
{
	struct host_tree *h = (struct host_tree *)t;

	size_t i;

	sqk_dirstack_release(&h->dirs);
	close(h->root_fd);
	free(h->up);
	for (i = 0; i < h->nls; i++) {
		free(h->ls[i]->names);
		free(h->ls[i]->at);
		free(h->ls[i]);
	}
	free(h->ls);
	free(h);
}

static const struct sqk_dtree_ops host_ops = {
	host_root,   host_enter, host_next, host_rewind, host_leave,   host_stat,
	host_xattrs, host_open,	 host_read, host_close,	 host_release, host_destroy,
};

int sqk_dtree_host(const char *path, struct sqk_dtree **out)
{
	struct host_tree *h = calloc(1, sizeof(*h));

	if (!h)
		return SQK_ERR_NOMEM;
	h->root_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (h->root_fd < 0) {
		int err = sqk_err_from_errno(), saved = errno;

		free(h);
		errno = saved;
		return err;
	}
	h->dirs.root_fd = h->root_fd;
	h->t.ops = &host_ops;
	*out = &h->t;
	return 0;
}
