// SPDX-License-Identifier: BSD-2-Clause
/*
 * Listings as squashfs-tools-ng's gensquashfs reads its pack files: the
 * entry kinds of the kernel's gen_init_cpio, with gensquashfs's field
 * order (mode, uid and gid right after the path), one entry a line:
 *   dir PATH MODE UID GID            file PATH MODE UID GID [SOURCE]
 *   slink PATH MODE UID GID TARGET   link PATH TARGET
 *   nod PATH MODE UID GID b|c MAJOR MINOR
 *   pipe PATH MODE UID GID           sock PATH MODE UID GID
 * link also takes gensquashfs's spelling, three ignored fields before
 * TARGET (link PATH X X X TARGET).
 * MODE is octal. Blank lines and lines starting with '#' are skipped.
 * Nothing here needs root: owners and devices are only written down.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/format.h"
#include "src.h"
#include "util/error.h"

#define MAX_FIELDS 9

static int parse_num(const char *s, int base, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

struct line {
	struct sqk_src_ctx *c;
	const char *file;
	unsigned no;
};

static int bad(struct line *l, const char *what, const char *arg)
{
	char where[4096];

	snprintf(where, sizeof(where), "%s:%u", l->file, l->no);
	errno = 0;
	if (arg)
		sqk_src_fail(l->c, where, "%s '%s'", what, arg);
	else
		sqk_src_fail(l->c, where, "%s", what);
	return SQK_ERR_ARG;
}

/* The attributes a listing line gives, onto a directory there already. */
static void take_attrs(struct sqk_node *to, const struct sqk_node *from)
{
	to->mode = from->mode;
	to->uid = from->uid;
	to->gid = from->gid;
	to->mtime = from->mtime;
	to->flags &= ~SQK_NODE_IMPLICIT;
}

/* Node id (value n) at path. */
static int place(struct line *l, const char *path, sqk_nid id, const struct sqk_node *n)
{
	struct sqk_tree *t = l->c->tree;
	struct sqk_node o;
	sqk_nid parent, old;
	const char *name;
	size_t len;
	int err;

	err = sqk_tree_walk_parent(t, path, &parent, &name, &len);
	if (err == SQK_ERR_NOTDIR || err == SQK_ERR_BADNAME)
		return bad(l, err == SQK_ERR_NOTDIR ? "a parent is not a directory:" : "bad path",
			   path);
	if (err)
		return err;
	if (!len) {
		/* "dir /" sets the root's attributes. */
		if (n->type != SQK_DIR)
			return bad(l, "the root must be a directory:", path);
		err = sqk_tree_get(t, SQK_NID_ROOT, &o);
		if (err)
			return err;
		if (!(o.flags & SQK_NODE_IMPLICIT))
			return bad(l, "the root is given twice:", path);
		take_attrs(&o, n);
		return sqk_tree_put(t, SQK_NID_ROOT, &o);
	}
	err = sqk_tree_lookup(t, parent, name, len, &old);
	if (!err && old)
		err = sqk_tree_get(t, old, &o);
	if (err)
		return err;
	if (old && o.type == SQK_DIR && n->type == SQK_DIR && (o.flags & SQK_NODE_IMPLICIT)) {
		/* A directory listed after its children. */
		take_attrs(&o, n);
		return sqk_tree_put(t, old, &o);
	}
	err = sqk_tree_add(t, parent, name, len, id);
	if (err == SQK_ERR_EXIST)
		return bad(l, "path given twice:", path);
	if (err == SQK_ERR_BADNAME)
		return bad(l, "bad name in", path);
	if (err)
		return err;
	l->c->entries++;
	return 0;
}

static int parse_line(struct line *l, char *s, uint32_t mtime)
{
	struct sqk_src_ctx *c = l->c;
	char *f[MAX_FIELDS + 1];
	int n = 0, nmin, nmax, err;
	uint64_t mode, uid, gid, v;
	unsigned type;
	struct sqk_node node;
	sqk_nid id;
	const char *kind;

	while (n <= MAX_FIELDS) {
		s += strspn(s, " \t\r\n");
		if (!*s)
			break;
		f[n++] = s;
		s += strcspn(s, " \t\r\n");
		if (*s)
			*s++ = '\0';
	}
	if (!n || f[0][0] == '#')
		return 0;
	kind = f[0];
	if (n > MAX_FIELDS)
		return bad(l, "too many fields", NULL);
	if (strcmp(kind, "link") == 0) {
		sqk_nid parent, target = 0;
		const char *name;
		size_t len;

		if (n != 3 && n != 6)
			return bad(l, "expected: link PATH TARGET", NULL);
		err = sqk_tree_walk_parent(c->tree, f[n - 1], &parent, &name, &len);
		if (!err && len)
			err = sqk_tree_lookup(c->tree, parent, name, len, &target);
		if (!err && target)
			err = sqk_tree_get(c->tree, target, &node);
		if (err && err != SQK_ERR_NOTDIR && err != SQK_ERR_BADNAME)
			return err;
		if (err || !len || !target)
			return bad(l, "link target not listed before:", f[n - 1]);
		if (node.type == SQK_DIR)
			return bad(l, "cannot hard-link a directory:", f[n - 1]);
		if (c->no_hardlinks) {
			/* A copy of the target: same attributes, its own inode. */
			err = sqk_tree_clone(c->tree, target, &target);
			if (!err)
				err = sqk_tree_get(c->tree, target, &node);
			if (err)
				return err;
		}
		return place(l, f[1], target, &node);
	}
	if (strcmp(kind, "dir") == 0)
		type = SQK_DIR, nmin = nmax = 5;
	else if (strcmp(kind, "file") == 0)
		type = SQK_FILE, nmin = 5, nmax = 6;
	else if (strcmp(kind, "slink") == 0)
		type = SQK_SYMLINK, nmin = nmax = 6;
	else if (strcmp(kind, "nod") == 0)
		type = SQK_CHRDEV, nmin = nmax = 8;
	else if (strcmp(kind, "pipe") == 0)
		type = SQK_FIFO, nmin = nmax = 5;
	else if (strcmp(kind, "sock") == 0)
		type = SQK_SOCKET, nmin = nmax = 5;
	else
		return bad(l, "unknown entry type", kind);
	if (n < nmin || n > nmax)
		return bad(l, n < nmin ? "missing fields for" : "too many fields for", kind);
	if (parse_num(f[2], 8, 07777, &mode))
		return bad(l, "bad octal mode", f[2]);
	if (parse_num(f[3], 10, 0xffffffffu, &uid))
		return bad(l, "bad uid", f[3]);
	if (parse_num(f[4], 10, 0xffffffffu, &gid))
		return bad(l, "bad gid", f[4]);
	if (type == SQK_CHRDEV) {
		if (strcmp(f[5], "b") == 0)
			type = SQK_BLKDEV;
		else if (strcmp(f[5], "c") != 0)
			return bad(l, "device type must be b or c, not", f[5]);
	}
	if (sqk_src_excluded_path(c, f[1] + strspn(f[1], "/")))
		return 0;
	err = sqk_tree_new(c->tree, type, &id, &node);
	if (err)
		return err;
	node.mode = (uint16_t)mode;
	node.uid = (uint32_t)uid;
	node.gid = (uint32_t)gid;
	node.mtime = mtime;
	switch (type) {
	case SQK_FILE:
		if (n == 6) {
			struct stat st;

			if (stat(f[5], &st) != 0)
				return bad(l, strerror(errno), f[5]);
			if (!S_ISREG(st.st_mode))
				return bad(l, "not a regular file:", f[5]);
			node.size = (uint64_t)st.st_size;
			node.file.srclen = (uint32_t)strlen(f[5]);
			err = sqk_tree_str(c->tree, f[5], strlen(f[5]), &node.file.src);
		}
		break;
	case SQK_SYMLINK:
		node.size = strlen(f[5]);
		err = sqk_tree_str(c->tree, f[5], strlen(f[5]), &node.target);
		break;
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		if (parse_num(f[6], 10, SQK_FMT_DEV_MAJOR_MAX, &v))
			return bad(l, "bad major number", f[6]);
		node.dev.major = (uint32_t)v;
		if (parse_num(f[7], 10, SQK_FMT_DEV_MINOR_MAX, &v))
			return bad(l, "bad minor number", f[7]);
		node.dev.minor = (uint32_t)v;
		break;
	}
	if (!err)
		err = sqk_tree_put(c->tree, id, &node);
	return err ? err : place(l, f[1], id, &node);
}

int sqk_src_listing(struct sqk_src_ctx *c, const char *path)
{
	struct line l = {.c = c, .file = path};
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	uint64_t mtime = 0;
	int err = 0;

	if (!fp) {
		sqk_src_fail(c, path, "%s", strerror(errno));
		return SQK_ERR_IO;
	}
	/* Listings carry no times: use SOURCE_DATE_EPOCH, else 0, for a reproducible image. */
	if (epoch && parse_num(epoch, 10, 0xffffffffu, &mtime))
		mtime = 0;
	while (!err && getline(&buf, &cap, fp) >= 0) {
		l.no++;
		err = parse_line(&l, buf, (uint32_t)mtime);
	}
	if (!err && ferror(fp)) {
		sqk_src_fail(c, path, "%s", strerror(errno));
		err = SQK_ERR_IO;
	}
	free(buf);
	if (fp != stdin)
		fclose(fp);
	return err;
}
