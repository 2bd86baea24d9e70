// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-read MODE IMAGE DEST [OFFSET]: open IMAGE through the public API
 * (MODE: path, offset, auto, fd or io, the last from a copy in memory),
 * print its facts, list every directory with sqk_dir_next() ("list PATH"
 * lines), and recreate its tree under DEST from a walk: contents through
 * sqk_inode_pread() and sqk_inode_extent(), targets, devices, owners,
 * modes, times, xattrs and hard links; api.t compares DEST with what the
 * kernel mounts. Also checks what a caller must be told when a call
 * fails. Exits 1 after saying which check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

#include "api-test.h"

static const char *dest;
static int failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "api-read: %s:%d: ", __FILE__, __LINE__);                  \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, " [%s]\n", sqk_error_message());                           \
			failed = 1;                                                                \
		}                                                                                  \
	} while (0)

static void die(const char *what)
{
	fprintf(stderr, "api-read: %s: %s\n", what, sqk_error_message());
	exit(1);
}

static void out_path(char *buf, const char *path)
{
	snprintf(buf, PATH_MAX, "%s%s", dest, strcmp(path, "/") ? path : "");
}

static void copy_file(struct sqk_image *img, const struct sqk_stat *st, const char *to)
{
	static char buf[65536];
	struct sqk_inode *ino;
	uint64_t off = 0, data, hole;
	int fd;

	if (sqk_inode_open_ref(img, st->ref, &ino))
		die(to);
	fd = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0, "%s: %s", to, strerror(errno));
	/* Data ranges only: holes stay holes. */
	while (off < st->size) {
		CHECK(!sqk_inode_extent(img, ino, off, &data, &hole), "extent at %llu",
		      (unsigned long long)off);
		CHECK(data >= off && hole > data - (data == st->size) && hole <= st->size,
		      "extent %llu..%llu from %llu", (unsigned long long)data,
		      (unsigned long long)hole, (unsigned long long)off);
		if (data >= st->size || hole <= data)
			break;
		for (off = data; off < hole;) {
			size_t want = hole - off < sizeof(buf) ? (size_t)(hole - off) : sizeof(buf),
			       got;

			if (sqk_inode_pread(img, ino, off, buf, want, &got))
				die(to);
			CHECK(got == want, "short read at %llu", (unsigned long long)off);
			if (pwrite(fd, buf, got, (off_t)off) != (ssize_t)got || !got)
				exit(1);
			off += got;
		}
	}
	CHECK(!ftruncate(fd, (off_t)st->size), "truncate");
	close(fd);
	sqk_inode_destroy(ino);
}

static void copy_xattrs(struct sqk_image *img, const struct sqk_stat *st, const char *to)
{
	struct sqk_xattr_pair *x;
	struct sqk_inode *ino;
	size_t n, i;

	if (sqk_inode_open_ref(img, st->ref, &ino) || sqk_inode_xattrs(img, ino, &x, &n))
		die(to);
	CHECK(n > 0 || !st->has_xattrs, "has_xattrs but none");
	/* Each value read again by its name: what api.t compares with the kernel's. */
	for (i = 0; i < n; i++) {
		char value[65536], small[1];
		size_t size = 0;

		CHECK(!sqk_inode_getxattr(img, ino, x[i].name, value, sizeof(value), &size),
		      "%s: getxattr %s", to, x[i].name);
		CHECK(size == x[i].size, "%s: getxattr %s: %zu bytes, listed %zu", to, x[i].name,
		      size, x[i].size);
		CHECK(size == 0 || sqk_inode_getxattr(img, ino, x[i].name, small, 0, &size) ==
					   SQK_ERR_OVERFLOW,
		      "%s: getxattr %s into 0 bytes", to, x[i].name);
		CHECK(!lsetxattr(to, x[i].name, value, size, 0), "%s: %s: %s", to, x[i].name,
		      strerror(errno));
	}
	CHECK(sqk_inode_getxattr(img, ino, "user.no-such-name", NULL, 0, NULL) == SQK_ERR_NOENT &&
		      sqk_error_errno() == ENODATA,
	      "%s: getxattr of a name it lacks", to);
	sqk_inode_xattrs_destroy(x, n);
	sqk_inode_destroy(ino);
}

/* Directories get their times once their entries are made. */
static struct {
	char path[PATH_MAX];
	uint32_t mtime;
} dirs[4096];
static size_t ndirs;

static void attrs(const char *to, const struct sqk_stat *st)
{
	struct timespec ts[2] = {{st->mtime, 0}, {st->mtime, 0}};

	CHECK(!lchown(to, st->uid, st->gid), "%s: chown: %s", to, strerror(errno));
	if (!S_ISLNK(st->mode))
		CHECK(!chmod(to, st->mode & 07777), "%s: chmod", to);
	if (S_ISDIR(st->mode) && ndirs < sizeof(dirs) / sizeof(dirs[0])) {
		snprintf(dirs[ndirs].path, PATH_MAX, "%s", to);
		dirs[ndirs++].mtime = st->mtime;
	}
	CHECK(!utimensat(AT_FDCWD, to, ts, AT_SYMLINK_NOFOLLOW), "%s: utimes", to);
}

static int visit(void *ctx, const char *path, const struct sqk_stat *st, const char *link_to)
{
	struct sqk_image *img = ctx;
	char to[PATH_MAX], from[PATH_MAX], target[4097];
	int r;

	out_path(to, path);
	if (link_to) {
		out_path(from, link_to);
		CHECK(!link(from, to), "%s: link: %s", to, strerror(errno));
		return 0;
	}
	switch (st->mode & S_IFMT) {
	case S_IFDIR:
		CHECK(!mkdir(to, 0700) || !strcmp(path, "/"), "%s: mkdir", to);
		break;
	case S_IFREG:
		copy_file(img, st, to);
		break;
	case S_IFLNK: {
		struct sqk_inode *ino;

		if (sqk_inode_open_ref(img, st->ref, &ino))
			die(path);
		r = sqk_inode_readlink(ino, target, sizeof(target));
		CHECK(r == (int)st->size, "%s: readlink gave %d", path, r);
		CHECK(sqk_inode_readlink(ino, target, st->size) == SQK_ERR_OVERFLOW,
		      "a short buffer is SQK_ERR_OVERFLOW");
		sqk_inode_readlink(ino, target, sizeof(target));
		sqk_inode_destroy(ino);
		/* Followed inside the image: to what is no symlink, or to nothing. */
		r = sqk_inode_open_follow(img, path, &ino);
		if (!r) {
			struct sqk_stat to_st;

			sqk_inode_stat(ino, &to_st);
			CHECK(!S_ISLNK(to_st.mode), "%s: followed to a symlink", path);
			sqk_inode_destroy(ino);
		} else {
			CHECK(r == SQK_ERR_NOENT || r == SQK_ERR_LOOP || r == SQK_ERR_NOTDIR,
			      "%s: following it gave %d", path, r);
		}
		CHECK(!symlink(target, to), "%s: symlink", to);
		break;
	}
	default:
		CHECK(!mknod(to, st->mode & S_IFMT, st->rdev), "%s: mknod: %s", to,
		      strerror(errno));
	}
	if (st->has_xattrs)
		copy_xattrs(img, st, to);
	attrs(to, st);
	return 0;
}

/* A path as tests/tools/manifest writes it: bytes outside 0x21..0x7e escaped. */
static void print_path(const char *p)
{
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c == '\r')
			fputs("\\r", stdout);
		else if (c < 0x21 || c > 0x7e)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

/* Every directory listed an entry at a time, depth first. */
static void list(struct sqk_image *img, struct sqk_inode *dir, const char *path)
{
	struct sqk_dirent e;
	struct sqk_dir *d;
	int r;

	if (sqk_dir_open(img, dir, &d))
		die(path);
	while ((r = sqk_dir_next(d, &e)) == 1) {
		char sub[PATH_MAX];
		struct sqk_inode *ino;
		struct sqk_stat st;

		snprintf(sub, sizeof(sub), "%s/%s", path, e.name);
		fputs("list ", stdout);
		print_path(sub + 1);
		putchar('\n');
		CHECK(strlen(e.name) == e.name_len, "name_len");
		if (sqk_inode_open_ref(img, e.ref, &ino))
			die(sub);
		sqk_inode_stat(ino, &st);
		CHECK(st.ino == e.ino && (st.mode & S_IFMT) == e.type, "%s: entry and inode differ",
		      sub);
		if (e.type == S_IFDIR)
			list(img, ino, sub);
		sqk_inode_destroy(ino);
	}
	CHECK(r == 0, "sqk_dir_next: %d", r);
	sqk_dir_destroy(d);
}

/* What a caller is told when a call fails. */
static void failures(struct sqk_image *img)
{
	struct sqk_image *none = NULL;
	struct sqk_inode *ino = NULL;
	struct sqk_dir *d;
	uint64_t v;
	char buf[16];

	CHECK(sqk_image_open_path("/nonexistent/x.img", NULL, &none) == SQK_ERR_NOFILE && !none,
	      "a missing file is SQK_ERR_NOFILE");
	CHECK(sqk_error_errno() == ENOENT, "its errno is ENOENT");
	CHECK(strstr(sqk_error_message(), "/nonexistent/x.img") &&
		      strstr(sqk_error_message(), strerror(ENOENT)),
	      "the message names the path and the cause");
	CHECK(sqk_image_open_path("/etc/passwd", NULL, &none) == SQK_ERR_MAGIC,
	      "a file that is no image is SQK_ERR_MAGIC");
	CHECK(sqk_inode_open(img, "/no/such/entry", &ino) == SQK_ERR_NOENT && !ino,
	      "a missing path is SQK_ERR_NOENT");
	CHECK(strstr(sqk_error_message(), "/no/such/entry"), "and the message names it");
	CHECK(!strcmp(sqk_strerror(SQK_ERR_NOENT), "no such file or directory in the image"),
	      "sqk_strerror gives the words");
	CHECK(sqk_inode_open(img, "/", &ino) == 0 && !*sqk_error_message(),
	      "a success leaves no message");
	CHECK(sqk_inode_readlink(ino, buf, sizeof(buf)) == SQK_ERR_ARG, "readlink of a directory");
	CHECK(sqk_inode_pread(img, ino, 0, buf, 1, &(size_t){0}) == SQK_ERR_ARG,
	      "pread of a directory");
	CHECK(sqk_dir_open(img, ino, &d) == 0, "the root lists");
	sqk_dir_destroy(d);
	sqk_inode_destroy(ino);
	CHECK(sqk_image_counter(img, SQK_CACHE_DATA, "no-such-counter", &v) == SQK_ERR_ARG,
	      "an unknown counter");
	sqk_inode_destroy(NULL);
	sqk_dir_destroy(NULL);
	sqk_image_destroy(NULL);
}

static void facts(struct sqk_image *img)
{
	struct sqk_image_info in;
	struct sqk_comp_option opts[16];
	const char *const *names;
	uint64_t v;
	int n, i;

	CHECK(!sqk_image_info(img, &in), "info");
	printf("inodes %u\nblock_size %u\nbytes_used %llu\ncompressor %s\nfragments %u\nids %u\n",
	       in.inodes, in.block_size, (unsigned long long)in.bytes_used, in.compressor,
	       in.fragments, in.ids);
	printf("offset %llu\nexportable %d\nxattrs %d\n", (unsigned long long)in.offset,
	       in.exportable, in.has_xattrs);
	CHECK(in.inode_table.start && in.inode_table.size && in.directory_table.start &&
		      in.id_table.start && in.inode_table.start < in.directory_table.start &&
		      in.id_table.start + in.id_table.size <= in.bytes_used,
	      "table layout");
	n = sqk_image_compressor_options(img, opts, 16);
	for (i = 0; i < n && i < 16; i++)
		printf("option %s=%s\n", opts[i].key, opts[i].value);
	names = sqk_counter_names();
	for (i = 0; names[i]; i++)
		CHECK(!sqk_image_counter(img, SQK_CACHE_METADATA, names[i], &v), "counter %s",
		      names[i]);
	CHECK(i > 10, "counter names");
	CHECK(!sqk_image_counter(img, SQK_CACHE_DATA, "decompressions", &v) && v > 0,
	      "blocks were decompressed");
	CHECK(!sqk_image_counter(img, SQK_CACHE_METADATA, "fills", &v) && v > 0,
	      "metadata blocks were filled");
	CHECK(sqk_image_counter(img, SQK_CACHE_COMPRESSED, "hits", &v) == 0 ||
		      sqk_image_counter(img, SQK_CACHE_COMPRESSED, "hits", &v) == SQK_ERR_NOENT,
	      "the compressed cache: counted, or SQK_ERR_NOENT");
}

int main(int argc, char **argv)
{
	struct sqk_open_opts *o = sqk_open_opts_create();
	struct sqk_image *img = NULL;
	struct sqk_inode *root;
	struct memio m = {0};
	const char *mode;
	int err, fd = -1;

	if (argc < 4 || !o)
		return 2;
	mode = argv[1];
	dest = argv[3];
	CHECK(sqk_open_opts_set_cache(o, SQK_CACHE_DATA, 0) == SQK_ERR_ARG,
	      "a data cache of no entry is refused");
	sqk_open_opts_set_cache(o, SQK_CACHE_DATA, 4);
	sqk_open_opts_set_cache(o, SQK_CACHE_FRAGMENT, 4);
	sqk_open_opts_set_cache(o, SQK_CACHE_METADATA, 16);
	sqk_open_opts_set_cache(o, SQK_CACHE_COMPRESSED, 8);
	sqk_open_opts_set_policy(o, SQK_POLICY_EXCLUSIVE);
	sqk_open_opts_set_decompressors(o, 2);
	sqk_open_opts_set_kernel_decode(o, 1);
	if (!strcmp(mode, "offset"))
		sqk_open_opts_set_offset(o, strtoull(argv[4], NULL, 0));
	else if (!strcmp(mode, "auto"))
		sqk_open_opts_set_offset_auto(o);
	if (!strcmp(mode, "fd")) {
		fd = open(argv[2], O_RDONLY);
		err = sqk_image_open_fd(fd, o, &img);
	} else if (!strcmp(mode, "io")) {
		struct sqk_io io;

		if (memio_load(argv[2], &m, &io))
			return 1;
		err = sqk_image_open_io(&io, o, &img);
	} else {
		err = sqk_image_open_path(argv[2], o, &img);
	}
	sqk_open_opts_destroy(o);
	if (err)
		die(argv[2]);
	if (fd >= 0)
		CHECK(!close(fd), "the caller's descriptor stays the caller's");
	if (sqk_inode_open(img, "", &root))
		die("/");
	list(img, root, "");
	sqk_inode_destroy(root);
	if (sqk_walk_tree(img, "/", visit, img))
		die("walk");
	while (ndirs--) {
		struct timespec ts[2] = {{dirs[ndirs].mtime, 0}, {dirs[ndirs].mtime, 0}};

		utimensat(AT_FDCWD, dirs[ndirs].path, ts, 0);
	}
	facts(img);
	failures(img);
	printf("version %s\n", sqk_version());
	sqk_image_destroy(img);
	if (!strcmp(mode, "io"))
		CHECK(m.closed == 1, "io.close was called %d times", m.closed);
	free(m.data);
	return failed;
}
