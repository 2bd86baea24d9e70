/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_COMPAT_H
#define SQK_COMPAT_H

/*
 * The compatibility front ends (squashkit mksquashfs, squashkit unsquashfs)
 * take the peer tools' option syntax: single-dash long options, each with
 * the exact spellings the peer accepts (no prefix matching, as the peer has
 * none), and options after the operands where the peer allows them. They map
 * every option onto the native commands' machinery. The helpers here are the
 * syntax both share; the mapping lives in compat_<peer>.c.
 */
#include <stdint.h>
#include <stdio.h>

int cli_compat_mksquashfs_main(int argc, char **argv);
int cli_compat_unsquashfs_main(int argc, char **argv);

/* Exit codes of the peers: 0 ok, 1 fatal or usage error, 2 non-fatal errors. */
enum { COMPAT_OK = 0, COMPAT_FATAL = 1, COMPAT_NONFATAL = 2 };

/* What a peer option does here. */
enum compat_kind {
	COMPAT_MAPPED,	 /* mapped onto native machinery */
	COMPAT_NOEFFECT, /* accepted: tunes only the peer's memory or queues */
	COMPAT_REFUSED,	 /* known to the peer, not supported here: exit 1 */
};

struct compat_opt {
	/* Every spelling without its dash, '|'-separated: "dest|d". */
	const char *names;
	/* How many values follow the option (0 or 1). */
	int nargs;
	enum compat_kind kind;
	/* The front end's own code for the option. */
	int id;
};

/*
 * The entry of table (ended by names == NULL) that arg ("-dest") spells,
 * or NULL when arg is no option of the table.
 */
const struct compat_opt *cli_compat_find(const struct compat_opt *table, const char *arg);

/*
 * The option's value: argv[*i + 1], and *i moves past it. NULL, after the
 * error line, when it is missing.
 */
const char *cli_compat_value(int argc, char **argv, int *i);

/*
 * Every option of table that is taken, one line each: its spellings and
 * VALUE when it takes one ("  -dest, -d VALUE"); mapped ones first, then
 * those accepted with no effect. The -help text, and what the shell
 * completions offer: they read it, so they name what the table parses.
 */
void cli_compat_print_options(FILE *out, const struct compat_opt *table);
/* The option tables of the front ends (compat_mksq_opts.c, compat_unsquashfs.c). */
const struct compat_opt *cli_compat_mksq_table(void);
const struct compat_opt *cli_compat_unsq_table(void);
/*
 * The peer ("mksquashfs", "unsquashfs") of the native command cmd whose
 * front end takes arg ("-all-root") as an option, or NULL.
 */
const char *cli_compat_peer_spells(const char *cmd, const char *arg);

/* "squashkit CMD: -X is not supported" on stderr; returns COMPAT_FATAL. */
int cli_compat_unsupported(const char *arg);
/* "squashkit CMD: what went wrong" on stderr; returns COMPAT_FATAL. */
int cli_compat_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "squashkit CMD: warning: what" on stderr, where the peer warns and goes on. */
void cli_compat_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A decimal count, as the peer reads them: digits only. 0 or -1. */
int cli_compat_uint(const char *s, uint64_t max, uint64_t *out);
/* A byte count with an optional K, M or G suffix (also k, m, g). 0 or -1. */
int cli_compat_size(const char *s, uint64_t *out);

#endif
