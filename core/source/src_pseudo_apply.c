// SPDX-License-Identifier: BSD-2-Clause
/*
 * Pseudo definitions applied on top of the sources, as mksquashfs applies
 * them: an entry goes into a directory that a source gave or that a d
 * definition makes; a d definition of a directory a source gave adds to
 * it and leaves its attributes (change them with m); m changes the mode,
 * owners (and with M the time) of an entry a source gave. Where mksquashfs
 * warns and skips (a definition where a source has the path, m with
 * nothing to modify, entries below an undefined directory), this stops
 * with the definition's place, or with pseudo_warn warns and skips the
 * definition and those below it. Excludes apply to sources, not here.
 * The data of f commands and R definitions is fed to the pipeline in the
 * order of the definitions, so commands run in that order too.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/format.h"
#include "pseudo_int.h"
#include "util/array.h"
#include "util/error.h"
#include "util/file.h"

extern char **environ;

static int afail(struct sqk_src_ctx *c, const struct sqk_pseudo_def *d, int err, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

static int afail(struct sqk_src_ctx *c, const struct sqk_pseudo_def *d, int err, const char *fmt,
		 ...)
{
	char where[4300], msg[512];
	va_list ap;
	int e = errno;

	sqk_pseudo_where(d, where, sizeof(where));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errno = e;
	sqk_src_fail(c, where, "%s", msg);
	return err;
}

/*
 * A definition that cannot be placed: the error, or with pseudo_warn a
 * warning, and the definition (with those below it) is left out.
 */
static int cannot_place(struct sqk_src_ctx *c, const struct sqk_pseudo_def *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int cannot_place(struct sqk_src_ctx *c, const struct sqk_pseudo_def *d, const char *fmt, ...)
{
	char where[4300], msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->pseudo_warn)
		return afail(c, d, SQK_ERR_ARG, "%s", msg);
	if (c->warn) {
		sqk_pseudo_where(d, where, sizeof(where));
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "; left out");
		c->warn(c->warn_ctx, where, msg);
	}
	return 0;
}

/* Host files named by l, by device and inode: one node each, shared with the sources. */
struct host {
	uint64_t dev, ino;
	sqk_nid node;
};

struct apply {
	struct sqk_src_ctx *c;
	struct sqk_pseudo *p;
	struct host *hosts;
	size_t nhosts;
};

static int host_cmp(const void *x, const void *y)
{
	const struct host *a = x, *b = y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

static struct host *host_find(struct apply *a, uint64_t dev, uint64_t ino)
{
	struct host key = {dev, ino, 0};

	return a->nhosts ? bsearch(&key, a->hosts, a->nhosts, sizeof(key), host_cmp) : NULL;
}

/*
 * l of a file that a source also gave makes a hard link to it (as the
 * mksquashfs manual says): find the sources' files by device and inode.
 */
static int find_hosts(struct apply *a)
{
	struct sqk_tree *t = a->c->tree;
	struct sqk_pseudo_def *d;
	struct sqk_tree_walk *w = NULL;
	struct sqk_tree_item it;
	char *src = NULL;
	size_t n = 0, cap = 0, i, k;
	int err = 0;

	if (a->c->no_hardlinks)
		return 0;
	for (d = a->p->first; d; d = d->next_def) {
		if (d->kind != SQK_PK_HOST || d->type != SQK_FILE)
			continue;
		if (SQK_ARRAY_GROW(a->hosts, cap, n + 1))
			return SQK_ERR_NOMEM;
		a->hosts[n++] = (struct host){d->dev, d->ino, 0};
	}
	if (!n)
		return 0;
	qsort(a->hosts, n, sizeof(*a->hosts), host_cmp);
	for (i = 1, k = 1; i < n; i++)
		if (host_cmp(&a->hosts[i], &a->hosts[k - 1]))
			a->hosts[k++] = a->hosts[i];
	a->nhosts = k;
	/* Every file of the sources read from a host path: one stat each. */
	err = sqk_tree_walk_start(t, &w);
	while (!err && !(err = sqk_tree_walk_next(w, &it))) {
		struct sqk_node node;
		struct host *h;
		struct stat st;

		err = sqk_tree_get(t, it.node, &node);
		if (err || node.type != SQK_FILE || !node.file.srclen ||
		    (node.flags & SQK_NODE_DATA_DONE))
			continue;
		free(src);
		src = malloc((size_t)node.file.srclen + 1);
		if (!src) {
			err = SQK_ERR_NOMEM;
			break;
		}
		err = sqk_tree_str_get(t, node.file.src, node.file.srclen, src);
		if (err || stat(src, &st) != 0)
			continue;
		h = host_find(a, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
		if (h && !h->node)
			h->node = it.node;
	}
	free(src);
	sqk_tree_walk_end(w);
	return err == 1 ? 0 : err;
}

static int host_node(struct apply *a, struct sqk_pseudo_def *d, struct sqk_node *n)
{
	struct sqk_src_ctx *c = a->c;
	int i, err = 0;

	for (i = 0; i < c->nskip; i++)
		if (d->dev == (uint64_t)c->skip_dev[i] && d->ino == (uint64_t)c->skip_ino[i])
			return afail(c, d, SQK_ERR_ARG, "%s is the image being written", d->arg);
	n->mode = d->mode;
	n->uid = d->uid;
	n->gid = d->gid;
	n->mtime = sqk_src_time(c, d->path, d->host_mtime);
	switch (d->type) {
	case SQK_FILE:
		n->size = d->length;
		n->file.srclen = (uint32_t)strlen(d->arg);
		err = sqk_tree_str(c->tree, d->arg, strlen(d->arg), &n->file.src);
		break;
	case SQK_SYMLINK: {
		char *t = malloc((size_t)d->length + 1);
		ssize_t len;

		if (!t)
			return SQK_ERR_NOMEM;
		len = readlink(d->arg, t, (size_t)d->length + 1);
		if (len < 0 || (uint64_t)len > d->length) {
			err = afail(c, d, SQK_ERR_IO, "%s: %s", d->arg,
				    len < 0 ? strerror(errno) : "the symlink changed");
			free(t);
			return err;
		}
		n->size = (uint64_t)len;
		err = sqk_tree_str(c->tree, t, (size_t)len, &n->target);
		free(t);
		break;
	}
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		n->dev.major = d->major;
		n->dev.minor = d->minor;
		break;
	}
	if (err)
		return err;
	return c->xattrs ? sqk_src_read_xattrs(c, d->arg, n) : 0;
}

/* The node a definition makes: made once, shared by its hard links. */
static int make_node(struct apply *a, struct sqk_pseudo_def *d, sqk_nid *out)
{
	struct sqk_src_ctx *c = a->c;
	struct sqk_node n;
	struct host *h = NULL;
	sqk_nid id;
	int err;

	if (d->node) {
		*out = d->node;
		return 0;
	}
	if (d->kind == SQK_PK_LINK) {
		err = make_node(a, d->link, &id);
		/* A copy of the target (--no-hardlinks): same attributes, its own inode. */
		if (!err && c->no_hardlinks)
			err = sqk_tree_clone(c->tree, id, &id);
		if (err)
			return err;
		*out = d->node = id;
		return 0;
	}
	if (d->kind == SQK_PK_HOST && d->type == SQK_FILE) {
		h = host_find(a, d->dev, d->ino);
		if (h && h->node) {
			*out = d->node = h->node;
			return 0;
		}
	}
	err = sqk_tree_new(c->tree, d->type, &id, &n);
	if (err)
		return err;
	if (d->kind == SQK_PK_HOST) {
		err = host_node(a, d, &n);
		if (err)
			return err;
		if (h)
			h->node = id;
	} else {
		n.mode = d->mode;
		n.uid = d->uid;
		n.gid = d->gid;
		n.mtime = d->mtime;
		if (d->kind == SQK_PK_SYMLINK) {
			n.size = strlen(d->arg);
			err = sqk_tree_str(c->tree, d->arg, strlen(d->arg), &n.target);
			if (err)
				return err;
		} else if (d->type == SQK_BLKDEV || d->type == SQK_CHRDEV) {
			n.dev.major = d->major;
			n.dev.minor = d->minor;
		}
	}
	err = sqk_tree_put(c->tree, id, &n);
	if (err)
		return err;
	*out = d->node = id;
	return 0;
}

static void set_attrs(struct sqk_node *n, const struct sqk_pseudo_def *d)
{
	n->mode = d->mode;
	n->uid = d->uid;
	n->gid = d->gid;
	if (d->kind == SQK_PK_DIR || d->timed)
		n->mtime = d->mtime;
	n->flags &= ~SQK_NODE_IMPLICIT;
}

/* The definition's attributes onto node id. */
static int modify(struct sqk_tree *t, sqk_nid id, const struct sqk_pseudo_def *d)
{
	struct sqk_node n;
	int err = sqk_tree_get(t, id, &n);

	if (err)
		return err;
	set_attrs(&n, d);
	return sqk_tree_put(t, id, &n);
}

static int place_dir(struct apply *a, struct sqk_pseudo_def *pd, sqk_nid dir)
{
	struct sqk_src_ctx *c = a->c;
	struct sqk_pseudo_def *d;
	int err = 0;

	for (d = pd->child; d && !err; d = d->sibling) {
		const char *name = d->path + d->namepos;
		size_t len = strlen(name);
		struct sqk_node o = {0};
		sqk_nid old, n;

		err = sqk_tree_lookup(c->tree, dir, name, len, &old);
		if (!err && old)
			err = sqk_tree_get(c->tree, old, &o);
		if (err)
			return err;
		switch (d->kind) {
		case SQK_PK_NONE:
			if (!old)
				err = cannot_place(
					c, d,
					"no directory /%s: define it (d) or give it in a source",
					d->path);
			else if (o.type != SQK_DIR)
				err = cannot_place(c, d, "/%s is not a directory", d->path);
			else
				err = place_dir(a, d, old);
			break;
		case SQK_PK_MODIFY:
			if (!old) {
				err = cannot_place(c, d, "nothing at /%s to modify", d->path);
				break;
			}
			err = modify(c->tree, old, d);
			if (!err && d->child && o.type != SQK_DIR)
				err = cannot_place(c, d, "/%s is not a directory", d->path);
			else if (!err && d->child)
				err = place_dir(a, d, old);
			break;
		case SQK_PK_DIR:
			if (old && o.type != SQK_DIR) {
				err = cannot_place(
					c, d, "/%s is already in a source, and not as a directory",
					d->path);
				break;
			}
			if (old) {
				/* As mksquashfs: a source's directory keeps its attributes. */
				if (o.flags & SQK_NODE_IMPLICIT)
					err = modify(c->tree, old, d);
				if (!err)
					err = place_dir(a, d, old);
				break;
			}
			/* fall through */
		default:
			if (old) {
				err = cannot_place(
					c, d,
					"/%s is already in a source (exclude it there to "
					"define it here)",
					d->path);
				break;
			}
			err = make_node(a, d, &n);
			if (!err)
				err = sqk_tree_add(c->tree, dir, name, len, n);
			if (err == SQK_ERR_BADNAME)
				return afail(c, d, err, "bad name: /%s", d->path);
			if (err)
				return err;
			c->entries++;
			if (d->kind == SQK_PK_DIR)
				err = place_dir(a, d, n);
			break;
		}
	}
	return err;
}

int sqk_src_pseudo_place(struct sqk_src_ctx *c, struct sqk_pseudo *p)
{
	struct apply a = {.c = c, .p = p};
	struct sqk_node root;
	int err;

	err = find_hosts(&a);
	if (!err)
		err = sqk_tree_get(c->tree, SQK_NID_ROOT, &root);
	if (!err && p->root->kind == SQK_PK_DIR && (root.flags & SQK_NODE_IMPLICIT))
		err = modify(c->tree, SQK_NID_ROOT, p->root);
	if (!err)
		err = place_dir(&a, p->root, SQK_NID_ROOT);
	free(a.hosts);
	return err;
}

/* The bytes of a definition's data: a descriptor from a base. */
struct fd_at {
	int fd;
	uint64_t base;
};

static int read_fd(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct fd_at *f = ctx;
	int r = sqk_read_full(f->fd, buf, len, f->base + off);

	if (r > 0)
		errno = EIO; /* the file ended early */
	return r ? SQK_ERR_IO : 0;
}

/* size bytes of fd from base become the node's data. */
static int feed(struct sqk_src_ctx *c, const struct sqk_pseudo_def *d, int fd, uint64_t base,
		uint64_t size)
{
	struct fd_at at = {fd, base};
	struct sqk_node n;
	uint64_t id;
	int err;

	errno = 0;
	err = sqk_data_feed(c->dw, size, read_fd, &at, &id);
	if (err == SQK_ERR_IO && errno)
		return afail(c, d, SQK_ERR_IO, "reading its data: %s", strerror(errno));
	if (!err)
		err = sqk_tree_get(c->tree, d->node, &n);
	if (err)
		return err;
	n.size = size;
	sqk_src_data_done(&n, id);
	return sqk_tree_put(c->tree, d->node, &n);
}

/* Run an f command with /bin/sh -c; its output, spooled to learn its size, is the data. */
static int run_command(struct sqk_src_ctx *c, const struct sqk_pseudo_def *d)
{
	char *argv[] = {"sh", "-c", d->arg, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	sigset_t def;
	FILE *tmp = tmpfile();
	uint64_t size = 0;
	char buf[65536];
	int pfd[2] = {-1, -1}, status = 0, err = 0;
	pid_t pid;

	if (!tmp || pipe2(pfd, O_CLOEXEC) != 0) {
		err = afail(c, d, SQK_ERR_IO, "cannot run the command: %s", strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	/*
	 * The command's pipelines (yes | head) need SIGPIPE as a shell has it,
	 * whatever the calling program does with it.
	 */
	posix_spawnattr_init(&sa);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&sa, &def);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGDEF);
	err = posix_spawn(&pid, "/bin/sh", &fa, &sa, argv, environ);
	posix_spawnattr_destroy(&sa);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (err) {
		errno = err;
		err = afail(c, d, SQK_ERR_IO, "cannot run /bin/sh: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t r = read(pfd[0], buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = afail(c, d, SQK_ERR_IO, "reading the command's output: %s",
				    strerror(errno));
		if (r <= 0)
			break;
		if (!err && fwrite(buf, 1, (size_t)r, tmp) != (size_t)r)
			err = afail(c, d, SQK_ERR_IO, "spooling the command's output: %s",
				    strerror(errno));
		size += (uint64_t)r;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!err && WIFSIGNALED(status))
		err = afail(c, d, SQK_ERR_IO, "the command was killed by signal %d",
			    WTERMSIG(status));
	else if (!err && WEXITSTATUS(status))
		err = afail(c, d, SQK_ERR_IO, "the command failed (exit status %d)",
			    WEXITSTATUS(status));
	if (!err && fflush(tmp) != 0)
		err = afail(c, d, SQK_ERR_IO, "spooling the command's output: %s", strerror(errno));
	if (!err)
		err = feed(c, d, fileno(tmp), 0, size);
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (tmp)
		fclose(tmp);
	return err;
}

int sqk_src_pseudo_fill(struct sqk_src_ctx *c, struct sqk_pseudo *p)
{
	struct sqk_pseudo_def *d;
	int err = 0;

	for (d = p->first; d && !err; d = d->next_def) {
		if (!d->node) /* left out (pseudo_warn), or makes no node of its own */
			continue;
		switch (d->kind) {
		case SQK_PK_COMMAND:
			err = run_command(c, d);
			break;
		case SQK_PK_DATA:
			err = feed(c, d, d->src->data_fd, d->src->data_start + d->offset,
				   d->length);
			break;
		case SQK_PK_LINK:
			/* A copy (--no-hardlinks) of a file filled here shares its data. */
			if (d->node != d->link->node &&
			    (d->link->kind == SQK_PK_COMMAND || d->link->kind == SQK_PK_DATA)) {
				struct sqk_node from, to;

				err = sqk_tree_get(c->tree, d->link->node, &from);
				if (!err)
					err = sqk_tree_get(c->tree, d->node, &to);
				if (err)
					break;
				to.file.data = from.file.data;
				to.size = from.size;
				to.flags |= SQK_NODE_DATA_DONE;
				err = sqk_tree_put(c->tree, d->node, &to);
			}
			break;
		}
	}
	return err;
}

int sqk_src_pseudo(struct sqk_src_ctx *c, struct sqk_pseudo *p)
{
	int err = sqk_src_pseudo_place(c, p);

	return err ? err : sqk_src_pseudo_fill(c, p);
}
