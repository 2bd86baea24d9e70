/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_PATTERN_H
#define SQK_PATTERN_H

/*
 * Path patterns as mksquashfs and unsquashfs take them: a list of
 * patterns separated by '/', one per path component (empty ones, from a
 * leading '/' or "//", are skipped). Each component is matched against
 * one name of a path, in one of three styles:
 *   literal    the name itself (unsquashfs -no-wildcards);
 *   wildcards  a shell glob with fnmatch's FNM_PATHNAME, FNM_PERIOD and
 *              FNM_EXTMATCH: a wildcard never matches '/' or a name's
 *              leading '.', and ksh's @(a|b), *(..), +(..), ?(..), !(..)
 *              work (mksquashfs -wildcards, unsquashfs by default);
 *   regex      a POSIX extended regular expression that matches a name
 *              when it matches anywhere in it, ^ and $ anchoring (-regex).
 * Paths are relative, names separated by single '/'s ("" is the root).
 */
#include <stddef.h>

enum sqk_pattern_style {
	SQK_PATTERN_LITERAL,
	SQK_PATTERN_WILDCARDS,
	SQK_PATTERN_REGEX,
};

struct sqk_pattern {
	enum sqk_pattern_style style;
	int anchored; /* written with a leading '/' */
	size_t n;     /* components */
	char **comp;
	void *re; /* regex: n compiled regex_t */
};

/*
 * Compile pat. 0; SQK_ERR_ARG for a regular expression that does not
 * compile (msg, of cap bytes, says why); SQK_ERR_NOMEM. A pattern of no
 * component compiles (n is 0); what that means is the caller's.
 */
int sqk_pattern_compile(struct sqk_pattern *p, const char *pat, enum sqk_pattern_style style,
			char *msg, size_t cap);
void sqk_pattern_free(struct sqk_pattern *p);

/* How path's names, from its first, meet the pattern's components. */
enum sqk_pattern_match {
	SQK_PATTERN_NO,	   /* a name fails its component */
	SQK_PATTERN_LEADS, /* path is shorter, and each of its names matches so far */
	SQK_PATTERN_WHOLE, /* as many names as components, each matching */
	SQK_PATTERN_BELOW, /* path is longer: its first names match every component */
};

enum sqk_pattern_match sqk_pattern_match(const struct sqk_pattern *p, const char *path);

/*
 * mksquashfs's exclude: does path end in names that match the components,
 * all of them when the pattern is anchored (so it names the whole path)?
 */
int sqk_pattern_match_end(const struct sqk_pattern *p, const char *path);

/*
 * Read a file of patterns (--exclude-from), one a line: blank lines and
 * lines starting with '#' are skipped, line ends (LF or CRLF) dropped.
 * Each pattern goes to add; its non-zero return ends the reading and is
 * returned. SQK_ERR_IO (errno kept) when the file cannot be read.
 */
int sqk_pattern_file_read(const char *file, int (*add)(void *ctx, const char *pattern), void *ctx);

#endif
