/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The writer's property, shared by the seeded test (tests/unit/writer_rules.c)
 * and the fuzz target (fuzz/writer.c): random pseudo definitions and listing
 * lines, with names, targets, owners and device numbers drawn around the
 * format's limits, go through the build; the result is either a refusal that
 * says why in one line, or an image that fsck calls clean and that the
 * reader gives back whole: every entry the definitions made, with its type,
 * mode, owner, symlink target or device numbers, and nothing more.
 *
 * The choices come from a byte string (the fuzzer's input) or, without one,
 * from a seeded generator, so a seed names a case for good.
 */
#ifndef SQK_TEST_WRITER_PROP_H
#define SQK_TEST_WRITER_PROP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compressors/compressor.h"
#include "format/fmt_inode.h"
#include "format/format.h"
#include "fsck/fsck.h"
#include "mkfs/mkfs.h"
#include "read/dir.h"
#include "read/image.h"
#include "read/inode.h"
#include "source/pseudo.h"
#include "util/error.h"
#include "util/file.h"
#include "walk/walk.h"

struct wp_rand {
	const uint8_t *data; /* the fuzzer's bytes, or NULL for the seeded generator */
	size_t len, at;
	uint64_t state;
};

static inline uint32_t wp_pick(struct wp_rand *r, uint32_t n)
{
	uint32_t v = 0;
	int i;

	if (n <= 1)
		return 0;
	if (!r->data) {
		r->state = r->state * 6364136223846793005ull + 1442695040888963407ull;
		return (uint32_t)(r->state >> 33) % n;
	}
	for (i = 0; i < (n > 256 ? 4 : 1); i++)
		v = v << 8 | (r->at < r->len ? r->data[r->at++] : 0);
	return v % n;
}

/* A value around limit: at it, one either side, anything, or small. */
static inline uint32_t wp_near(struct wp_rand *r, uint32_t limit)
{
	switch (wp_pick(r, 8)) {
	case 0:
		return limit;
	case 1:
		return limit + 1;
	case 2:
		return limit - 1;
	case 3:
		return wp_pick(r, UINT32_MAX);
	default:
		return wp_pick(r, 16);
	}
}

#define WP_MAX_ENTRIES 64
#define WP_PATH_MAX    600

/* One entry the definitions make, as the image must give it back. */
struct wp_entry {
	char path[WP_PATH_MAX];
	unsigned type; /* basic */
	unsigned mode;
	uint32_t uid, gid;
	uint32_t major, minor;
	uint32_t target_len; /* the target is wp_target_byte(0..target_len) */
};

struct wp_case {
	char pseudo[1 << 17], listing[1 << 17];
	size_t plen, llen;
	struct wp_entry e[WP_MAX_ENTRIES];
	unsigned n;
};

/* The target's bytes: letters and slashes, never white space. */
static inline char wp_target_byte(uint32_t i)
{
	return i % 9 == 8 ? '/' : (char)('a' + (i * 7) % 26);
}

static inline void wp_add(char *buf, size_t *len, const char *fmt, ...)
{
	size_t cap = sizeof(((struct wp_case *)0)->pseudo);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < cap - *len)
		*len += (size_t)n;
}

static inline uint32_t wp_owner(struct wp_rand *r)
{
	static const uint32_t some[] = {0, 1, 1000, 65534, 65535, 65536, UINT32_MAX};

	return wp_pick(r, 4) ? some[wp_pick(r, 7)] : wp_pick(r, UINT32_MAX);
}

/* A name: a number that keeps it unique, letters to a length around 256 or short. */
static inline void wp_name(struct wp_rand *r, unsigned k, char *out)
{
	uint32_t len = wp_pick(r, 4) ? 1 + wp_pick(r, 12) : wp_near(r, SQK_NAME_MAX) % 300;
	int n = snprintf(out, 16, "e%u", k);

	while ((uint32_t)n < len)
		out[n++] = (char)('a' + wp_pick(r, 26));
	out[n] = '\0';
}

/* The target of a symlink as text into buf at *len. */
static inline void wp_target(char *buf, size_t *len, uint32_t target_len)
{
	size_t cap = sizeof(((struct wp_case *)0)->pseudo);
	uint32_t i;

	for (i = 0; i < target_len && *len + 2 < cap; i++)
		buf[(*len)++] = wp_target_byte(i);
}

/*
 * One entry of the basic type t under dir (0: a top directory): its pseudo
 * definition (pseudo) or listing line, and what the image must show.
 */
static inline void wp_entry(struct wp_rand *r, struct wp_case *c, int pseudo, const char *dir,
			    unsigned t)
{
	struct wp_entry *e = &c->e[c->n];
	char *buf = pseudo ? c->pseudo : c->listing;
	size_t *len = pseudo ? &c->plen : &c->llen;
	char name[320];

	wp_name(r, c->n, name);
	snprintf(e->path, sizeof(e->path), "%s/%s", dir, name);
	e->type = t;
	e->mode = wp_pick(r, 010000);
	e->uid = wp_owner(r);
	e->gid = wp_owner(r);
	e->major = e->minor = e->target_len = 0;
	switch (t) {
	case SQK_DIR:
		wp_add(buf, len, pseudo ? "%s d %o %u %u\n" : "dir %s %o %u %u\n", e->path, e->mode,
		       e->uid, e->gid);
		break;
	case SQK_SYMLINK:
		e->mode =
			0777; /* a symlink's permissions mean nothing; every writer stores these */
		e->target_len =
			wp_pick(r, 3) ? 1 + wp_pick(r, 64) : wp_near(r, SQK_FMT_SYMLINK_MAX) % 6000;
		if (!e->target_len)
			e->target_len = 1;
		wp_add(buf, len, pseudo ? "%s s %o %u %u " : "slink %s %o %u %u ", e->path, e->mode,
		       e->uid, e->gid);
		wp_target(buf, len, e->target_len);
		wp_add(buf, len, "\n");
		break;
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		e->major = wp_near(r, SQK_FMT_DEV_MAJOR_MAX);
		e->minor = wp_near(r, SQK_FMT_DEV_MINOR_MAX);
		if (pseudo)
			wp_add(buf, len, "%s %c %o %u %u %u %u\n", e->path,
			       t == SQK_BLKDEV ? 'b' : 'c', e->mode, e->uid, e->gid, e->major,
			       e->minor);
		else
			wp_add(buf, len, "nod %s %o %u %u %c %u %u\n", e->path, e->mode, e->uid,
			       e->gid, t == SQK_BLKDEV ? 'b' : 'c', e->major, e->minor);
		break;
	default: /* fifo, socket */
		if (pseudo)
			wp_add(buf, len, "%s i %o %u %u %c\n", e->path, e->mode, e->uid, e->gid,
			       t == SQK_SOCKET ? 's' : 'f');
		else
			wp_add(buf, len, "%s %s %o %u %u\n", t == SQK_SOCKET ? "sock" : "pipe",
			       e->path, e->mode, e->uid, e->gid);
		break;
	}
	c->n++;
}

/* A case: a few top directories, from pseudo definitions or listing lines, and entries in them. */
static inline void wp_generate(struct wp_rand *r, struct wp_case *c)
{
	static const unsigned types[] = {SQK_SYMLINK, SQK_SYMLINK, SQK_BLKDEV, SQK_CHRDEV,
					 SQK_FIFO,    SQK_SOCKET,  SQK_DIR};
	unsigned ndirs = 1 + wp_pick(r, 4), d, k;

	c->plen = c->llen = 0;
	c->n = 0;
	for (d = 0; d < ndirs && c->n < WP_MAX_ENTRIES; d++) {
		int pseudo = (int)wp_pick(r, 2);
		char top[16];
		unsigned nents = wp_pick(r, 10);
		struct wp_entry *e = &c->e[c->n++];

		snprintf(top, sizeof(top), "/%c%u", pseudo ? 'p' : 'l', d);
		snprintf(e->path, sizeof(e->path), "%s", top);
		e->type = SQK_DIR;
		e->mode = 0755;
		e->uid = e->gid = 0;
		wp_add(pseudo ? c->pseudo : c->listing, pseudo ? &c->plen : &c->llen,
		       pseudo ? "%s d 755 0 0\n" : "dir %s 755 0 0\n", top);
		for (k = 0; k < nents && c->n < WP_MAX_ENTRIES; k++)
			wp_entry(r, c, pseudo, top, types[wp_pick(r, 7)]);
	}
	c->pseudo[c->plen] = c->listing[c->llen] = '\0';
}

/* A memfd holding text, and its path. -1 when none could be made. */
static inline int wp_memfd(const char *text, size_t len, char *path, size_t cap)
{
	int fd = memfd_create("writer-prop", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

/* A small build: gzip, 4K blocks, one thread, every time 0. */
static inline void wp_opts(struct sqk_mkfs_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->codec = sqk_codec_by_id(SQK_COMP_GZIP);
	o->block_size = 4096;
	o->codec->defaults(&o->comp, o->block_size);
	o->threads = 1;
	o->set_mtime = o->set_fstime = 1;
}

/* Errors that are a refusal of the input; any other is the writer failing. */
static inline int wp_is_refusal(int err)
{
	return err == SQK_ERR_OVERFLOW || err == SQK_ERR_BADNAME || err == SQK_ERR_EXIST ||
	       err == SQK_ERR_ARG || err == SQK_ERR_NOTDIR || err == SQK_ERR_NOENT;
}

/* Count every entry below dir; -1 on a read error. */
static inline long wp_count(struct sqk_image *img, const struct sqk_inode *dir, int depth)
{
	struct sqk_dir_entry *ents = NULL;
	size_t n = 0, i;
	long total;

	if (depth > 8 || sqk_dir_read_all(img, dir, &ents, &n, NULL))
		return -1;
	total = (long)n;
	for (i = 0; i < n && total >= 0; i++) {
		struct sqk_inode sub;
		long k;

		if (ents[i].type != SQK_DIR)
			continue;
		if (sqk_inode_read(img, ents[i].ref, &sub)) {
			total = -1;
			break;
		}
		k = wp_count(img, &sub, depth + 1);
		sqk_inode_free(&sub);
		total = k < 0 ? -1 : total + k;
	}
	free(ents);
	return total;
}

/* What the image holds at e's path against e; 0 when they agree, else why in buf. */
static inline int wp_compare(struct sqk_image *img, const struct wp_entry *e, char *why, size_t cap)
{
	struct sqk_inode ino;
	uint32_t i;
	int bad = 0;

	if (sqk_resolve(img, e->path, &ino)) {
		snprintf(why, cap, "%.80s: not in the image", e->path);
		return 1;
	}
	if (sqk_basic_type(ino.type) != e->type || (ino.mode & 07777) != e->mode ||
	    ino.uid != e->uid || ino.gid != e->gid)
		bad = snprintf(why, cap, "%.80s: type %u mode %o owner %u:%u, not %u %o %u:%u",
			       e->path, sqk_basic_type(ino.type), ino.mode & 07777, ino.uid,
			       ino.gid, e->type, e->mode, e->uid, e->gid);
	else if (e->type == SQK_SYMLINK) {
		for (i = 0; ino.target && i < e->target_len && ino.target[i] == wp_target_byte(i);
		     i++)
			;
		if (ino.size != e->target_len || i != e->target_len)
			bad = snprintf(why, cap, "%.80s: a target of %llu bytes, not the %u given",
				       e->path, (unsigned long long)ino.size, e->target_len);
	} else if ((e->type == SQK_BLKDEV || e->type == SQK_CHRDEV) &&
		   (sqk_dev_major(ino.rdev) != e->major || sqk_dev_minor(ino.rdev) != e->minor))
		bad = snprintf(why, cap, "%.80s: device %u,%u, not %u,%u", e->path,
			       sqk_dev_major(ino.rdev), sqk_dev_minor(ino.rdev), e->major,
			       e->minor);
	sqk_inode_free(&ino);
	return bad != 0;
}

enum { WP_BUILT, WP_REFUSED, WP_BROKEN };

/*
 * The property for one case. WP_REFUSED with the one-line message in why,
 * WP_BUILT when the image is clean and whole, WP_BROKEN with what is wrong.
 */
static inline int wp_check(const struct wp_case *c, char *why, size_t cap)
{
	struct sqk_mkfs_opts o;
	struct sqk_mkfs_stats st;
	struct sqk_fsck_counts fc = {0};
	struct sqk_fsck_opts fo = {0};
	struct sqk_pseudo *p = NULL;
	struct sqk_mkfs *m = NULL;
	struct sqk_file *out = sqk_file_mem(NULL, 0);
	struct sqk_image *img = NULL;
	struct sqk_fsck *f = NULL;
	struct sqk_inode root;
	char ppath[64], lpath[64];
	int pfd = -1, lfd = -1, err, ret = WP_BROKEN;
	const uint8_t *data;
	size_t len;
	unsigned i;
	long count;

	*why = '\0';
	wp_opts(&o);
	if (c->plen)
		pfd = wp_memfd(c->pseudo, c->plen, ppath, sizeof(ppath));
	if (c->llen)
		lfd = wp_memfd(c->listing, c->llen, lpath, sizeof(lpath));
	if ((c->plen && pfd < 0) || (c->llen && lfd < 0) || !out) {
		snprintf(why, cap, "no memory file");
		goto out;
	}
	err = sqk_pseudo_create(SQK_PSEUDO_NO_EXEC, &p);
	if (!err && c->plen && (err = sqk_pseudo_add_file(p, ppath)) != 0) {
		snprintf(why, cap, "%s: %s", sqk_pseudo_err_where(p), sqk_pseudo_err_msg(p));
		ret = wp_is_refusal(err) && !strchr(why, '\n') ? WP_REFUSED : WP_BROKEN;
		goto out;
	}
	if (!err)
		err = sqk_mkfs_create(&o, out, &m);
	if (!err && c->llen)
		err = sqk_mkfs_add_listing(m, lpath);
	if (!err && c->plen)
		err = sqk_mkfs_add_pseudo(m, p);
	if (!err)
		err = sqk_mkfs_finish(m, &st);
	if (err) {
		const char *msg = m ? sqk_mkfs_err_msg(m) : "";

		snprintf(why, cap, "%s: %s", m ? sqk_mkfs_err_path(m) : "",
			 *msg ? msg : sqk_strerror(err));
		ret = wp_is_refusal(err) && !strchr(why, '\n') ? WP_REFUSED : WP_BROKEN;
		goto out;
	}
	data = sqk_file_mem_data(out, &len);

	/* fsck calls it clean. */
	err = sqk_fsck_create(sqk_file_mem(data, len), &fo, &f);
	if (!err)
		err = sqk_fsck_run(f);
	if (!err)
		sqk_fsck_counts(f, &fc);
	sqk_fsck_destroy(f);
	if (err || fc.errors) {
		snprintf(why, cap, "fsck: %s, %llu problems", err ? sqk_strerror(err) : "ran",
			 (unsigned long long)fc.errors);
		goto out;
	}
	/* The reader gives every entry back as it was made, and nothing more. */
	err = sqk_image_open(sqk_file_mem(data, len), NULL, &img);
	if (err) {
		snprintf(why, cap, "the reader: %s", sqk_strerror(err));
		goto out;
	}
	for (i = 0; i < c->n; i++)
		if (wp_compare(img, &c->e[i], why, cap))
			goto out;
	err = sqk_inode_read(img, sqk_image_super(img)->root_inode, &root);
	count = err ? -1 : wp_count(img, &root, 0);
	if (!err)
		sqk_inode_free(&root);
	if (count != (long)c->n) {
		snprintf(why, cap, "the image lists %ld entries, the definitions made %u", count,
			 c->n);
		goto out;
	}
	ret = WP_BUILT;
out:
	if (img)
		sqk_image_destroy(img);
	sqk_mkfs_destroy(m);
	sqk_pseudo_destroy(p);
	sqk_file_destroy(out);
	if (pfd >= 0)
		close(pfd);
	if (lfd >= 0)
		close(lfd);
	return ret;
}

#endif
