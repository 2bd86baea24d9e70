// SPDX-License-Identifier: BSD-2-Clause
/*
 * manifest: a canonical, plain-ASCII description of a directory tree, one
 * line per entry, so that two trees can be compared with cmp(1) or diff(1).
 *
 *   manifest [OPTIONS] DIR
 *
 * Each line is "PATH TYPE key=value...": the path relative to DIR ("." for
 * DIR itself), sorted by raw bytes; then mode (octal, with setuid, setgid
 * and sticky), uid, gid, mtime (seconds); for regular files size, sha256
 * and the data extents of one SEEK_DATA/SEEK_HOLE sweep; the symlink
 * target; device major:minor; every xattr as NAME=HEX sorted by name; and
 * for hard-linked regular files link=FIRST, the first path in sort order of
 * the files in the tree that share its device and inode. Paths, targets and
 * xattr names are escaped: a byte outside 0x21..0x7e becomes \n, \t, \r or
 * \xNN, and a backslash becomes \\. Symlinks are never followed.
 *
 * Options drop what a comparison must not see: --no-mtime-dirs,
 * --no-mtime-links, --no-owner, --no-xattrs, --no-holes, --no-root,
 * --no-sockets, --xattr-ns LIST (keep only these namespaces, e.g.
 * "user,trusted").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "lib/sha256.h"

/* ---- output options ---- */

static int no_mtime_dirs, no_mtime_links, no_owner, no_xattrs, no_holes, no_root, no_sockets;
static char **xattr_ns; /* NULL: every namespace */
static size_t xattr_ns_count;

static const char *top_arg;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("manifest: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* ---- a growing string ---- */

struct buf {
	char *s;
	size_t len, cap;
};

static void buf_grow(struct buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	while (b->len + more + 1 > b->cap)
		b->cap = b->cap ? b->cap * 2 : 256;
	b->s = xrealloc(b->s, b->cap);
}

static void buf_addc(struct buf *b, char c)
{
	buf_grow(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

static void buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("formatting failed");
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Escape len raw bytes so that the result is printable ASCII without spaces. */
static void buf_add_escaped(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, '\\');
		} else if (c == '\n') {
			buf_addc(b, '\\');
			buf_addc(b, 'n');
		} else if (c == '\t') {
			buf_addc(b, '\\');
			buf_addc(b, 't');
		} else if (c == '\r') {
			buf_addc(b, '\\');
			buf_addc(b, 'r');
		} else if (c > 0x20 && c < 0x7f) {
			buf_addc(b, (char)c);
		} else {
			buf_addc(b, '\\');
			buf_addc(b, 'x');
			buf_addc(b, hex[c >> 4]);
			buf_addc(b, hex[c & 15]);
		}
	}
}

static void buf_add_hex(struct buf *b, const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf_addf(b, "%02x", p[i]);
}

/* ---- entries ---- */

struct entry {
	char *path;  /* raw bytes */
	char *attrs; /* the fields after the path, before link= */
	dev_t dev;
	ino_t ino;
	int linked;   /* a regular file with nlink > 1 */
	size_t group; /* index of the first entry of its hard-link group */
	int grouped;
};

static struct entry *entries;
static size_t nentries, centries;

static void describe_file(struct buf *b, const char *name, const char *path, const struct stat *st)
{
	static unsigned char data[65536];
	struct sha256 c;
	unsigned char sum[32];
	off_t off = 0, start, end;
	ssize_t n;
	int fd, first = 1;

	fd = open(name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		die("%s/%s: %s", top_arg, path, strerror(errno));
	sha256_init(&c);
	while ((n = read(fd, data, sizeof(data))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("%s/%s: %s", top_arg, path, strerror(errno));
		}
		sha256_update(&c, data, (size_t)n);
		off += n;
	}
	if (off != st->st_size)
		die("%s/%s: size changed while reading", top_arg, path);
	sha256_final(&c, sum);
	buf_addf(b, " size=%lld sha256=", (long long)st->st_size);
	buf_add_hex(b, sum, sizeof(sum));

	if (no_holes) {
		close(fd);
		return;
	}
	buf_addf(b, " data=");
	for (off = 0; off < st->st_size; off = end) {
		start = lseek(fd, off, SEEK_DATA);
		if (start < 0) {
			if (errno == ENXIO)
				break;
			die("%s/%s: SEEK_DATA: %s", top_arg, path, strerror(errno));
		}
		end = lseek(fd, start, SEEK_HOLE);
		if (end < 0)
			die("%s/%s: SEEK_HOLE: %s", top_arg, path, strerror(errno));
		buf_addf(b, "%s%lld+%lld", first ? "" : ",", (long long)start,
			 (long long)(end - start));
		first = 0;
	}
	if (first)
		buf_addc(b, '-');
	close(fd);
}

static int keep_xattr(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t len = dot ? (size_t)(dot - name) : strlen(name), i;

	if (!xattr_ns)
		return 1;
	for (i = 0; i < xattr_ns_count; i++) {
		if (strlen(xattr_ns[i]) == len && memcmp(xattr_ns[i], name, len) == 0)
			return 1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void describe_xattrs(struct buf *b, const char *name, const char *path)
{
	char *list = NULL, **names = NULL;
	unsigned char *value = NULL;
	ssize_t len, vlen;
	size_t count = 0, i;
	char *p;

	for (;;) {
		len = llistxattr(name, NULL, 0);
		if (len < 0) {
			if (errno == ENOTSUP)
				return;
			die("%s/%s: llistxattr: %s", top_arg, path, strerror(errno));
		}
		list = xrealloc(list, (size_t)len);
		len = llistxattr(name, list, (size_t)len);
		if (len >= 0)
			break;
		if (errno != ERANGE)
			die("%s/%s: llistxattr: %s", top_arg, path, strerror(errno));
	}
	for (p = list; p < list + len; p += strlen(p) + 1) {
		if (!keep_xattr(p))
			continue;
		names = xrealloc(names, (count + 1) * sizeof(*names));
		names[count++] = p;
	}
	if (count)
		qsort(names, count, sizeof(*names), cmp_str);
	for (i = 0; i < count; i++) {
		for (;;) {
			vlen = lgetxattr(name, names[i], NULL, 0);
			if (vlen < 0)
				die("%s/%s: lgetxattr %s: %s", top_arg, path, names[i],
				    strerror(errno));
			value = xrealloc(value, (size_t)vlen);
			vlen = lgetxattr(name, names[i], value, (size_t)vlen);
			if (vlen >= 0)
				break;
			if (errno != ERANGE)
				die("%s/%s: lgetxattr %s: %s", top_arg, path, names[i],
				    strerror(errno));
		}
		buf_addf(b, " xattr:");
		buf_add_escaped(b, names[i], strlen(names[i]));
		buf_addc(b, '=');
		buf_add_hex(b, value, (size_t)vlen);
	}
	free(value);
	free(names);
	free(list);
}

/* Describe name (relative to the current directory) known as path. */
static int describe(const char *name, const char *path, struct stat *st)
{
	struct buf b = {0};
	const char *type;
	struct entry *e;

	if (lstat(name, st) < 0)
		die("%s/%s: %s", top_arg, path, strerror(errno));
	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
		type = "file";
		break;
	case S_IFDIR:
		type = "dir";
		break;
	case S_IFLNK:
		type = "symlink";
		break;
	case S_IFCHR:
		type = "chr";
		break;
	case S_IFBLK:
		type = "blk";
		break;
	case S_IFIFO:
		type = "fifo";
		break;
	case S_IFSOCK:
		type = "sock";
		if (no_sockets)
			return 0;
		break;
	default:
		die("%s/%s: unknown file type %o", top_arg, path, st->st_mode & S_IFMT);
	}
	if (no_root && strcmp(path, ".") == 0)
		return 0;

	buf_addf(&b, " %s mode=%04o", type, st->st_mode & 07777);
	if (!no_owner)
		buf_addf(&b, " uid=%u gid=%u", (unsigned)st->st_uid, (unsigned)st->st_gid);
	if (!(S_ISDIR(st->st_mode) && no_mtime_dirs) && !(S_ISLNK(st->st_mode) && no_mtime_links))
		buf_addf(&b, " mtime=%lld", (long long)st->st_mtime);
	if (S_ISREG(st->st_mode))
		describe_file(&b, name, path, st);
	if (S_ISLNK(st->st_mode)) {
		char *target = NULL;
		size_t size = 256;
		ssize_t n;

		for (;;) {
			target = xrealloc(target, size);
			n = readlink(name, target, size);
			if (n < 0)
				die("%s/%s: readlink: %s", top_arg, path, strerror(errno));
			if ((size_t)n < size)
				break;
			size *= 2;
		}
		buf_addf(&b, " target=");
		buf_add_escaped(&b, target, (size_t)n);
		free(target);
	}
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		buf_addf(&b, " dev=%u:%u", major(st->st_rdev), minor(st->st_rdev));
	if (!no_xattrs)
		describe_xattrs(&b, name, path);

	if (nentries == centries) {
		centries = centries ? centries * 2 : 1024;
		entries = xrealloc(entries, centries * sizeof(*entries));
	}
	e = &entries[nentries++];
	e->path = strdup(path);
	if (!e->path)
		die("out of memory");
	e->attrs = b.s;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->linked = S_ISREG(st->st_mode) && st->st_nlink > 1;
	e->grouped = 0;
	return 0;
}

static char *join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *p;

	if (strcmp(dir, ".") == 0) {
		p = xrealloc(NULL, nl + 1);
		memcpy(p, name, nl + 1);
		return p;
	}
	p = xrealloc(NULL, dl + nl + 2);
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, nl + 1);
	return p;
}

/* Walk the directory open as fd and known as path; the cwd is moved into it. */
static void walk(int fd, const char *path)
{
	char **names = NULL;
	size_t count = 0, i;
	struct dirent *de;
	DIR *d;
	int dfd;

	dfd = dup(fd);
	if (dfd < 0 || !(d = fdopendir(dfd)))
		die("%s/%s: %s", top_arg, path, strerror(errno));
	errno = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		names = xrealloc(names, (count + 1) * sizeof(*names));
		names[count] = strdup(de->d_name);
		if (!names[count++])
			die("out of memory");
		errno = 0;
	}
	if (errno)
		die("%s/%s: readdir: %s", top_arg, path, strerror(errno));
	closedir(d);
	if (count)
		qsort(names, count, sizeof(*names), cmp_str);

	for (i = 0; i < count; i++) {
		char *sub = join(path, names[i]);
		struct stat st;

		if (fchdir(fd) < 0)
			die("%s/%s: %s", top_arg, path, strerror(errno));
		describe(names[i], sub, &st);
		if (S_ISDIR(st.st_mode)) {
			int cfd = openat(fd, names[i],
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd < 0)
				die("%s/%s: %s", top_arg, sub, strerror(errno));
			if (fchdir(cfd) < 0)
				die("%s/%s: %s", top_arg, sub, strerror(errno));
			walk(cfd, sub);
			close(cfd);
		}
		free(sub);
		free(names[i]);
	}
	free(names);
}

static int cmp_entry_path(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/* Hard-link members ordered by device, inode, then path order. */
static int cmp_entry_inode(const void *a, const void *b)
{
	const struct entry *x = &entries[*(const size_t *)a], *y = &entries[*(const size_t *)b];

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void group_hard_links(void)
{
	size_t *idx = xrealloc(NULL, nentries * sizeof(*idx)), n = 0, i, j;

	for (i = 0; i < nentries; i++) {
		if (entries[i].linked)
			idx[n++] = i;
	}
	if (n)
		qsort(idx, n, sizeof(*idx), cmp_entry_inode);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n; j++) {
			if (entries[idx[j]].dev != entries[idx[i]].dev ||
			    entries[idx[j]].ino != entries[idx[i]].ino)
				break;
		}
		if (j - i < 2)
			continue; /* its other names are outside the tree */
		for (size_t k = i; k < j; k++) {
			entries[idx[k]].grouped = 1;
			entries[idx[k]].group = idx[i];
		}
	}
	free(idx);
}

static void usage(void)
{
	fputs("usage: manifest [--no-mtime-dirs] [--no-mtime-links] [--no-owner] [--no-xattrs]\n"
	      "                [--no-holes] [--no-root] [--no-sockets] [--xattr-ns LIST] DIR\n",
	      stderr);
	exit(2);
}

static void parse_ns(char *list)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		xattr_ns = xrealloc(xattr_ns, (xattr_ns_count + 1) * sizeof(*xattr_ns));
		xattr_ns[xattr_ns_count++] = tok;
	}
	if (!xattr_ns)
		xattr_ns = xrealloc(NULL, sizeof(*xattr_ns)); /* keep none */
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"no-mtime-dirs", no_argument, &no_mtime_dirs, 1},
		{"no-mtime-links", no_argument, &no_mtime_links, 1},
		{"no-owner", no_argument, &no_owner, 1},
		{"no-xattrs", no_argument, &no_xattrs, 1},
		{"no-holes", no_argument, &no_holes, 1},
		{"no-root", no_argument, &no_root, 1},
		{"no-sockets", no_argument, &no_sockets, 1},
		{"xattr-ns", required_argument, NULL, 'x'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct buf out = {0};
	struct stat st;
	size_t i;
	int c, fd;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'x')
			parse_ns(optarg);
		else if (c != 0)
			usage();
	}
	if (optind != argc - 1)
		usage();
	top_arg = argv[optind];
	sha256_constants();

	fd = open(top_arg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", top_arg, strerror(errno));
	if (fchdir(fd) < 0)
		die("%s: %s", top_arg, strerror(errno));
	describe(".", ".", &st);
	walk(fd, ".");
	close(fd);

	if (nentries)
		qsort(entries, nentries, sizeof(*entries), cmp_entry_path);
	group_hard_links();
	for (i = 0; i < nentries; i++) {
		out.len = 0;
		buf_add_escaped(&out, entries[i].path, strlen(entries[i].path));
		buf_addf(&out, "%s", entries[i].attrs);
		if (entries[i].grouped) {
			const char *first = entries[entries[i].group].path;

			buf_addf(&out, " link=");
			buf_add_escaped(&out, first, strlen(first));
		}
		buf_addc(&out, '\n');
		if (fwrite(out.s, 1, out.len, stdout) != out.len)
			die("write error: %s", strerror(errno));
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		die("write error: %s", strerror(errno));
	for (i = 0; i < nentries; i++) {
		free(entries[i].path);
		free(entries[i].attrs);
	}
	free(entries);
	free(out.s);
	free(xattr_ns);
	return 0;
}
