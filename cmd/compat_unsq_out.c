// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit unsquashfs: the listings unsquashfs prints, which scripts
 * parse, and its extract/exclude name matching. The entries come from the
 * public API, the matching from util/pattern.c; only the formatting is here.
 */
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sys/sysmacros.h>

#include "compat_unsq.h"
#include "show.h"

static enum sqk_pattern_style style(const struct usq_filter *f)
{
	if (f->regex)
		return SQK_PATTERN_REGEX;
	return f->no_wildcards ? SQK_PATTERN_LITERAL : SQK_PATTERN_WILDCARDS;
}

int cli_usq_filter_add(struct usq_filter *f, int exclude, const char *name)
{
	struct usq_pattern *list = exclude ? f->exclude : f->extract;
	unsigned n = exclude ? f->nexclude : f->nextract;
	struct usq_pattern *p;
	char msg[200];

	list = realloc(list, (n + 1) * sizeof(*list));
	if (!list)
		return -1;
	if (exclude)
		f->exclude = list;
	else
		f->extract = list;
	p = &list[n];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	if (!p->name)
		return -1;
	if (sqk_pattern_compile(&p->p, name, style(f), msg, sizeof(msg)) != 0) {
		free(p->name);
		return -1;
	}
	if (exclude)
		f->nexclude++;
	else
		f->nextract++;
	return 0;
}

static int restyle_list(struct usq_pattern *list, unsigned n, enum sqk_pattern_style st,
			const char **bad)
{
	char msg[200];
	unsigned i;

	for (i = 0; i < n; i++) {
		if (list[i].p.style == st)
			continue;
		sqk_pattern_free(&list[i].p);
		if (sqk_pattern_compile(&list[i].p, list[i].name, st, msg, sizeof(msg)) != 0) {
			*bad = list[i].name;
			return -1;
		}
	}
	return 0;
}

int cli_usq_filter_restyle(struct usq_filter *f, const char **bad)
{
	if (restyle_list(f->extract, f->nextract, style(f), bad) != 0)
		return -1;
	return restyle_list(f->exclude, f->nexclude, style(f), bad);
}

/* How far path's components match p: -1 no, 0 partly (path is shorter), 1 whole. */
static int pattern_match(const struct usq_pattern *p, const char *path)
{
	switch (sqk_pattern_match(&p->p, path)) {
	case SQK_PATTERN_WHOLE:
		return 1;
	case SQK_PATTERN_BELOW:
		return p->dir_only ? -1 : 1;
	case SQK_PATTERN_LEADS:
		return 0;
	default:
		return -1;
	}
}

int cli_usq_filter_match(const struct usq_filter *f, const char *path)
{
	const char *s;
	unsigned i, depth = 0;
	int r = USQ_IN;

	if (*path) {
		depth = 1;
		for (s = path; *s; s++)
			depth += *s == '/';
	}
	if (f->max_depth >= 0 && depth > (unsigned)f->max_depth)
		return USQ_OUT;
	for (i = 0; i < f->nexclude; i++)
		if (f->exclude[i].p.n && pattern_match(&f->exclude[i], path) == 1)
			return USQ_OUT;
	if (f->nextract) {
		r = USQ_OUT;
		for (i = 0; i < f->nextract && r != USQ_IN; i++) {
			int m = f->extract[i].p.n || f->extract[i].dir_only
					? pattern_match(&f->extract[i], path)
					: 1;

			if (m == 1)
				r = USQ_IN;
			else if (m == 0)
				r = USQ_ON_THE_WAY;
		}
	}
	return r;
}

int cli_usq_filter_add_dir(struct usq_filter *f, const char *name)
{
	if (cli_usq_filter_add(f, 0, name) != 0)
		return -1;
	f->extract[f->nextract - 1].dir_only = 1;
	return 0;
}

static void release_list(struct usq_pattern *list, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		sqk_pattern_free(&list[i].p);
		free(list[i].name);
	}
	free(list);
}

void cli_usq_filter_release(struct usq_filter *f)
{
	release_list(f->extract, f->nextract);
	release_list(f->exclude, f->nexclude);
	f->extract = f->exclude = NULL;
	f->nextract = f->nexclude = 0;
}

/* The width unsquashfs gives owner and size together. */
#define OWNER_SIZE_WIDTH 25

void cli_usq_print_entry(FILE *out, const struct usq_format *fmt, const char *path,
			 const struct sqk_stat *ino, uint64_t size, const char *target)
{
	char mode[11], ubuf[12], gbuf[12], when[40];
	const char *user = NULL, *group = NULL;
	time_t t = ino->mtime;
	struct tm tm;
	int pad;

	if (fmt->lng) {
		if (!fmt->numeric) {
			struct passwd *pw = getpwuid(ino->uid);
			struct group *gr = getgrgid(ino->gid);

			user = pw ? pw->pw_name : NULL;
			group = gr ? gr->gr_name : NULL;
		}
		if (!user) {
			snprintf(ubuf, sizeof(ubuf), "%u", ino->uid);
			user = ubuf;
		}
		if (!group) {
			snprintf(gbuf, sizeof(gbuf), "%u", ino->gid);
			group = gbuf;
		}
		cli_mode_string(ino->mode, mode);
		fprintf(out, "%s %s/%s ", mode, user, group);
		pad = OWNER_SIZE_WIDTH - (int)strlen(user) - (int)strlen(group);
		if (S_ISBLK(ino->mode) || S_ISCHR(ino->mode)) {
			/*
			 * The old 8-bit-minor split of the stored number (minor's
			 * low byte, major, minor's upper bits), as the peer shows it.
			 */
			unsigned mj = major(ino->rdev), mn = minor(ino->rdev);
			uint32_t stored = (mn & 0xff) | mj << 8 | (mn & ~0xffu) << 12;

			pad -= 7;
			fprintf(out, "%*s%3d,%3d ", pad > 0 ? pad : 0, " ", (int)stored >> 8,
				(int)stored & 0xff);
		} else {
			if (!S_ISREG(ino->mode) && !S_ISDIR(ino->mode) && !S_ISLNK(ino->mode))
				size = 0;
			fprintf(out, "%*llu ", pad > 0 ? pad : 0, (unsigned long long)size);
		}
		if (fmt->utc)
			gmtime_r(&t, &tm);
		else
			localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
		fprintf(out, "%s ", when);
	}
	fputs(fmt->dest, out);
	if (*path) {
		fputc('/', out);
		fputs(path, out);
	}
	if (fmt->lng && S_ISLNK(ino->mode) && target)
		fprintf(out, " -> %s", target);
	fputc('\n', out);
}
