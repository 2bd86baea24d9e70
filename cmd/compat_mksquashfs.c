// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit mksquashfs: mksquashfs's command line, SOURCE... DEST [OPTIONS],
 * turned into a native mkimage command line and run by cli_mkimage. Nothing
 * is built here: every option becomes native options (see the table in
 * compat_mksq_opts.c and squashkit-compat(1)), so both front ends write the
 * same images through the same code.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "compat.h"
#include "compat_mksq.h"
#include "fe.h"

static const char help_text[] =
	"Usage: squashkit mksquashfs SOURCE... DEST [OPTIONS] [-e PATH...]\n"
	"Build DEST from SOURCEs with mksquashfs's options, through squashkit mkimage.\n"
	"One directory SOURCE becomes the root; several SOURCEs, or -keep-as-directory,\n"
	"become entries of the root named after them. See squashkit-compat(1) for every\n"
	"option and what it maps to.\n\n"
	"  -e PATH...  the rest of the command line: what to exclude\n\n";

/* The native command line being built. */
struct nargv {
	char **v;
	int n, cap;
	int oom;
};

static void add(struct nargv *a, const char *s)
{
	char *d = a->oom ? NULL : strdup(s);

	if (d && a->n + 2 > a->cap) {
		int cap = a->cap ? a->cap * 2 : 64;
		char **v = realloc(a->v, (size_t)cap * sizeof(*v));

		if (!v) {
			free(d);
			d = NULL;
		} else {
			a->v = v;
			a->cap = cap;
		}
	}
	if (!d) {
		a->oom = 1;
		return;
	}
	a->v[a->n++] = d;
	a->v[a->n] = NULL;
}

static void add2(struct nargv *a, const char *opt, const char *val)
{
	add(a, opt);
	add(a, val);
}

static void addf(struct nargv *a, const char *opt, const char *fmt, unsigned long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), fmt, v);
	add2(a, opt, buf);
}

static void nargv_free(struct nargv *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* A uid or gid as the peer takes it: a number or a name. */
static int owner(const char *s, int group, char *out, size_t cap)
{
	uint64_t v;

	if (cli_compat_uint(s, 0xffffffffu, &v) == 0) {
		snprintf(out, cap, "%lu", (unsigned long)v);
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(s);

		if (g) {
			snprintf(out, cap, "%lu", (unsigned long)g->gr_gid);
			return 0;
		}
	} else {
		struct passwd *p = getpwnam(s);

		if (p) {
			snprintf(out, cap, "%lu", (unsigned long)p->pw_uid);
			return 0;
		}
	}
	return -1;
}

/* Glob characters of a literal path, escaped for the native exclude matcher. */
static void glob_escape(const char *s, char *out, size_t cap)
{
	size_t n = 0;

	for (; *s && n + 2 < cap; s++) {
		if (strchr("*?[]\\", *s))
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n] = '\0';
}

/*
 * An exclude in the peer's default style: a path, relative to each source
 * unless it is absolute or starts with ./ or ../ (then relative to the
 * working directory). It becomes an anchored literal pattern of the image
 * path for every source where it names something. As with the peer, a path
 * that cannot be looked at is a warning: one from the working directory
 * whatever the reason, one in a source unless it is simply not there.
 */
static void exclude_path(struct nargv *a, const struct mksq *m, const char *p)
{
	char host[PATH_MAX], real[PATH_MAX], rs[PATH_MAX], img[PATH_MAX], esc[2 * PATH_MAX + 2];
	int cwd = p[0] == '/' || !strncmp(p, "./", 2) || !strncmp(p, "../", 3);
	struct stat st;

	if (cwd && lstat(p, &st) != 0) {
		cli_compat_warn("%s: cannot stat the exclude (%s); ignored", p, strerror(errno));
		return;
	}
	for (int i = 0; i < m->nsrc; i++) {
		const char *rel, *base = strrchr(m->src[i], '/');
		size_t len;

		if (cwd) {
			if (!realpath(p, real) || !realpath(m->src[i], rs))
				continue;
			len = strlen(rs);
			if (strncmp(real, rs, len) != 0 || (real[len] != '/' && real[len] != '\0'))
				continue;
			rel = real[len] ? real + len + 1 : "";
		} else {
			snprintf(host, sizeof(host), "%s/%s", m->src[i], p);
			if (lstat(host, &st) != 0) {
				if (errno != ENOENT && errno != ENOTDIR)
					cli_compat_warn("%s: cannot stat the exclude (%s); ignored",
							host, strerror(errno));
				continue;
			}
			rel = p;
		}
		base = base && base[1] ? base + 1 : m->src[i];
		if (m->no_strip) {
			char kept[PATH_MAX];

			sqk_path_kept(m->src[i], kept, sizeof(kept));
			if (snprintf(img, sizeof(img), "%s%s%s", kept, *rel ? "/" : "", rel) >=
			    (int)sizeof(img))
				continue;
		} else if (m->named)
			snprintf(img, sizeof(img), "%s%s%s", base, *rel ? "/" : "", rel);
		else
			snprintf(img, sizeof(img), "%s", rel);
		if (!*img)
			continue;
		esc[0] = '/';
		glob_escape(img, esc + 1, sizeof(esc) - 1);
		add2(a, "-e", esc);
	}
}

/*
 * -wildcards and -regex (the native --wildcards and --regex, which match
 * one pattern per component as the peer does): a pattern is anchored at
 * the root, "/PAT" natively; "... PAT" matches at any depth, which a native
 * pattern without a leading slash does. A path (/, ./ or ../ in front) is
 * refused, as the peer refuses it.
 */
static int exclude_glob(struct nargv *a, const struct mksq *m, const char *p)
{
	char buf[PATH_MAX + 2];

	if (p[0] == '/' || !strncmp(p, "./", 2) || !strncmp(p, "../", 3))
		return cli_compat_fail("%s: an exclude starting with /, ./ or ../ is a path, not a "
				       "pattern: not with -wildcards or -regex",
				       p);
	if (!strncmp(p, "... ", 4)) {
		add2(a, "-e", p + 4);
		return 0;
	}
	snprintf(buf, sizeof(buf), "/%s", p);
	add2(a, "-e", buf);
	return 0;
}

static int read_excludes(struct mksq *m, const char *file)
{
	FILE *fp = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!fp)
		return cli_compat_fail("%s: %s", file, strerror(errno));
	while ((n = getline(&line, &cap, fp)) >= 0) {
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n && cli_mksq_add_exclude(m, line)) {
			free(line);
			fclose(fp);
			return cli_compat_fail("out of memory");
		}
	}
	free(line);
	fclose(fp);
	return 0;
}

static int epoch_check(const struct mksq *m)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	uint64_t v;

	if (!e)
		return 0;
	if (m->mkfs_time || m->all_time)
		return cli_compat_fail("SOURCE_DATE_EPOCH and command line options can't be used "
				       "at the same time to set timestamp(s)");
	if (cli_compat_uint(e, 0xffffffffu, &v))
		return cli_compat_fail("SOURCE_DATE_EPOCH has an invalid time value '%s'", e);
	return 0;
}

/*
 * The compressor and the layout of the image. Appending, the peer takes
 * them all from the image and ignores these options: so does this, and
 * says so when one was given.
 */
static void build_layout(struct mksq *m, struct nargv *a, int append)
{
	static const char *const raw_names[] = {"inodes", "data", "fragments", "xattrs", "ids"};
	char list[64] = "";

	if (append) {
		if (m->comp || m->level || m->ncopts || m->block || m->raw || m->no_dedup ||
		    m->no_fragments || m->tail_ends || !m->exports)
			cli_compat_warn(
				"%s: appending: the compressor, its options, the block size, "
				"-no*, -no-duplicates, -no-fragments, -always-use-fragments "
				"and -no-exports are the image's; ignored",
				m->dest);
		return;
	}
	add2(a, "-c", m->comp ? m->comp : "gzip");
	if (m->level)
		add2(a, "-L", m->level);
	for (int i = 0; i < m->ncopts; i++)
		add2(a, "-X", m->copts[i]);
	if (m->block)
		add2(a, "-b", m->block);
	if (m->no_fragments)
		add(a, "--no-fragments");
	if (m->tail_ends && !m->no_fragments)
		add(a, "--tail-ends");
	if (m->no_dedup)
		add(a, "--no-dedup");
	if (!m->exports)
		add(a, "--no-export");
	for (int i = 0; i < 5; i++)
		if (m->raw & (1u << i)) {
			strcat(list, *list ? "," : "");
			strcat(list, raw_names[i]);
		}
	if (*list)
		add2(a, "--uncompressed", list);
}

/* percent of the machine's memory, in bytes (at least the 8M a build needs). */
static uint64_t mem_share(unsigned percent)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t v = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 100 * percent : 0;

	return v < (8u << 20) ? 8u << 20 : v;
}

/* The native command line for what the peer's was parsed into. */
static int build(struct mksq *m, struct nargv *a)
{
	struct stat st;
	char buf[64];
	int exists = stat(m->dest, &st) == 0;
	int append = !m->offset && exists && !m->noappend;

	/*
	 * As the peer: a regular file or a block device (through symlinks),
	 * appended to unless -noappend, or written over; nothing else.
	 */
	if (exists && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return cli_compat_fail("%s: destination not block device or regular file", m->dest);
	if (append && m->tar)
		return cli_compat_fail(
			"appending is not supported reading tar files, use -noappend");
	add(a, "mkimage");
	build_layout(m, a, append);
	if (m->threads)
		add2(a, "-j", m->threads);
	if (m->mem)
		add2(a, "--memory", m->mem);
	else if (m->mem_percent)
		addf(a, "--memory", "%lu", (unsigned long)mem_share(m->mem_percent));
	/* The peer's summary on stdout (the native --stats) unless -quiet; -no-progress: no bar. */
	if (m->quiet || m->no_progress)
		add(a, "-q");
	if (!m->quiet)
		add(a, "--stats");
	if (m->no_pad)
		add(a, "--no-pad");
	if (m->no_sparse)
		add(a, "--no-sparse");
	if (m->no_xattrs)
		add(a, "--no-xattrs");
	if (m->no_hardlinks)
		add(a, "--no-hardlinks");
	if (m->one_fs)
		add(a, "--one-file-system");
	if (m->excl_style == EXCL_REGEX && m->nexcl)
		add(a, "--regex");
	if (m->excl_style == EXCL_WILDCARDS && m->nexcl)
		add(a, "--wildcards");
	if (m->uid && owner(m->uid, 0, buf, sizeof(buf)) == 0)
		add2(a, "--uid", buf);
	if (m->gid && owner(m->gid, 1, buf, sizeof(buf)) == 0)
		add2(a, "--gid", buf);
	for (int i = 0; i < m->nattr; i++)
		add2(a, m->attr[i].opt, m->attr[i].val);
	if (m->all_time)
		add2(a, "--mtime", m->all_time);
	if (m->mkfs_time)
		add2(a, "--fstime", m->mkfs_time);
	/* As the peer, a definition that cannot be applied is a warning. */
	if (m->npseudo)
		add(a, "--pseudo-warn");
	for (int i = 0; i < m->npseudo; i++)
		add2(a, m->pseudo[i].opt, m->pseudo[i].val);
	/* The peer's root of several sources or a tar stream: mode 0777, owned by whoever runs it.
	 */
	if (m->no_strip && !m->tar)
		add(a, "--full-paths");
	if (m->named || m->tar) {
		if (m->named)
			add(a, "--named-sources");
		if (!m->root_mode)
			add2(a, "--root-mode", "0777");
		if (!m->root_uid && !m->uid)
			addf(a, "--root-uid", "%lu", (unsigned long)getuid());
		if (!m->root_gid && !m->gid)
			addf(a, "--root-gid", "%lu", (unsigned long)getgid());
	}
	for (int i = 0; i < m->nexcl; i++) {
		if (m->excl_style == EXCL_PATH)
			exclude_path(a, m, m->excl[i]);
		else if (exclude_glob(a, m, m->excl[i]))
			return COMPAT_FATAL;
	}
	if (m->offset) {
		add2(a, "--offset", m->offset);
		add(a, "--force");
	} else if (append) {
		/* The peer appends to an existing image unless told not to. */
		add(a, "--append");
	} else if (exists) {
		add(a, "--force");
	}
	if (m->tar) {
		add(a, "--archive");
		add(a, "-");
	} else {
		for (int i = 0; i < m->nsrc; i++)
			add(a, m->src[i]);
	}
	add(a, m->dest);
	return a->oom ? cli_compat_fail("out of memory") : 0;
}

/*
 * -offset N: the peer writes the image N bytes into DEST, creating it
 * (the bytes before the image are zero) when it does not exist; the native
 * --offset keeps what the existing file holds there.
 */
static int prepare_offset(struct mksq *m)
{
	uint64_t n;
	struct stat st;
	int fd;

	if (cli_compat_size(m->offset, &n))
		return cli_compat_fail("-offset: missing or invalid offset size");
	/* A block device holds its bytes already: the image goes N bytes into it. */
	if (stat(m->dest, &st) == 0 && (S_ISBLK(st.st_mode) || (uint64_t)st.st_size >= n))
		return 0;
	fd = open(m->dest, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)n) != 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return cli_compat_fail("%s: %s", m->dest, strerror(e));
	}
	close(fd);
	return 0;
}

int cli_compat_mksquashfs_main(int argc, char **argv)
{
	struct mksq m;
	struct nargv a = {0};
	struct stat st;
	int rc, created = 0, existed;

	cli_mksq_init(&m);
	rc = cli_mksq_parse(&m, argc, argv);
	if (rc == MKSQ_HELP) {
		fputs(help_text, stdout);
		cli_compat_print_options(stdout, cli_compat_mksq_table());
		rc = COMPAT_OK;
		goto out;
	}
	if (rc == MKSQ_VERSION) {
		printf("squashkit mksquashfs (squashkit %s)\n", SQK_VERSION);
		rc = COMPAT_OK;
		goto out;
	}
	if (rc)
		goto out;
	for (int i = 0; i < m.nexcl_files; i++) {
		rc = read_excludes(&m, m.excl_files[i]);
		if (rc)
			goto out;
	}
	rc = epoch_check(&m);
	if (rc)
		goto out;
	/* -no-strip: every source at its own path, the root from "." or "/" (not 0777). */
	if (!m.tar && m.no_strip)
		m.named = 0;
	else if (!m.tar && !m.keep_as_dir && m.nsrc == 1 && stat(m.src[0], &st) == 0 &&
		 S_ISDIR(st.st_mode))
		m.named = 0;
	else
		m.named = !m.tar;
	existed = access(m.dest, F_OK) == 0;
	rc = build(&m, &a);
	if (rc)
		goto out;
	if (m.offset) {
		rc = prepare_offset(&m);
		if (rc)
			goto out;
		created = !existed;
	}
	cli_usage_hint = 0;
	optind = 0;
	rc = cli_mkimage(a.n, a.v);
	/* The peer's usage errors and failures both end with 1. */
	if (rc == EXIT_USAGE)
		rc = COMPAT_FATAL;
	if (rc && created)
		unlink(m.dest);
out:
	nargv_free(&a);
	cli_mksq_release(&m);
	return rc;
}
