// SPDX-License-Identifier: BSD-2-Clause
/*
 * One pseudo definition, field by field, as mksquashfs 4.5 reads it: the
 * name, a link name and a time are words that may be quoted or escaped;
 * mode, owners and numbers are plain fields; a command or symlink target
 * is the rest of the line. The definition then goes to sqk_pseudo_insert.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/fmt_inode.h"
#include "format/format.h"
#include "pseudo_int.h"
#include "util/error.h"
#include "util/parse.h"

#define PATH_LIMIT 4095

extern char **environ;

/* A word: up to unquoted white space; '"' quotes, '\' escapes the next byte. In place. */
static char *scan_word(char **sp)
{
	char *r = sqk_pseudo_skip_ws(*sp), *w = r, *start = r;
	int quoted = 0;

	while (*r && (quoted || !sqk_pseudo_ws(*r))) {
		if (*r == '"') {
			quoted = !quoted;
			r++;
			continue;
		}
		if (*r == '\\' && !*++r)
			break;
		*w++ = *r++;
	}
	*sp = *r ? r + 1 : r;
	*w = '\0';
	return start;
}

/* A plain field: up to white space, no quoting (mksquashfs reads these with %s). */
static char *next_field(char **sp)
{
	char *s = sqk_pseudo_skip_ws(*sp), *start = s;

	if (!*s)
		return NULL;
	while (*s && !sqk_pseudo_ws(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*sp = s;
	return start;
}

/* The image path of a scanned name: no leading, trailing or doubled '/'. */
static char *image_path(struct sqk_pseudo *p, const char *name, const struct sqk_pseudo_src *src,
			unsigned line, int *err)
{
	size_t len = strlen(name), n = 0;
	char *path = malloc(len + 1);
	const char *c = name;

	*err = SQK_ERR_NOMEM;
	if (!path)
		return NULL;
	while (*c) {
		size_t k;

		while (*c == '/')
			c++;
		k = strcspn(c, "/");
		if (!k)
			break;
		if ((k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.')) {
			*err = sqk_pseudo_fail(p, src, line, "'.' and '..' cannot be names: %s",
					       name);
			free(path);
			return NULL;
		}
		if (k > SQK_NAME_MAX) {
			*err = sqk_pseudo_fail(p, src, line,
					       "a name longer than %d bytes: %.40s...",
					       SQK_NAME_MAX, c);
			free(path);
			return NULL;
		}
		if (n)
			path[n++] = '/';
		memcpy(path + n, c, k);
		n += k;
		c += k;
	}
	path[n] = '\0';
	if (n > PATH_LIMIT) {
		*err = sqk_pseudo_fail(p, src, line, "a path longer than %d bytes", PATH_LIMIT);
		free(path);
		return NULL;
	}
	return path;
}

/* Octal, as mksquashfs reads it (%o), at most 07777. */
static int parse_mode(const char *s, uint16_t *mode)
{
	uint32_t v = 0;

	if (*s == '+')
		s++;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '7' || v > 07777)
			return -1;
		v = v * 8 + (uint32_t)(*s - '0');
	}
	if (v > 07777)
		return -1;
	*mode = (uint16_t)v;
	return 0;
}

/* A number, or a user or group name. */
static int parse_owner(const char *s, int group, uint32_t *id)
{
	uint64_t v;

	if (sqk_parse_uint(s + (*s == '+'), 0xffffffffu, &v) == 0) {
		*id = (uint32_t)v;
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(s);

		if (g) {
			*id = g->gr_gid;
			return 0;
		}
	} else {
		struct passwd *pw = getpwnam(s);

		if (pw) {
			*id = pw->pw_uid;
			return 0;
		}
	}
	return -1;
}

/* A date string, through date -d (as mksquashfs does); its messages go nowhere. */
static int run_date(const char *str, uint32_t *t)
{
	char *argv[] = {"date", "-d", (char *)str, "+%s", NULL};
	posix_spawn_file_actions_t fa;
	char buf[64];
	size_t n = 0;
	int pfd[2], status, err;
	pid_t pid;
	uint64_t v;

	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	err = posix_spawnp(&pid, "date", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (err) {
		close(pfd[0]);
		return -1;
	}
	for (;;) {
		ssize_t r = read(pfd[0], buf + n, sizeof(buf) - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == sizeof(buf) - 1)
			break;
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	while (n && sqk_pseudo_ws(buf[n - 1]))
		n--;
	buf[n] = '\0';
	if (sqk_parse_uint(buf, 0xffffffffu, &v))
		return -1;
	*t = (uint32_t)v;
	return 0;
}

static int parse_time(struct sqk_pseudo_line *l, const char *s, uint32_t *t)
{
	uint64_t v;

	if (*s >= '0' && *s <= '9' && s[strspn(s, "0123456789")] == '\0') {
		if (sqk_parse_uint(s, 0xffffffffu, &v))
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       "time %s out of range (0 to 4294967295)", s);
		*t = (uint32_t)v;
		return 0;
	}
	if (!*s)
		return sqk_pseudo_fail(l->p, l->src, l->no, "missing the time");
	if (l->p->flags & SQK_PSEUDO_NO_EXEC)
		return sqk_pseudo_fail(l->p, l->src, l->no, "date strings are not read here: '%s'",
				       s);
	if (run_date(s, t))
		return sqk_pseudo_fail(
			l->p, l->src, l->no,
			"bad time '%s': seconds since 1970 or a date that date -d takes "
			"(up to 2106)",
			s);
	return 0;
}

/* l: a host file as it is; L: another definition. */
static int parse_link(struct sqk_pseudo_line *l, struct sqk_pseudo_def *d, char type, char *s)
{
	char *name = scan_word(&s);
	struct stat st;
	int err;

	if (!*name)
		return sqk_pseudo_fail(l->p, l->src, l->no, "missing the name to link to");
	if (*sqk_pseudo_skip_ws(s))
		return sqk_pseudo_fail(l->p, l->src, l->no, "unexpected text after the link: '%s'",
				       sqk_pseudo_skip_ws(s));
	if (type == 'L') {
		struct sqk_pseudo_def *t;
		char *path = image_path(l->p, name, l->src, l->no, &err);

		if (!path)
			return err;
		t = sqk_pseudo_lookup(l->p, path);
		free(path);
		if (!t || t->kind == SQK_PK_NONE)
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       "%s: no such pseudo definition before", name);
		if (t->kind == SQK_PK_DIR || t->kind == SQK_PK_MODIFY)
			return sqk_pseudo_fail(
				l->p, l->src, l->no,
				"%s: cannot hard-link a directory or a modify definition", name);
		d->kind = SQK_PK_LINK;
		d->link = t->kind == SQK_PK_LINK ? t->link : t;
		d->type = d->link->type;
		return 0;
	}
	if (lstat(name, &st) != 0)
		return sqk_pseudo_fail(l->p, l->src, l->no, "%s: %s", name, strerror(errno));
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		d->type = SQK_FILE;
		break;
	case S_IFLNK:
		d->type = SQK_SYMLINK;
		break;
	case S_IFBLK:
		d->type = SQK_BLKDEV;
		break;
	case S_IFCHR:
		d->type = SQK_CHRDEV;
		break;
	case S_IFIFO:
		d->type = SQK_FIFO;
		break;
	case S_IFSOCK:
		d->type = SQK_SOCKET;
		break;
	default:
		return sqk_pseudo_fail(l->p, l->src, l->no, "%s: a directory cannot be linked to",
				       name);
	}
	d->kind = SQK_PK_HOST;
	d->arg = strdup(name);
	if (!d->arg)
		return SQK_ERR_NOMEM;
	d->mode = st.st_mode & 07777;
	d->uid = st.st_uid;
	d->gid = st.st_gid;
	d->host_mtime = st.st_mtim.tv_sec;
	d->major = major(st.st_rdev);
	d->minor = minor(st.st_rdev);
	d->length = (uint64_t)st.st_size;
	d->dev = (uint64_t)st.st_dev;
	d->ino = (uint64_t)st.st_ino;
	return 0;
}

/* What follows MODE UID GID in each type. */
static int parse_tail(struct sqk_pseudo_line *l, struct sqk_pseudo_def *d, char type, char *s)
{
	char *f;
	uint64_t v;

	switch (type) {
	case 'b':
	case 'c':
		d->kind = SQK_PK_NODE;
		d->type = type == 'b' ? SQK_BLKDEV : SQK_CHRDEV;
		if (!(f = next_field(&s)))
			return sqk_pseudo_fail(l->p, l->src, l->no, "missing the major number");
		if (sqk_parse_uint(f, SQK_FMT_DEV_MAJOR_MAX, &v))
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       "bad major number '%s' (0 to %u)", f,
					       SQK_FMT_DEV_MAJOR_MAX);
		d->major = (uint32_t)v;
		if (!(f = next_field(&s)))
			return sqk_pseudo_fail(l->p, l->src, l->no, "missing the minor number");
		if (sqk_parse_uint(f, SQK_FMT_DEV_MINOR_MAX, &v))
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       "bad minor number '%s' (0 to %u)", f,
					       SQK_FMT_DEV_MINOR_MAX);
		d->minor = (uint32_t)v;
		break;
	case 'i':
		d->kind = SQK_PK_NODE;
		s = sqk_pseudo_skip_ws(s);
		if (*s != 's' && *s != 'f')
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       *s ? "the kind must be s (socket) or f (fifo)"
						  : "missing s (socket) or f (fifo)");
		d->type = *s++ == 's' ? SQK_SOCKET : SQK_FIFO;
		break;
	case 'f':
	case 's':
		s = sqk_pseudo_skip_ws(s);
		if (!*s)
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       type == 'f' ? "missing the command"
							   : "missing the target");
		if (type == 's' && strlen(s) > SQK_FMT_SYMLINK_MAX)
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       "a symlink target longer than %u bytes (PATH_MAX)",
					       SQK_FMT_SYMLINK_MAX);
		d->kind = type == 'f' ? SQK_PK_COMMAND : SQK_PK_SYMLINK;
		d->type = type == 'f' ? SQK_FILE : SQK_SYMLINK;
		d->arg = strdup(s);
		if (!d->arg)
			return SQK_ERR_NOMEM;
		if (type == 's')
			d->mode = 0777; /* as mksquashfs: symlinks are always rwxrwxrwx */
		return 0;
	case 'r':
		if (!l->no)
			return sqk_pseudo_fail(
				l->p, l->src, l->no,
				"R definitions can only be in a pseudo file (--pseudo-file)");
		d->kind = SQK_PK_DATA;
		d->type = SQK_FILE;
		if (!(f = next_field(&s)) || sqk_parse_uint(f, INT64_MAX, &d->length))
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       f ? "bad length '%s'" : "missing the length", f);
		if (!(f = next_field(&s)) || sqk_parse_uint(f, INT64_MAX, &d->offset))
			return sqk_pseudo_fail(l->p, l->src, l->no,
					       f ? "bad offset '%s'" : "missing the offset", f);
		break;
	}
	s = sqk_pseudo_skip_ws(s);
	if (*s)
		return sqk_pseudo_fail(l->p, l->src, l->no, "unexpected text at the end: '%s'", s);
	return 0;
}

/* One definition, in a writable buffer. */
int sqk_pseudo_parse_def(struct sqk_pseudo_line *l, char *s)
{
	struct sqk_pseudo_def *d = calloc(1, sizeof(*d));
	char *name, *f, type, lower;
	int err;

	if (!d)
		return SQK_ERR_NOMEM;
	name = scan_word(&s);
	d->path = image_path(l->p, name, l->src, l->no, &err);
	if (!d->path)
		goto out;
	s = sqk_pseudo_skip_ws(s);
	type = *s;
	if (type)
		s++;
	lower = (char)(type >= 'A' && type <= 'Z' ? type - 'A' + 'a' : type);
	d->mtime = l->p->mtime;
	err = 0;
	if (!type)
		err = sqk_pseudo_fail(l->p, l->src, l->no, "missing the type after the name");
	else if (type == 'l' || type == 'L')
		err = parse_link(l, d, type, s);
	else if (!strchr("dmbcfsiDMBCFSIR", type))
		err = sqk_pseudo_fail(l->p, l->src, l->no,
				      "unknown type '%c' (d m b c f s i l L D M B C F S I R)",
				      type);
	if (err || type == 'l' || type == 'L')
		goto done;
	if (type != lower) {
		d->timed = 1;
		err = parse_time(l, scan_word(&s), &d->mtime);
		if (err)
			goto out;
	}
	if (!(f = next_field(&s)) || parse_mode(f, &d->mode)) {
		err = sqk_pseudo_fail(l->p, l->src, l->no,
				      f ? "bad mode '%s' (octal, up to 7777)" : "missing the mode",
				      f);
		goto out;
	}
	if (!(f = next_field(&s)) || parse_owner(f, 0, &d->uid)) {
		err = sqk_pseudo_fail(l->p, l->src, l->no,
				      f ? "bad uid '%s' (a number or a user)" : "missing the uid",
				      f);
		goto out;
	}
	if (!(f = next_field(&s)) || parse_owner(f, 1, &d->gid)) {
		err = sqk_pseudo_fail(l->p, l->src, l->no,
				      f ? "bad gid '%s' (a number or a group)" : "missing the gid",
				      f);
		goto out;
	}
	if (lower == 'd' || lower == 'm') {
		d->kind = lower == 'd' ? SQK_PK_DIR : SQK_PK_MODIFY;
		d->type = SQK_DIR;
		s = sqk_pseudo_skip_ws(s);
		if (*s)
			err = sqk_pseudo_fail(l->p, l->src, l->no,
					      "unexpected text at the end: '%s'", s);
	} else {
		err = parse_tail(l, d, lower, s);
	}
done:
	if (!err)
		return sqk_pseudo_insert(l, d);
out:
	sqk_pseudo_free_def(d);
	return err;
}
