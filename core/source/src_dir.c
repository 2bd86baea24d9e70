// SPDX-License-Identifier: BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "format/fmt_type.h"
#include "format/format.h"
#include "read/inode.h"
#include "src.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/signals.h"
#include "util/smap.h"
#include "util/spill.h"

/* Inodes seen with more than one link, to share their node: a map that spills. */
struct link {
	uint64_t dev, ino;
	sqk_nid node;
};

#define LINKS_SHARE 4

void sqk_src_ctx_release(struct sqk_src_ctx *c)
{
	struct sqk_smap *m = c->links;

	if (m) {
		sqk_smap_release(m);
		free(m);
	}
	c->links = NULL;
	sqk_src_exclude_release(c);
	free(c->time_before_path);
	free(c->time_after_path);
	c->time_before_path = c->time_after_path = NULL;
}

static uint64_t link_key(dev_t dev, ino_t ino)
{
	return ((uint64_t)ino * 0x9e3779b97f4a7c15ull) ^ (uint64_t)dev;
}

/* The map, made on the first inode with several links. */
static struct sqk_smap *link_map(struct sqk_src_ctx *c)
{
	struct sqk_smap *m = c->links;

	if (!m && (m = malloc(sizeof(*m)))) {
		sqk_smap_init(
			m, c->spill, sizeof(struct link),
			sqk_spill_share(c->spill, LINKS_SHARE, c->spill->tiny ? 128 : 1 << 20));
		c->links = m;
	}
	return m;
}

struct link_want {
	struct link l;
};

static int link_is(void *ctx, const void *val)
{
	struct link_want *w = ctx;
	struct link l;

	memcpy(&l, val, sizeof(l));
	if (l.dev != w->l.dev || l.ino != w->l.ino)
		return 0;
	w->l.node = l.node;
	return 1;
}

static int link_find(struct sqk_smap *m, dev_t dev, ino_t ino, sqk_nid *node)
{
	struct link_want w = {{(uint64_t)dev, (uint64_t)ino, 0}};
	int err = sqk_smap_find(m, link_key(dev, ino), link_is, &w);

	*node = w.l.node;
	return err;
}

static int link_add(struct sqk_smap *m, dev_t dev, ino_t ino, sqk_nid node)
{
	struct link l = {(uint64_t)dev, (uint64_t)ino, node};

	return sqk_smap_add(m, link_key(dev, ino), &l);
}

void sqk_src_data_done(struct sqk_node *n, uint64_t id)
{
	n->file.data = id + 1;
	n->flags |= SQK_NODE_DATA_DONE;
}

int sqk_src_read_xattrs(struct sqk_src_ctx *c, const char *path, struct sqk_node *node)
{
	char *names = NULL, *p;
	struct sqk_xattr_in *in = NULL;
	char **vals = NULL;
	ssize_t len, cnt = 0, i;
	int err = 0;

	len = llistxattr(path, NULL, 0);
	if (len <= 0)
		return 0; /* none, or not supported here */
	names = malloc((size_t)len + 1);
	if (!names)
		return SQK_ERR_NOMEM;
	len = llistxattr(path, names, (size_t)len);
	if (len <= 0) {
		free(names);
		return 0;
	}
	for (p = names; p < names + len; p += strlen(p) + 1)
		cnt++;
	in = calloc((size_t)cnt, sizeof(*in));
	vals = calloc((size_t)cnt, sizeof(*vals));
	if (!in || !vals) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	for (i = 0, p = names; p < names + len; p += strlen(p) + 1) {
		ssize_t vl;

		if (!sqk_xattr_filter_pass(c->xattr_filter, p))
			continue;
		vl = lgetxattr(path, p, NULL, 0);
		if (vl < 0)
			continue;
		vals[i] = malloc((size_t)vl + 1);
		if (!vals[i]) {
			err = SQK_ERR_NOMEM;
			goto out;
		}
		vl = lgetxattr(path, p, vals[i], (size_t)vl);
		if (vl < 0)
			continue;
		in[i].name = p;
		in[i].value = vals[i];
		in[i].value_len = (size_t)vl;
		i++;
	}
	err = sqk_xattrs_intern(c->xattrs, in, (size_t)i, &node->xattrs, &c->xattrs_skipped);
out:
	for (i = 0; vals && i < cnt; i++)
		free(vals[i]);
	free(vals);
	free(in);
	free(names);
	return err;
}

/* path: the entry's in the image, for the warning of a time the format cannot hold. */
static void set_attrs(struct sqk_src_ctx *c, struct sqk_node *n, const struct stat *st,
		      const char *path)
{
	n->mode = st->st_mode & 07777;
	n->uid = st->st_uid;
	n->gid = st->st_gid;
	n->mtime = sqk_src_time(c, path, st->st_mtim.tv_sec);
}

struct walk {
	struct sqk_src_ctx *c;
	char *host; /* host path, grown as needed */
	size_t host_cap;
	char *img; /* image path */
	size_t img_cap;
	dev_t dev; /* the source's file system, for --one-file-system */
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_dir(struct walk *w, size_t hlen, size_t ilen, sqk_nid dir);

/* A new node for the host file at w->host (st its lstat), its attributes, target or size. */
static int host_node(struct walk *w, size_t hlen, const struct stat *st, unsigned type, sqk_nid *id)
{
	struct sqk_src_ctx *c = w->c;
	struct sqk_node n;
	int err = sqk_tree_new(c->tree, type, id, &n);

	if (err)
		return err;
	set_attrs(c, &n, st, w->img);
	if (type == SQK_FILE) {
		n.size = (uint64_t)st->st_size;
		n.file.srclen = (uint32_t)hlen;
		err = sqk_tree_str(c->tree, w->host, hlen, &n.file.src);
	} else if (type == SQK_SYMLINK) {
		char *t = malloc((size_t)st->st_size + 1);
		ssize_t len;

		if (!t)
			return SQK_ERR_NOMEM;
		len = readlink(w->host, t, (size_t)st->st_size + 1);
		if (len < 0 || len > st->st_size) {
			sqk_src_fail(c, w->host, "%s",
				     len < 0 ? strerror(errno) : "symlink changed while reading");
			free(t);
			return SQK_ERR_IO;
		}
		n.size = (uint64_t)len;
		err = sqk_tree_str(c->tree, t, (size_t)len, &n.target);
		free(t);
	} else if (type == SQK_BLKDEV || type == SQK_CHRDEV) {
		n.dev.major = major(st->st_rdev);
		n.dev.minor = minor(st->st_rdev);
	}
	if (!err && c->xattrs)
		err = sqk_src_read_xattrs(c, w->host, &n);
	if (!err)
		err = sqk_tree_put(c->tree, *id, &n);
	return err;
}

static int add_entry(struct walk *w, size_t hlen, size_t ilen, sqk_nid dir, const char *name)
{
	struct sqk_src_ctx *c = w->c;
	size_t nlen = strlen(name);
	struct sqk_smap *links = NULL;
	sqk_nid node = 0, old;
	struct stat st;
	unsigned type;
	int err, i, cross = 0;

	if (SQK_ARRAY_GROW(w->host, w->host_cap, hlen + nlen + 2) ||
	    SQK_ARRAY_GROW(w->img, w->img_cap, ilen + nlen + 2))
		return SQK_ERR_NOMEM;
	w->host[hlen] = '/';
	memcpy(w->host + hlen + 1, name, nlen + 1);
	if (ilen)
		w->img[ilen] = '/';
	memcpy(w->img + ilen + (ilen ? 1 : 0), name, nlen + 1);
	if (sqk_src_excluded(c, w->img))
		return 0;
	if (lstat(w->host, &st) != 0) {
		sqk_src_fail(c, w->host, "%s", strerror(errno));
		return SQK_ERR_IO;
	}
	for (i = 0; i < c->nskip; i++)
		if (st.st_dev == c->skip_dev[i] && st.st_ino == c->skip_ino[i])
			return 0;
	/* As mksquashfs: a mount point stays as an empty directory, any other file stays out. */
	if (c->one_file_system && st.st_dev != w->dev) {
		if (!S_ISDIR(st.st_mode))
			return 0;
		cross = 1;
	}
	type = sqk_fmt_type_of_mode(st.st_mode);
	if (!type) {
		sqk_src_fail(c, w->host, "unknown file type");
		return SQK_ERR_UNSUPPORTED;
	}
	if (type != SQK_DIR && st.st_nlink > 1 && !c->no_hardlinks) {
		links = link_map(c);
		if (!links)
			return SQK_ERR_NOMEM;
		err = link_find(links, st.st_dev, st.st_ino, &node);
		if (err)
			return err;
	}
	if (!node) {
		err = host_node(w, hlen + 1 + nlen, &st, type, &node);
		if (!err && links)
			err = link_add(links, st.st_dev, st.st_ino, node);
		if (err)
			return err;
	}
	err = sqk_tree_add(c->tree, dir, name, nlen, node);
	if (err == SQK_ERR_EXIST) {
		struct sqk_node o;
		int e2 = sqk_tree_lookup(c->tree, dir, name, nlen, &old);

		if (!e2 && old)
			e2 = sqk_tree_get(c->tree, old, &o);
		if (e2)
			return e2;
		/* A directory of an image appended to, or one made on the way to a
		 * --full-paths source, takes in the source's, keeping its attributes. */
		if (type == SQK_DIR && old && o.type == SQK_DIR &&
		    (o.flags & (SQK_NODE_KEPT | SQK_NODE_ON_PATH)))
			return cross ? 0
				     : walk_dir(w, hlen + 1 + nlen, ilen + (ilen ? 1 : 0) + nlen,
						old);
		/* With whole paths one image path is one host path: given already, by this
		 * source or one that holds it. */
		if (c->full_paths && old && !(o.flags & SQK_NODE_KEPT))
			return 0;
		sqk_src_fail(c, w->img, "given by more than one source");
		return err;
	}
	if (err) {
		sqk_src_fail(c, w->host, "%s", sqk_strerror(err));
		return err;
	}
	c->entries++;
	if (type == SQK_DIR && !cross)
		return walk_dir(w, hlen + 1 + nlen, ilen + (ilen ? 1 : 0) + nlen, node);
	return 0;
}

/* Names are read first and the directory closed, so depth never costs descriptors. */
static int walk_dir(struct walk *w, size_t hlen, size_t ilen, sqk_nid dir)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int err = 0;

	/* A signal held while the output cannot be undone (a device): the build stops here. */
	if (sqk_sig_caught())
		return SQK_ERR_INTR;
	w->host[hlen] = '\0';
	d = opendir(w->host);
	if (!d) {
		sqk_src_fail(w->c, w->host, "%s", strerror(errno));
		return SQK_ERR_IO;
	}
	while ((errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (SQK_ARRAY_GROW(names, cap, n + 1)) {
			err = SQK_ERR_NOMEM;
			break;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			err = SQK_ERR_NOMEM;
			break;
		}
		n++;
	}
	if (!err && errno) {
		sqk_src_fail(w->c, w->host, "%s", strerror(errno));
		err = SQK_ERR_IO;
	}
	closedir(d);
	/* Hard links pair up in name order, whatever order readdir gave. */
	if (!err && n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n && !err; i++)
		err = add_entry(w, hlen, ilen, dir, names[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

/* The first directory to give them sets the root's attributes (and xattrs). */
static int root_attrs(struct sqk_src_ctx *c, const char *path, const struct stat *st)
{
	struct sqk_node root;
	int err = sqk_tree_get(c->tree, SQK_NID_ROOT, &root);

	if (err || !(root.flags & SQK_NODE_IMPLICIT))
		return err;
	set_attrs(c, &root, st, "/");
	root.flags &= ~SQK_NODE_IMPLICIT;
	err = c->xattrs ? sqk_src_read_xattrs(c, path, &root) : 0;
	return err ? err : sqk_tree_put(c->tree, SQK_NID_ROOT, &root);
}

int sqk_src_dir(struct sqk_src_ctx *c, const char *path)
{
	struct walk w = {.c = c};
	struct stat st;
	size_t len = strlen(path);
	int err;

	if (stat(path, &st) != 0) {
		sqk_src_fail(c, path, "%s", strerror(errno));
		return SQK_ERR_IO;
	}
	if (!S_ISDIR(st.st_mode)) {
		sqk_src_fail(c, path, "not a directory");
		return SQK_ERR_NOTDIR;
	}
	err = root_attrs(c, path, &st);
	if (err)
		return err;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (SQK_ARRAY_GROW(w.host, w.host_cap, len + 2) || SQK_ARRAY_GROW(w.img, w.img_cap, 16)) {
		free(w.host);
		return SQK_ERR_NOMEM;
	}
	memcpy(w.host, path, len);
	w.img[0] = '\0';
	w.dev = st.st_dev;
	err = walk_dir(&w, len, 0, SQK_NID_ROOT);
	free(w.host);
	free(w.img);
	return err;
}

int sqk_src_entry(struct sqk_src_ctx *c, const char *path)
{
	struct walk w = {.c = c};
	size_t len = strlen(path), base;
	int err;

	while (len > 1 && path[len - 1] == '/')
		len--;
	for (base = len; base && path[base - 1] != '/'; base--)
		;
	if (base == len || (len - base == 1 && path[base] == '.') ||
	    (len - base == 2 && path[base] == '.' && path[base + 1] == '.')) {
		sqk_src_fail(c, path, "has no name to give its entry");
		return SQK_ERR_ARG;
	}
	if (SQK_ARRAY_GROW(w.host, w.host_cap, len + 3) || SQK_ARRAY_GROW(w.img, w.img_cap, 16)) {
		free(w.host);
		return SQK_ERR_NOMEM;
	}
	/* add_entry puts a slash and the name after the parent: "dir/name", "./name", "/name". */
	if (base) {
		memcpy(w.host, path, base - 1);
		w.host[base - 1] = '\0';
	} else {
		strcpy(w.host, ".");
	}
	{
		char name[NAME_MAX + 1];
		struct stat st;

		if (len - base > NAME_MAX) {
			free(w.host);
			sqk_src_fail(c, path, "name too long");
			return SQK_ERR_ARG;
		}
		memcpy(name, path + base, len - base);
		name[len - base] = '\0';
		/* The entry itself is never left out: its own file system is the source's. */
		if (c->one_file_system && lstat(path, &st) == 0)
			w.dev = st.st_dev;
		err = add_entry(&w, base ? base - 1 : 1, 0, SQK_NID_ROOT, name);
	}
	free(w.host);
	free(w.img);
	return err;
}

/*
 * The directory named by the host path w->host[0..hlen) as the entry name of
 * dir: the one already there, or a new one with the host directory's
 * attributes, which a source of the same name later merges into.
 */
static int path_dir(struct walk *w, size_t hlen, sqk_nid *dir, const char *name, size_t nlen)
{
	struct sqk_src_ctx *c = w->c;
	struct sqk_node n;
	struct stat st;
	sqk_nid node;
	int err;

	w->host[hlen] = '\0';
	err = sqk_tree_lookup(c->tree, *dir, name, nlen, &node);
	if (!err && node)
		err = sqk_tree_get(c->tree, node, &n);
	if (err)
		return err;
	if (node) {
		if (n.type != SQK_DIR) {
			sqk_src_fail(c, w->img, "given by more than one source");
			return SQK_ERR_EXIST;
		}
		*dir = node;
		return 0;
	}
	if (lstat(w->host, &st) != 0) {
		sqk_src_fail(c, w->host, "%s", strerror(errno));
		return SQK_ERR_IO;
	}
	if (!S_ISDIR(st.st_mode)) {
		sqk_src_fail(c, w->host, "not a directory");
		return SQK_ERR_NOTDIR;
	}
	err = sqk_tree_new(c->tree, SQK_DIR, &node, &n);
	if (err)
		return err;
	set_attrs(c, &n, &st, w->img);
	n.flags |= SQK_NODE_ON_PATH;
	if (c->xattrs && (err = sqk_src_read_xattrs(c, w->host, &n)))
		return err;
	err = sqk_tree_put(c->tree, node, &n);
	if (!err)
		err = sqk_tree_add(c->tree, *dir, name, nlen, node);
	if (err) {
		sqk_src_fail(c, w->img, "%s", sqk_strerror(err));
		return err;
	}
	c->entries++;
	*dir = node;
	return 0;
}

int sqk_src_full_path(struct sqk_src_ctx *c, const char *path)
{
	struct walk w = {.c = c};
	sqk_nid dir = SQK_NID_ROOT;
	size_t len = strlen(path), hlen = 0, ilen = 0, i = 0;
	const char *from = path[0] == '/' ? "/" : ".";
	struct stat st;
	int err = 0;

	if (SQK_ARRAY_GROW(w.host, w.host_cap, len + 3) ||
	    SQK_ARRAY_GROW(w.img, w.img_cap, len + 3)) {
		free(w.host);
		return SQK_ERR_NOMEM;
	}
	w.img[0] = '\0';
	c->full_paths = 1;
	/* Excluded whole: not even the directories on its way, as the peer does. */
	if (sqk_path_kept(path, w.img, w.img_cap) < w.img_cap && *w.img &&
	    sqk_src_excluded_path(c, w.img)) {
		free(w.host);
		free(w.img);
		return 0;
	}
	w.img[0] = '\0';
	/* The root is the directory the path starts from: "/" or the current one. */
	if (path[0] == '/') {
		while (path[i] == '/')
			i++;
	} else {
		w.host[hlen++] = '.';
	}
	if (stat(from, &st) != 0) {
		sqk_src_fail(c, from, "%s", strerror(errno));
		err = SQK_ERR_IO;
	} else {
		err = root_attrs(c, from, &st);
	}
	while (!err) {
		size_t start, nlen;

		/* "./" at the start and repeated slashes name nothing. */
		while (path[i] == '/' || (hlen == 1 && path[i] == '.' && path[i + 1] == '/'))
			i++;
		start = i;
		while (path[i] && path[i] != '/')
			i++;
		nlen = i - start;
		if (!nlen) {
			sqk_src_fail(c, path, "has no name to give its entry");
			err = SQK_ERR_ARG;
			break;
		}
		if ((nlen == 1 && path[start] == '.') ||
		    (nlen == 2 && path[start] == '.' && path[start + 1] == '.')) {
			sqk_src_fail(c, path, "'.' or '..' in a path kept whole");
			err = SQK_ERR_ARG;
			break;
		}
		if (nlen > NAME_MAX) {
			sqk_src_fail(c, path, "name too long");
			err = SQK_ERR_ARG;
			break;
		}
		{
			char name[NAME_MAX + 1];
			size_t rest = i;

			memcpy(name, path + start, nlen);
			name[nlen] = '\0';
			while (path[rest] == '/')
				rest++;
			if (!path[rest]) {
				/* The last name: the source itself, whole. */
				if (c->one_file_system && lstat(path, &st) == 0)
					w.dev = st.st_dev;
				err = add_entry(&w, hlen, ilen, dir, name);
				break;
			}
			w.host[hlen] = '/';
			memcpy(w.host + hlen + 1, name, nlen);
			if (ilen)
				w.img[ilen++] = '/';
			memcpy(w.img + ilen, name, nlen);
			w.img[ilen + nlen] = '\0';
			err = path_dir(&w, hlen + 1 + nlen, &dir, name, nlen);
			hlen += 1 + nlen;
			ilen += nlen;
		}
	}
	free(w.host);
	free(w.img);
	return err;
}
