// SPDX-License-Identifier: BSD-2-Clause
/*
 * The writer never writes what the reader refuses (writer_prop.h): seeded
 * random pseudo definitions and listing lines, then each case of a source
 * handing in what the format cannot hold (a symlink target over 4096 bytes,
 * a name over 256, device numbers over 12 and 20 bits, xattr names over 255
 * bytes and values over 64 KiB, an empty target), which must be a refusal
 * that names the path and the rule, and the same values at the limit, which
 * must build whole.
 */
#include <archive.h>
#include <archive_entry.h>

#include "tap.h"
#include "util/xattr_filter.h"
#include "writer_prop.h"

#define SEEDS 600

static struct wp_case c;

/* A case of one top directory /p0 or /l0 with one entry, as wp_entry writes it. */
static void one(int pseudo, const char *name, unsigned type, uint32_t target_len, uint32_t major,
		uint32_t minor)
{
	struct wp_entry *e;
	char *buf = pseudo ? c.pseudo : c.listing;
	size_t *len = pseudo ? &c.plen : &c.llen;
	const char *top = pseudo ? "/p0" : "/l0";

	memset(&c, 0, sizeof(c));
	wp_add(buf, len, pseudo ? "%s d 755 0 0\n" : "dir %s 755 0 0\n", top);
	c.e[0] = (struct wp_entry){.type = SQK_DIR, .mode = 0755};
	snprintf(c.e[0].path, sizeof(c.e[0].path), "%s", top);
	e = &c.e[1];
	snprintf(e->path, sizeof(e->path), "%s/%s", top, name);
	e->type = type;
	e->mode = type == SQK_SYMLINK ? 0777 : 0640;
	e->uid = 7;
	e->gid = 8;
	e->target_len = target_len;
	e->major = major;
	e->minor = minor;
	if (type == SQK_SYMLINK) {
		wp_add(buf, len, pseudo ? "%s s 777 7 8 " : "slink %s 777 7 8 ", e->path);
		wp_target(buf, len, target_len);
		wp_add(buf, len, "\n");
	} else if (type == SQK_CHRDEV) {
		wp_add(buf, len, pseudo ? "%s c 640 7 8 %u %u\n" : "nod %s 640 7 8 c %u %u\n",
		       e->path, major, minor);
	} else {
		wp_add(buf, len, pseudo ? "%s i 640 7 8 f\n" : "pipe %s 640 7 8\n", e->path);
	}
	c.pseudo[c.plen] = c.listing[c.llen] = '\0';
	c.n = 2;
}

static void expect(int want, const char *what, const char *rule)
{
	char why[512];
	int got = wp_check(&c, why, sizeof(why));

	if (!ok(got == want && (!rule || strstr(why, rule)), "%s: %s", what,
		want == WP_BUILT ? "built whole" : "refused"))
		printf("#   got %d: %s\n", got, why);
}

/* A pax archive at path of the entries add() makes; 0 when written. */
static int tar_of(const char *path, void (*add)(struct archive *a, struct archive_entry *e))
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	int err = !a || !e || archive_write_set_format_pax(a) != ARCHIVE_OK ||
		  archive_write_open_filename(a, path) != ARCHIVE_OK;

	if (!err) {
		archive_entry_set_uid(e, 0);
		archive_entry_set_gid(e, 0);
		archive_entry_set_mtime(e, 0, 0);
		add(a, e);
		err = archive_write_close(a) != ARCHIVE_OK;
	}
	archive_entry_free(e);
	archive_write_free(a);
	return err;
}

static char big[70000];

static void add_plain_file(struct archive *a, struct archive_entry *e)
{
	archive_entry_set_pathname(e, "x");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_write_header(a, e);
}

static void add_long_xattr_name(struct archive *a, struct archive_entry *e)
{
	char name[320] = "user.";

	memset(name + 5, 'n', 300);
	archive_entry_set_pathname(e, "x");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_xattr_add_entry(e, name, "v", 1);
	archive_write_header(a, e);
}

static void add_big_xattr_value(struct archive *a, struct archive_entry *e)
{
	archive_entry_set_pathname(e, "x");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_xattr_add_entry(e, "user.big", big, sizeof(big));
	archive_write_header(a, e);
}

static void add_wide_device(struct archive *a, struct archive_entry *e)
{
	archive_entry_set_pathname(e, "x");
	archive_entry_set_filetype(e, AE_IFCHR);
	archive_entry_set_perm(e, 0600);
	archive_entry_set_rdevmajor(e, 5000);
	archive_entry_set_rdevminor(e, 1);
	archive_write_header(a, e);
}

static void add_empty_target(struct archive *a, struct archive_entry *e)
{
	archive_entry_set_pathname(e, "x");
	archive_entry_set_filetype(e, AE_IFLNK);
	archive_entry_set_perm(e, 0777);
	archive_entry_set_symlink(e, "");
	archive_write_header(a, e);
}

/* An archive (and attributes every inode gets) through the build: its error and message. */
static int build_archive(const char *tar, const struct sqk_xattr_add *adds, size_t nadds, char *why,
			 size_t cap)
{
	struct sqk_mkfs_opts o;
	struct sqk_mkfs_stats st;
	struct sqk_file *out = sqk_file_mem(NULL, 0);
	struct sqk_mkfs *m = NULL;
	int err;

	wp_opts(&o);
	o.xattr_adds = adds;
	o.nxattr_adds = nadds;
	err = sqk_mkfs_create(&o, out, &m);
	if (!err)
		err = sqk_mkfs_add_archive(m, tar);
	if (!err)
		err = sqk_mkfs_finish(m, &st);
	snprintf(why, cap, "%s: %s", m ? sqk_mkfs_err_path(m) : "", m ? sqk_mkfs_err_msg(m) : "");
	sqk_mkfs_destroy(m);
	sqk_file_destroy(out);
	return err;
}

static void archive_case(const char *what, void (*add)(struct archive *, struct archive_entry *),
			 const char *rule)
{
	char tar[] = "/tmp/writer-rules-XXXXXX", why[512];
	int fd = mkstemp(tar), err = -1;

	if (fd >= 0) {
		close(fd);
		if (tar_of(tar, add) == 0)
			err = build_archive(tar, NULL, 0, why, sizeof(why));
		unlink(tar);
	}
	if (!ok(err == SQK_ERR_OVERFLOW && strncmp(why, "x: ", 3) == 0 && strstr(why, rule) &&
			!strchr(why, '\n'),
		"archive with %s: refused, naming the path and the rule", what))
		printf("#   got %d: %s\n", err, err == -1 ? "no archive" : why);
}

static const struct limit_case {
	const char *what;
	int pseudo; /* a pseudo definition, else a listing line */
	unsigned type, name_len;
	uint32_t target_len, major, minor;
	int want;
	const char *rule; /* in the refusal */
} limits[] = {
	/* Symlink targets: 4096 bytes is PATH_MAX, the most the reader takes. */
	{"pseudo symlink of 5000 bytes", 1, SQK_SYMLINK, 1, 5000, 0, 0, WP_REFUSED, "4096"},
	{"pseudo symlink of 4097 bytes", 1, SQK_SYMLINK, 1, 4097, 0, 0, WP_REFUSED, "4096"},
	{"pseudo symlink of 4096 bytes", 1, SQK_SYMLINK, 1, 4096, 0, 0, WP_BUILT, NULL},
	{"listing symlink of 4097 bytes", 0, SQK_SYMLINK, 1, 4097, 0, 0, WP_REFUSED,
	 "target_len 4097"},
	{"listing symlink of 4096 bytes", 0, SQK_SYMLINK, 1, 4096, 0, 0, WP_BUILT, NULL},
	/* Device numbers: a 12-bit major and a 20-bit minor. */
	{"pseudo device major 4096", 1, SQK_CHRDEV, 1, 0, 4096, 0, WP_REFUSED, "major"},
	{"listing device minor 1048576", 0, SQK_CHRDEV, 1, 0, 0, 1048576, WP_REFUSED, "minor"},
	{"pseudo device 4095,1048575", 1, SQK_CHRDEV, 1, 0, 4095, 1048575, WP_BUILT, NULL},
	{"listing device 4095,1048575", 0, SQK_CHRDEV, 1, 0, 4095, 1048575, WP_BUILT, NULL},
	/* Names: 256 bytes at most. */
	{"pseudo name of 257 bytes", 1, SQK_FIFO, 257, 0, 0, 0, WP_REFUSED, NULL},
	{"listing name of 257 bytes", 0, SQK_FIFO, 257, 0, 0, 0, WP_REFUSED, NULL},
	{"pseudo name of 256 bytes", 1, SQK_FIFO, 256, 0, 0, 0, WP_BUILT, NULL},
	{"listing name of 256 bytes", 0, SQK_FIFO, 256, 0, 0, 0, WP_BUILT, NULL},
};

/*
 * /l0 with two long symlinks, a and b: the inode table holds them (24
 * bytes and the target each), /l0 and the root (32 each), the root last.
 * a of 4040 bytes and b swept across 4040 puts the root's end on a
 * metadata block's end at one point of the sweep, where a directory
 * without an index must still be found into (its index would start in a
 * block that does not exist).
 */
static unsigned block_end_cases(char *why, size_t cap)
{
	uint32_t b;
	unsigned bad = 0;

	for (b = 4000; b <= 4080; b++) {
		struct wp_entry *e;

		memset(&c, 0, sizeof(c));
		wp_add(c.listing, &c.llen, "dir /l0 755 0 0\n");
		c.e[0] = (struct wp_entry){.path = "/l0", .type = SQK_DIR, .mode = 0755};
		for (c.n = 1; c.n < 3; c.n++) {
			e = &c.e[c.n];
			*e = (struct wp_entry){
				.type = SQK_SYMLINK, .mode = 0777, .uid = 7, .gid = 8};
			snprintf(e->path, sizeof(e->path), "/l0/%c", c.n == 1 ? 'a' : 'b');
			e->target_len = c.n == 1 ? 4040 : b;
			wp_add(c.listing, &c.llen, "slink %s 777 7 8 ", e->path);
			wp_target(c.listing, &c.llen, e->target_len);
			wp_add(c.listing, &c.llen, "\n");
		}
		c.listing[c.llen] = '\0';
		if (wp_check(&c, why, cap) != WP_BUILT && bad++ == 0)
			printf("#   b of %u bytes: %s\n", b, why);
	}
	return bad;
}

int main(void)
{
	unsigned seed, built = 0, refused = 0, broken = 0;
	size_t k;
	char why[512], name[300];

	/* Seeded random cases: each refused in one line, or built clean and whole. */
	for (seed = 1; seed <= SEEDS; seed++) {
		struct wp_rand r = {NULL, 0, 0, seed};
		int got;

		wp_generate(&r, &c);
		got = wp_check(&c, why, sizeof(why));
		if (got == WP_BUILT)
			built++;
		else if (got == WP_REFUSED)
			refused++;
		else if (broken++ < 5)
			printf("#   seed %u: %s\n", seed, why);
	}
	ok(broken == 0, "%u seeded cases: %u built clean and whole, %u refused, %u neither", SEEDS,
	   built, refused, broken);
	ok(built >= SEEDS / 10 && refused >= SEEDS / 10, "the seeds reach both outcomes");

	/* Each limit from both sources: one over it refused, at it built whole. */
	for (k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		const struct limit_case *l = &limits[k];

		memset(name, 'n', l->name_len);
		name[l->name_len] = '\0';
		one(l->pseudo, name, l->type, l->target_len, l->major, l->minor);
		expect(l->want, l->what, l->rule);
	}

	ok(block_end_cases(why, sizeof(why)) == 0,
	   "a root inode that ends a metadata block: every path found, 81 sweeps");

	/* What archives carry beyond the format: refused with the entry's path. */
	memset(big, 'v', sizeof(big));
	archive_case("an xattr name of 300 bytes", add_long_xattr_name, "name_size 300");
	archive_case("an xattr value of 70000 bytes", add_big_xattr_value, "value_size 70000");
	archive_case("device major 5000", add_wide_device, "major 5000");
	archive_case("an empty symlink target", add_empty_target, "target_len 0");

	/* An attribute every inode gets (--xattrs-add) is held to the same rule. */
	{
		char tar[] = "/tmp/writer-rules-XXXXXX";
		struct sqk_xattr_add add = {(char *)"user.big", (uint8_t *)big, sizeof(big)};
		int fd = mkstemp(tar), err = -1;

		if (fd >= 0) {
			close(fd);
			if (tar_of(tar, add_plain_file) == 0)
				err = build_archive(tar, &add, 1, why, sizeof(why));
			unlink(tar);
		}
		if (!ok(err == SQK_ERR_OVERFLOW && strstr(why, "value_size 70000"),
			"--xattrs-add value of 70000 bytes: refused"))
			printf("#   got %d: %s\n", err, why);
	}
	return tap_done();
}
