// SPDX-License-Identifier: BSD-2-Clause
/*
 * SELinux labels (label.h) through libselinux's file-contexts backend,
 * opened validating (each line's regular expression compiled and its
 * context checked as it is read) without asking a loaded policy: the
 * build host's is not the image's, so a context must only be one by its
 * form (user:role:type[:range]). libselinux says what
 * is wrong through its log callback, which is caught here (the library
 * never prints) for the one line the caller says.
 */
#include <errno.h>
#include <selinux/context.h>
#include <selinux/label.h>
#include <selinux/selinux.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/format.h"
#include "label.h"
#include "tree.h"
#include "util/error.h"
#include "util/u64set.h"
#include "xattr_writer.h"

#define XATTR_NAME "security.selinux"

struct sqk_labels {
	struct selabel_handle *h;
	char *file;
};

/* What libselinux said last, while its callback is ours (it is one for the process). */
static __thread char said[512];
/* Opening: its warnings are errors (an invalid context is one). */
static __thread int opening;

/*
 * A context as the file writes it, "user:role:type[:range]": no policy is
 * asked, the build host's is not the image's.
 */
static int check_context(char **ctx)
{
	context_t c = context_new(*ctx);

	if (!c)
		return -1;
	context_free(c);
	return 0;
}

static int catch_log(int type, const char *fmt, ...)
{
	char buf[sizeof(said)];
	va_list ap;
	size_t i, n = 0;

	if (type != SELINUX_ERROR && (type != SELINUX_WARNING || !opening))
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Its lines end in a newline and part their fields with two spaces: one line, one space. */
	for (i = 0; buf[i]; i++) {
		if (buf[i] == '\n' || (buf[i] == ' ' && n && said[n - 1] == ' '))
			continue;
		said[n++] = buf[i] == '\t' ? ' ' : buf[i];
	}
	while (n && said[n - 1] == ' ')
		n--;
	said[n] = '\0';
	return 0;
}

/* What libselinux said, without the file's name it starts with (the caller names it). */
static const char *said_about(const char *file)
{
	const char *w = said;
	size_t flen = strlen(file);

	if (!strncmp(w, file, flen) && w[flen] == ':')
		w += flen + 1;
	while (*w == ' ')
		w++;
	return w;
}

static union selinux_callback hold(void)
{
	union selinux_callback old = selinux_get_callback(SELINUX_CB_LOG), cb;

	cb.func_log = catch_log;
	said[0] = '\0';
	selinux_set_callback(SELINUX_CB_LOG, cb);
	return old;
}

int sqk_labels_open(const char *file, struct sqk_labels **out, char *why, size_t why_len)
{
	/* Validating: every regular expression compiled, every context checked, as it is read. */
	struct selinux_opt opts[] = {{SELABEL_OPT_PATH, file}, {SELABEL_OPT_VALIDATE, (char *)1}};
	struct sqk_labels *l = calloc(1, sizeof(*l));
	union selinux_callback old, old_check, cb;
	int e;

	why[0] = '\0';
	if (!l || !(l->file = strdup(file))) {
		free(l);
		return SQK_ERR_NOMEM;
	}
	old = hold();
	old_check = selinux_get_callback(SELINUX_CB_VALIDATE);
	cb.func_validate = check_context;
	selinux_set_callback(SELINUX_CB_VALIDATE, cb);
	opening = 1;
	errno = 0;
	l->h = selabel_open(SELABEL_CTX_FILE, opts, 2);
	e = errno;
	opening = 0;
	selinux_set_callback(SELINUX_CB_VALIDATE, old_check);
	selinux_set_callback(SELINUX_CB_LOG, old);
	if (l->h) {
		*out = l;
		return 0;
	}
	free(l->file);
	free(l);
	if (*said) {
		snprintf(why, why_len, "%s", said_about(file));
		return SQK_ERR_CORRUPT;
	}
	errno = e ? e : EINVAL;
	return SQK_ERR_IO;
}

void sqk_labels_close(struct sqk_labels *l)
{
	if (!l)
		return;
	selabel_close(l->h);
	free(l->file);
	free(l);
}

static mode_t type_bits(unsigned type)
{
	switch (type) {
	case SQK_DIR:
		return S_IFDIR;
	case SQK_SYMLINK:
		return S_IFLNK;
	case SQK_BLKDEV:
		return S_IFBLK;
	case SQK_CHRDEV:
		return S_IFCHR;
	case SQK_FIFO:
		return S_IFIFO;
	case SQK_SOCKET:
		return S_IFSOCK;
	}
	return S_IFREG;
}

struct walk {
	struct sqk_labels *l;
	struct sqk_xattrs *x;
	int keep;
	struct sqk_u64set seen; /* inodes of several links, labelled */
	char path[8192];
	char *where, *why;
	size_t where_len, why_len;
};

/* The inode id (its value n) at w->path[0..len). */
static int label(struct walk *w, struct sqk_tree *t, sqk_nid id, size_t len)
{
	struct sqk_xattr_in kv = {XATTR_NAME, NULL, 0};
	struct sqk_node n;
	char *con = NULL;
	int err = sqk_tree_get(t, id, &n);

	if (err)
		return err;
	if (n.type != SQK_DIR && n.nlink > 1) {
		err = sqk_u64set_add(&w->seen, id);
		if (err)
			return err < 0 ? err : 0;
	}
	if (w->keep && sqk_xattrs_has(n.xattrs, XATTR_NAME))
		return 0;
	w->path[len ? len : 1] = '\0';
	said[0] = '\0';
	errno = 0;
	if (selabel_lookup(w->l->h, &con, w->path, type_bits(n.type) | n.mode) == 0) {
		kv.value = con;
		kv.value_len = strlen(con) + 1; /* with its NUL, as setfilecon(3) writes it */
	} else if (*said) {
		/* A line it compiles only when a path needs it (a regular expression). */
		snprintf(w->where, w->where_len, "%s", w->l->file);
		snprintf(w->why, w->why_len, "%s", said_about(w->l->file));
		return SQK_ERR_CORRUPT;
	} else if (errno != ENOENT) {
		int e = errno ? errno : EINVAL;

		snprintf(w->where, w->where_len, "%s", w->path);
		snprintf(w->why, w->why_len, "no label: %s", strerror(e));
		errno = e;
		return SQK_ERR_IO;
	}
	err = sqk_xattrs_put(w->x, n.xattrs, &kv, &n.xattrs);
	freecon(con);
	return err ? err : sqk_tree_put(t, id, &n);
}

/* The root at w->path[0..len), then every entry in the image's order. */
static int walk_tree(struct walk *w, struct sqk_tree *t, size_t len)
{
	struct sqk_tree_walk *tw = NULL;
	struct sqk_tree_item it;
	uint32_t i;
	int err = label(w, t, SQK_NID_ROOT, len);

	if (!err)
		err = sqk_tree_walk_start(t, &tw);
	while (!err && !(err = sqk_tree_walk_next(tw, &it))) {
		if (len + 1 + it.klen >= sizeof(w->path)) {
			w->path[len] = '\0';
			snprintf(w->where, w->where_len, "%s", w->path);
			snprintf(w->why, w->why_len, "a path too long to label");
			err = SQK_ERR_OVERFLOW;
			break;
		}
		w->path[len] = '/';
		for (i = 0; i < it.klen; i++)
			w->path[len + 1 + i] = it.key[i] ? (char)it.key[i] : '/';
		err = label(w, t, it.node, len + 1 + it.klen);
	}
	sqk_tree_walk_end(tw);
	return err == 1 ? 0 : err;
}

int sqk_labels_apply(struct sqk_labels *l, struct sqk_tree *t, struct sqk_xattrs *x,
		     const char *root, int keep_source, char *where, size_t where_len, char *why,
		     size_t why_len)
{
	struct walk *w = calloc(1, sizeof(*w));
	union selinux_callback old;
	size_t len;
	int err;

	if (!w)
		return SQK_ERR_NOMEM;
	*w = (struct walk){l, x, keep_source, {0}, "", where, why, where_len, why_len};
	len = root ? strlen(root) : 0;
	while (len && root[len - 1] == '/')
		len--;
	if (len >= sizeof(w->path) / 2) {
		free(w);
		return SQK_ERR_OVERFLOW;
	}
	if (len)
		memcpy(w->path, root, len);
	else
		w->path[0] = '/';
	w->path[len ? len : 1] = '\0';
	/* The image's order: the first path of an inode of several links labels it. */
	old = hold();
	err = walk_tree(w, t, len);
	selinux_set_callback(SELINUX_CB_LOG, old);
	sqk_u64set_free(&w->seen);
	free(w);
	return err;
}
