// SPDX-License-Identifier: BSD-2-Clause
/*
 * mksquashfs's options: every spelling the peer accepts (4.5 to 4.7), what
 * each does here, and the parse of SOURCE... DEST [OPTIONS] [-e PATH...].
 * squashkit-compat(1) lists the same table for people.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compat.h"
#include "compat_mksq.h"
#include "fe.h"

enum {
	O_COMP = 1,
	O_B,
	O_NOAPPEND,
	O_PROCESSORS,
	O_MEM,
	O_MEM_PERCENT,
	O_QUIET,
	O_NO_PROGRESS,
	O_PROGRESS,
	O_INFO,
	O_ALL_ROOT,
	O_FORCE_UID,
	O_FORCE_GID,
	O_ROOT_MODE,
	O_ROOT_UID,
	O_ROOT_GID,
	O_FILE_MODE,
	O_DIR_MODE,
	O_NO_XATTRS,
	O_XATTRS,
	O_XATTRS_INCLUDE,
	O_XATTRS_EXCLUDE,
	O_XATTRS_ADD,
	O_NO_FRAGMENTS,
	O_TAILENDS,
	O_NO_TAILENDS,
	O_NO_DUPLICATES,
	O_NO_EXPORTS,
	O_EXPORTS,
	O_NO_SPARSE,
	O_NO_HARDLINKS,
	O_NOPAD,
	O_NOI,
	O_NOD,
	O_NOF,
	O_NOX,
	O_NOID,
	O_NO_COMPRESSION,
	O_EF,
	O_WILDCARDS,
	O_REGEX,
	O_ONE_FS,
	O_P,
	O_PF,
	O_SORT,
	O_MKFS_TIME,
	O_ALL_TIME,
	O_REPRO_TIME,
	O_REPRO,
	O_KEEP_AS_DIR,
	O_NO_STRIP,
	O_OFFSET,
	O_TAR,
	O_XLEVEL,
	O_XBCJ,
	O_XDICT,
	O_XHC,
	O_XWINDOW,
	O_XSTRATEGY,
	O_XALGORITHM,
	O_XE,
	O_XLC,
	O_XLP,
	O_XPB,
	O_HELP,
	O_VERSION,
	O_NONE, /* accepted, no effect */
};

#define MAP(names, nargs, id)                                                                      \
	{                                                                                          \
		names, nargs, COMPAT_MAPPED, id                                                    \
	}
#define NOEFFECT(names, nargs)                                                                     \
	{                                                                                          \
		names, nargs, COMPAT_NOEFFECT, O_NONE                                              \
	}
#define REFUSED(names, nargs)                                                                      \
	{                                                                                          \
		names, nargs, COMPAT_REFUSED, 0                                                    \
	}

static const struct compat_opt table[] = {
	MAP("comp", 1, O_COMP),
	MAP("b", 1, O_B),
	MAP("noappend", 0, O_NOAPPEND),
	MAP("processors", 1, O_PROCESSORS),
	MAP("mem", 1, O_MEM),
	MAP("mem-percent", 1, O_MEM_PERCENT),
	MAP("quiet", 0, O_QUIET),
	MAP("no-progress", 0, O_NO_PROGRESS),
	MAP("progress", 0, O_PROGRESS),
	MAP("info", 0, O_INFO),
	MAP("all-root|root-owned", 0, O_ALL_ROOT),
	MAP("force-uid", 1, O_FORCE_UID),
	MAP("force-gid", 1, O_FORCE_GID),
	MAP("root-mode", 1, O_ROOT_MODE),
	MAP("root-uid", 1, O_ROOT_UID),
	MAP("root-gid", 1, O_ROOT_GID),
	MAP("force-file-mode", 1, O_FILE_MODE),
	MAP("force-dir-mode", 1, O_DIR_MODE),
	MAP("no-xattrs", 0, O_NO_XATTRS),
	MAP("xattrs", 0, O_XATTRS),
	MAP("xattrs-include", 1, O_XATTRS_INCLUDE),
	MAP("xattrs-exclude", 1, O_XATTRS_EXCLUDE),
	MAP("xattrs-add", 1, O_XATTRS_ADD),
	MAP("no-fragments", 0, O_NO_FRAGMENTS),
	MAP("always-use-fragments|tailends|tail-ends", 0, O_TAILENDS),
	MAP("no-tailends|no-tail-ends", 0, O_NO_TAILENDS),
	MAP("no-duplicates", 0, O_NO_DUPLICATES),
	MAP("no-exports", 0, O_NO_EXPORTS),
	MAP("exports", 0, O_EXPORTS),
	MAP("no-sparse", 0, O_NO_SPARSE),
	MAP("no-hardlinks", 0, O_NO_HARDLINKS),
	MAP("nopad", 0, O_NOPAD),
	MAP("noI|noInodeCompression", 0, O_NOI),
	MAP("noD|noDataCompression", 0, O_NOD),
	MAP("noF|noFragmentCompression", 0, O_NOF),
	MAP("noX|noXattrCompression", 0, O_NOX),
	MAP("noId|noIdTableCompression", 0, O_NOID),
	MAP("no-compression", 0, O_NO_COMPRESSION),
	MAP("ef", 1, O_EF),
	MAP("wildcards", 0, O_WILDCARDS),
	MAP("regex", 0, O_REGEX),
	MAP("one-file-system", 0, O_ONE_FS),
	MAP("p", 1, O_P),
	MAP("pf", 1, O_PF),
	MAP("sort", 1, O_SORT),
	MAP("mkfs-time|fstime", 1, O_MKFS_TIME),
	MAP("all-time|inode-time", 1, O_ALL_TIME),
	MAP("repro-time", 1, O_REPRO_TIME),
	MAP("repro|reproducible", 0, O_REPRO),
	MAP("keep-as-directory", 0, O_KEEP_AS_DIR),
	MAP("no-strip|tarstyle", 0, O_NO_STRIP),
	MAP("offset|o", 1, O_OFFSET),
	MAP("tar", 0, O_TAR),
	MAP("Xcompression-level|Xpreset", 1, O_XLEVEL),
	MAP("Xbcj", 1, O_XBCJ),
	MAP("Xdict-size", 1, O_XDICT),
	MAP("Xhc", 0, O_XHC),
	MAP("Xwindow-size", 1, O_XWINDOW),
	MAP("Xstrategy", 1, O_XSTRATEGY),
	MAP("Xalgorithm", 1, O_XALGORITHM),
	/* OpenWrt's xz options (the peer's xz_wrapper_extended.c, a build-time choice). */
	MAP("Xe", 0, O_XE),
	MAP("Xlc", 1, O_XLC),
	MAP("Xlp", 1, O_XLP),
	MAP("Xpb", 1, O_XPB),
	MAP("help|h", 0, O_HELP),
	MAP("version", 0, O_VERSION),
	/* Queues and recovery files: squashkit's queues are bounded and its output atomic. */
	NOEFFECT("read-queue", 1),
	NOEFFECT("write-queue", 1),
	NOEFFECT("fragment-queue", 1),
	NOEFFECT("no-recovery", 0),
	NOEFFECT("recovery-path", 1),
	NOEFFECT("exit-on-error", 0),
	NOEFFECT("not-reproducible", 0),
	REFUSED("one-file-system-x", 0),
	REFUSED("cpiostyle", 0),
	REFUSED("cpiostyle0", 0),
	REFUSED("root-becomes", 1),
	REFUSED("root-time", 1),
	REFUSED("recover", 1),
	REFUSED("throttle", 1),
	REFUSED("limit", 1),
	REFUSED("action", 1),
	REFUSED("log-action", 1),
	REFUSED("true-action", 1),
	REFUSED("false-action", 1),
	REFUSED("action-file", 1),
	REFUSED("log-action-file", 1),
	REFUSED("true-action-file", 1),
	REFUSED("false-action-file", 1),
	REFUSED("pd", 1),
	REFUSED("pseudo-dir", 1),
	REFUSED("pseudo-override", 0),
	REFUSED("uid-gid-offset", 1),
	REFUSED("default-mode", 1),
	REFUSED("default-uid", 1),
	REFUSED("default-gid", 1),
	REFUSED("ignore-zeros", 0),
	REFUSED("percentage", 0),
	REFUSED("no-xattrs-default", 0),
	REFUSED("xattrs-default", 0),
	REFUSED("Xhelp", 0),
	REFUSED("help-all", 0),
	REFUSED("help-section", 1),
	REFUSED("help-option", 1),
	REFUSED("help-comp", 1),
	REFUSED("mkfs-time-now", 0),
	REFUSED("max-depth", 1),
	REFUSED("nopad-x", 0),
	{NULL, 0, 0, 0},
};

const struct compat_opt *cli_compat_mksq_table(void)
{
	return table;
}

void cli_mksq_init(struct mksq *m)
{
	memset(m, 0, sizeof(*m));
	m->exports = 1;
}

void cli_mksq_release(struct mksq *m)
{
	for (int i = 0; i < m->nowned; i++)
		free(m->owned[i]);
	free(m->owned);
	free(m->copts);
	free(m->attr);
	free(m->pseudo);
	free(m->excl);
	free(m->excl_files);
}

static int push(void *vp, int *n, size_t size, const void *item)
{
	void **v = vp;
	char *nv = realloc(*v, (size_t)(*n + 1) * size);

	if (!nv)
		return -1;
	memcpy(nv + (size_t)*n * size, item, size);
	*v = nv;
	(*n)++;
	return 0;
}

int cli_mksq_add_exclude(struct mksq *m, const char *pattern)
{
	char *d = strdup(pattern);
	const char *c = d;

	if (!d || push(&m->owned, &m->nowned, sizeof(d), &d)) {
		free(d);
		return -1;
	}
	return push(&m->excl, &m->nexcl, sizeof(c), &c);
}

static int pass(struct mksq *m, const char *opt, const char *val, int pseudo)
{
	struct mksq_pass p = {opt, val};

	if (pseudo ? push(&m->pseudo, &m->npseudo, sizeof(p), &p)
		   : push(&m->attr, &m->nattr, sizeof(p), &p))
		return cli_compat_fail("out of memory");
	return 0;
}

static int copt(struct mksq *m, const char *key, const char *val)
{
	size_t len = strlen(key) + strlen(val) + 2;
	char *s = malloc(len);
	const char *c = s;

	if (!s || push(&m->owned, &m->nowned, sizeof(s), &s)) {
		free(s);
		return cli_compat_fail("out of memory");
	}
	snprintf(s, len, "%s=%s", key, val);
	if (push(&m->copts, &m->ncopts, sizeof(c), &c))
		return cli_compat_fail("out of memory");
	return 0;
}

/* One option of the table with its value v (NULL when it takes none). */
static int take(struct mksq *m, int id, const char *v)
{
	switch (id) {
	case O_COMP:
		m->comp = v;
		break;
	case O_B:
		m->block = v;
		break;
	case O_NOAPPEND:
		m->noappend = 1;
		break;
	case O_PROCESSORS:
		m->threads = v;
		break;
	case O_MEM: {
		uint64_t size;

		if (sqk_parse_size(v, &size) != 0 || size < (8u << 20))
			return cli_compat_fail("-mem: invalid size '%s' (at least 8M)", v);
		m->mem = v;
		m->mem_percent = 0;
		break;
	}
	case O_MEM_PERCENT: {
		uint64_t pct;

		if (sqk_parse_uint(v, 100, &pct) != 0 || pct < 1)
			return cli_compat_fail("-mem-percent: '%s' is not a percentage from 1 to 100",
					       v);
		m->mem_percent = (unsigned)pct;
		m->mem = NULL;
		break;
	}
	case O_QUIET:
		m->quiet = 1;
		break;
	case O_NO_PROGRESS:
		m->no_progress = 1;
		break;
	case O_ALL_ROOT:
		m->uid = m->gid = "0";
		break;
	case O_FORCE_UID:
		m->uid = v;
		break;
	case O_FORCE_GID:
		m->gid = v;
		break;
	case O_ROOT_MODE:
		m->root_mode = 1;
		return pass(m, "--root-mode", v, 0);
	case O_ROOT_UID:
		m->root_uid = 1;
		return pass(m, "--root-uid", v, 0);
	case O_ROOT_GID:
		m->root_gid = 1;
		return pass(m, "--root-gid", v, 0);
	case O_FILE_MODE:
		return pass(m, "--file-mode", v, 0);
	case O_DIR_MODE:
		return pass(m, "--dir-mode", v, 0);
	case O_XATTRS_INCLUDE:
		return pass(m, "--xattrs-include", v, 0);
	case O_XATTRS_EXCLUDE:
		return pass(m, "--xattrs-exclude", v, 0);
	case O_XATTRS_ADD:
		return pass(m, "--xattrs-add", v, 0);
	case O_SORT:
		return pass(m, "--sort", v, 0);
	case O_NO_XATTRS:
		m->no_xattrs = 1;
		break;
	case O_XATTRS:
		m->no_xattrs = 0;
		break;
	case O_NO_FRAGMENTS:
		m->no_fragments = 1;
		break;
	case O_TAILENDS:
		m->tail_ends = 1;
		break;
	case O_NO_TAILENDS:
		m->tail_ends = 0;
		break;
	case O_NO_DUPLICATES:
		m->no_dedup = 1;
		break;
	case O_NO_EXPORTS:
		m->exports = 0;
		break;
	case O_EXPORTS:
		m->exports = 1;
		break;
	case O_NO_SPARSE:
		m->no_sparse = 1;
		break;
	case O_NO_HARDLINKS:
		m->no_hardlinks = 1;
		break;
	case O_NOI:
		m->raw |= 1;
		break;
	case O_NOD:
		m->raw |= 2;
		break;
	case O_NOF:
		m->raw |= 4;
		break;
	case O_NOX:
		m->raw |= 8;
		break;
	case O_NOID:
		m->raw |= 16;
		break;
	case O_NO_COMPRESSION:
		m->raw |= 15;
		break;
	case O_EF:
		if (push(&m->excl_files, &m->nexcl_files, sizeof(v), &v))
			return cli_compat_fail("out of memory");
		break;
	case O_WILDCARDS:
		m->excl_style = EXCL_WILDCARDS;
		break;
	case O_REGEX:
		m->excl_style = EXCL_REGEX;
		break;
	case O_NOPAD:
		m->no_pad = 1;
		break;
	case O_ONE_FS:
		m->one_fs = 1;
		break;
	case O_P:
		return pass(m, "--pseudo", v, 1);
	case O_PF:
		return pass(m, "--pseudo-file", v, 1);
	case O_MKFS_TIME:
		m->mkfs_time = v;
		break;
	case O_ALL_TIME:
		m->all_time = v;
		break;
	case O_REPRO_TIME:
		m->mkfs_time = m->all_time = v;
		break;
	case O_KEEP_AS_DIR:
		m->keep_as_dir = 1;
		break;
	case O_NO_STRIP:
		m->no_strip = 1;
		break;
	case O_OFFSET:
		m->offset = v;
		break;
	case O_TAR:
		/* As the peer: a tar stream gets tail ends in fragments and no export table. */
		m->tar = 1;
		m->tail_ends = 1;
		m->exports = 0;
		break;
	case O_XLEVEL:
		m->level = v;
		break;
	case O_XHC:
		m->level = "12";
		break;
	case O_XBCJ:
		return copt(m, "bcj", v);
	case O_XDICT:
		return copt(m, "dict-size", v);
	case O_XWINDOW:
		return copt(m, "window", v);
	case O_XSTRATEGY:
		return copt(m, "strategy", v);
	case O_XALGORITHM:
		return copt(m, "algorithm", v);
	case O_XE:
		return copt(m, "extreme", "1");
	case O_XLC:
		return copt(m, "lc", v);
	case O_XLP:
		return copt(m, "lp", v);
	case O_XPB:
		return copt(m, "pb", v);
	case O_HELP:
		return MKSQ_HELP;
	case O_VERSION:
		return MKSQ_VERSION;
	default: /* O_PROGRESS (the bar is drawn on a terminal anyway), O_INFO (the summary is
		  printed anyway), O_REPRO, no-effect */
		break;
	}
	return 0;
}

int cli_mksq_parse(struct mksq *m, int argc, char **argv)
{
	int i, rc;

	/* The operands come first: everything up to the first option ("-" is an operand). */
	for (i = 1; i < argc && (argv[i][0] != '-' || !strcmp(argv[i], "-")); i++)
		;
	if (i < argc && (!strcmp(argv[i], "-help") || !strcmp(argv[i], "-h")))
		return MKSQ_HELP;
	if (i < argc && !strcmp(argv[i], "-version"))
		return MKSQ_VERSION;
	if (i < 3)
		return cli_compat_fail("SOURCE... DEST needed (squashkit mksquashfs -help)");
	m->src = argv + 1;
	m->nsrc = i - 2;
	m->dest = argv[i - 1];
	for (; i < argc; i++) {
		const struct compat_opt *o;
		const char *v = NULL;

		if (!strcmp(argv[i], "-e")) {
			/* Everything after -e is an exclude. */
			for (i++; i < argc; i++)
				if (cli_mksq_add_exclude(m, argv[i]))
					return cli_compat_fail("out of memory");
			break;
		}
		o = cli_compat_find(table, argv[i]);
		if (!o)
			return cli_compat_fail("unknown option '%s'", argv[i]);
		if (o->kind == COMPAT_REFUSED)
			return cli_compat_unsupported(argv[i]);
		if (o->nargs && !(v = cli_compat_value(argc, argv, &i)))
			return COMPAT_FATAL;
		rc = take(m, o->id, v);
		if (rc)
			return rc;
	}
	return 0;
}
