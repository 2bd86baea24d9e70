// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers shared by inspect, ls, cat and stat. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "dir.h"
#include "error.h"
#include "format.h"
#include "image.h"
#include "imageopt.h"
#include "inode.h"
#include "show.h"
#include "walk.h"

/* A growable string. */
struct buf {
	char *s;
	size_t len, cap;
};

static int buf_set(struct buf *b, const char *a, size_t alen, const char *c, size_t clen)
{
	size_t sep = clen ? 1 : 0, need = alen + sep + clen + 1;
	char *s;

	if (need > b->cap) {
		s = malloc(need);
		if (!s)
			return SQK_ERR_NOMEM;
		free(b->s);
		b->s = s;
		b->cap = need;
	}
	/* a and c must not point into b->s, which may be replaced. */
	memmove(b->s, a, alen);
	if (sep)
		b->s[alen] = '/';
	memmove(b->s + alen + sep, c, clen);
	b->len = alen + sep + clen;
	b->s[b->len] = '\0';
	return 0;
}

static int buf_append(struct buf *b, const char *name, size_t len)
{
	if (b->len + 1 + len + 1 > b->cap) {
		size_t cap = (b->len + 1 + len + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s)
			return SQK_ERR_NOMEM;
		b->s = s;
		b->cap = cap;
	}
	if (b->len)
		b->s[b->len++] = '/';
	memcpy(b->s + b->len, name, len);
	b->len += len;
	b->s[b->len] = '\0';
	return 0;
}

/* Drop the last component of a path of components ("a/b" -> "a"). */
static void buf_pop(struct buf *b)
{
	char *slash = b->len ? memrchr(b->s, '/', b->len) : NULL;

	b->len = slash ? (size_t)(slash - b->s) : 0;
	if (b->s)
		b->s[b->len] = '\0';
}

static int is_dir(const struct sqk_inode *ino)
{
	return sqfs_basic_type(ino->type) == SQFS_DIR;
}

/*
 * work holds what is left to resolve; done the directories resolved so far
 * (plain names, no symlinks), so ".." is done by resolving done again.
 */
int sqk_show_resolve(struct sqk_image *img, const char *path, int follow_last,
		     struct sqk_inode *ino)
{
	struct buf work = {NULL, 0, 0}, done = {NULL, 0, 0};
	struct sqk_inode cur, child;
	unsigned hops = 0;
	const char *p;
	int err;

	err = buf_set(&work, "", 0, path, strlen(path));
	if (!err)
		err = buf_append(&done, "", 0);
	if (!err)
		err = sqk_resolve(img, "", &cur);
	if (err) {
		free(work.s);
		free(done.s);
		return err;
	}
	p = work.s;
	for (;;) {
		struct sqk_dirent ent;
		size_t len;
		int last, slash;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		last = p[len + strspn(p + len, "/")] == '\0';
		slash = last && p[len] == '/';
		if (!is_dir(&cur)) {
			err = SQK_ERR_NOTDIR;
			break;
		}
		if (len == 1 && p[0] == '.') {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			buf_pop(&done);
			sqk_inode_free(&cur);
			err = sqk_resolve(img, done.s, &cur);
			if (err)
				break;
			p += len;
			continue;
		}
		err = sqk_dir_lookup(img, &cur, p, len, &ent);
		if (!err)
			err = sqk_inode_read(img, ent.ref, &child);
		if (err)
			break;
		if (sqfs_basic_type(child.type) == SQFS_SYMLINK &&
		    (!last || follow_last || slash)) {
			const char *rest = p + len;
			size_t off;

			if (++hops > SQK_SHOW_MAX_SYMLINKS) {
				sqk_inode_free(&child);
				err = SQK_ERR_LOOP;
				break;
			}
			if (child.target[0] == '/') {
				done.len = 0;
				done.s[0] = '\0';
				sqk_inode_free(&cur);
				err = sqk_resolve(img, "", &cur);
			}
			/* rest lives in work: remember where before work moves. */
			off = (size_t)(rest - work.s);
			if (!err) {
				char *old = work.s;
				struct buf nw = {NULL, 0, 0};

				err = buf_set(&nw, child.target, strlen(child.target), old + off,
					      strlen(old + off));
				if (!err) {
					free(work.s);
					work = nw;
					p = work.s;
				}
			}
			sqk_inode_free(&child);
			if (err)
				break;
			continue;
		}
		err = buf_append(&done, p, len);
		sqk_inode_free(&cur);
		cur = child;
		if (err)
			break;
		p += len;
		if (slash && !is_dir(&cur)) {
			err = SQK_ERR_NOTDIR;
			break;
		}
	}
	free(work.s);
	free(done.s);
	if (err) {
		sqk_inode_free(&cur);
		return err;
	}
	*ino = cur;
	return 0;
}

/* "/path" for messages: image paths are shown from the root. */
static void print_image_path(FILE *out, const char *path)
{
	if (*path != '/')
		fputc('/', out);
	sqk_print_escaped(out, path);
}

void sqk_show_path_error(const char *image, const char *path, const char *what)
{
	fprintf(stderr, "squashkit %s: ", sqk_cmd_name);
	sqk_print_escaped(stderr, image);
	fputs(": ", stderr);
	print_image_path(stderr, path);
	fprintf(stderr, ": %s\n", what);
}

void sqk_show_path_code(const char *image, const char *path, int err)
{
	if (err == SQK_ERR_IO && errno)
		sqk_show_path_error(image, path, strerror(errno));
	else
		sqk_show_path_error(image, path, sqk_strerror(err));
}

void sqk_mode_string(mode_t mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	switch (mode & S_IFMT) {
	case S_IFDIR:
		out[0] = 'd';
		break;
	case S_IFLNK:
		out[0] = 'l';
		break;
	case S_IFBLK:
		out[0] = 'b';
		break;
	case S_IFCHR:
		out[0] = 'c';
		break;
	case S_IFIFO:
		out[0] = 'p';
		break;
	case S_IFSOCK:
		out[0] = 's';
		break;
	default:
		out[0] = '-';
		break;
	}
	for (i = 0; i < 9; i++)
		out[1 + i] = (mode & (0400 >> i)) ? rwx[i] : '-';
	/* setuid, setgid, sticky replace an execute bit: lower case when it is set too. */
	if (mode & S_ISUID)
		out[3] = (mode & S_IXUSR) ? 's' : 'S';
	if (mode & S_ISGID)
		out[6] = (mode & S_IXGRP) ? 's' : 'S';
	if (mode & S_ISVTX)
		out[9] = (mode & S_IXOTH) ? 't' : 'T';
	out[10] = '\0';
}

void sqk_time_string(uint32_t t, int seconds, char *out, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm)) {
		snprintf(out, len, "%u", t);
		return;
	}
	strftime(out, len, seconds ? "%Y-%m-%d %H:%M:%S" : "%Y-%m-%d %H:%M", &tm);
}

const char *sqk_json_type(unsigned basic_type)
{
	static const char *const names[8] = {"unknown",	     "directory",   "file", "symlink",
					     "block_device", "char_device", "fifo", "socket"};

	return basic_type < 8 ? names[basic_type] : names[0];
}

uint64_t sqk_show_size(const struct sqk_inode *ino)
{
	return is_dir(ino) ? ino->size + 3 : ino->size;
}

/* Length of the valid UTF-8 sequence at buf (1..4), or 0 when it is not one. */
static size_t utf8_seq(const uint8_t *b, size_t len)
{
	uint32_t cp;
	size_t n, i;

	if (b[0] < 0x80)
		return 1;
	if (b[0] >= 0xc2 && b[0] <= 0xdf)
		n = 2, cp = b[0] & 0x1f;
	else if (b[0] >= 0xe0 && b[0] <= 0xef)
		n = 3, cp = b[0] & 0x0f;
	else if (b[0] >= 0xf0 && b[0] <= 0xf4)
		n = 4, cp = b[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((b[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (b[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int sqk_utf8_valid(const uint8_t *buf, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_seq(buf + i, len - i);

		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

void sqk_json_bytes(FILE *out, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i = 0;

	fputc('"', out);
	while (i < len) {
		uint8_t c = b[i];
		size_t n;

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c == '\t') {
			fputs("\\t", out);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
		} else if (c >= 0x80) {
			n = utf8_seq(b + i, len - i);
			if (n) {
				fwrite(b + i, 1, n, out);
				i += n;
				continue;
			}
			fprintf(out, "\\u%04x", c);
		} else {
			fputc(c, out);
		}
		i++;
	}
	fputc('"', out);
}

void sqk_print_escaped_len(FILE *out, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		if (b[i] == '\\')
			fputs("\\\\", out);
		else if (b[i] == '\n')
			fputs("\\n", out);
		else if (b[i] == '\t')
			fputs("\\t", out);
		else if (b[i] < 0x20 || b[i] == 0x7f)
			fprintf(out, "\\x%02x", b[i]);
		else
			fputc(b[i], out);
	}
}

int sqk_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* PATH shown from the root, without repeated or trailing slashes. */
char *sqk_show_normalise(const char *path)
{
	char *out = malloc(strlen(path) + 2), *q = out;
	const char *p;

	if (!out)
		return NULL;
	for (p = path; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		*q++ = '/';
		while (*p && *p != '/')
			*q++ = *p++;
	}
	if (q == out)
		*q++ = '/';
	*q = '\0';
	return out;
}

int sqk_show_flush(void)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	sqk_error("stdout", "%s", errno ? strerror(errno) : "write error");
	return -1;
}

int sqk_show_bad_option(char **argv)
{
	if (optopt > 0 && optopt < 128 && isprint(optopt))
		return sqk_usage_error("invalid option -- '%c'", optopt);
	return sqk_usage_error("unrecognized option '%s'", argv[optind - 1]);
}

static size_t u64_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

int sqk_u64set_add(struct sqk_u64set *s, uint64_t key)
{
	size_t i;

	if ((s->count + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024, j;
		uint64_t *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return SQK_ERR_NOMEM;
		for (j = 0; j < s->cap; j++) {
			if (!s->slot[j])
				continue;
			for (i = u64_hash(s->slot[j] - 1, cap); slot[i]; i = (i + 1) & (cap - 1))
				;
			slot[i] = s->slot[j];
		}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	for (i = u64_hash(key, s->cap); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == key + 1)
			return 1;
	s->slot[i] = key + 1;
	s->count++;
	return 0;
}

void sqk_u64set_free(struct sqk_u64set *s)
{
	free(s->slot);
	s->slot = NULL;
	s->cap = s->count = 0;
}
