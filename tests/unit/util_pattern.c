// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The path-pattern engine (util/pattern.c) in its three styles, from the
 * first name (unsquashfs's extract names) and at the end of a path
 * (mksquashfs's excludes). Every expectation is worked out from the rules
 * in pattern.h, not taken from the program.
 */
#include <string.h>

#include "tap.h"
#include "util/error.h"
#include "util/pattern.h"

/* How pat, compiled in style, meets path from its first name; -1 if it does not compile. */
static int from_start(const char *pat, enum sqk_pattern_style style, const char *path)
{
	struct sqk_pattern p;
	char msg[100];
	int m;

	if (sqk_pattern_compile(&p, pat, style, msg, sizeof(msg)) != 0)
		return -1;
	m = sqk_pattern_match(&p, path);
	sqk_pattern_free(&p);
	return m;
}

static int at_end(const char *pat, enum sqk_pattern_style style, const char *path)
{
	struct sqk_pattern p;
	char msg[100];
	int m;

	if (sqk_pattern_compile(&p, pat, style, msg, sizeof(msg)) != 0)
		return -1;
	m = sqk_pattern_match_end(&p, path);
	sqk_pattern_free(&p);
	return m;
}

int main(void)
{
	struct sqk_pattern p;
	char msg[100];

	/* Splitting: empty components go, a leading '/' anchors. */
	is_int(sqk_pattern_compile(&p, "//a///b/", SQK_PATTERN_LITERAL, msg, sizeof(msg)), 0,
	       "a pattern with empty components compiles");
	is_int((int)p.n, 2, "empty components are skipped");
	ok(p.anchored && strcmp(p.comp[0], "a") == 0 && strcmp(p.comp[1], "b") == 0,
	   "a leading '/' anchors; the components are a and b");
	sqk_pattern_free(&p);
	is_int(sqk_pattern_compile(&p, "/", SQK_PATTERN_WILDCARDS, msg, sizeof(msg)), 0,
	       "a pattern of no component compiles");
	is_int((int)p.n, 0, "and has none");
	sqk_pattern_free(&p);
	is_int(sqk_pattern_compile(&p, "a/(b", SQK_PATTERN_REGEX, msg, sizeof(msg)), SQK_ERR_ARG,
	       "a regular expression that does not compile is refused");
	ok(msg[0] != '\0', "with the reason");

	/* From the first name: the four answers. */
	is_int(from_start("a/b", SQK_PATTERN_LITERAL, "a/b"), SQK_PATTERN_WHOLE, "literal: whole");
	is_int(from_start("a/b", SQK_PATTERN_LITERAL, "a"), SQK_PATTERN_LEADS,
	       "literal: a directory on the way");
	is_int(from_start("a/b", SQK_PATTERN_LITERAL, "a/b/c"), SQK_PATTERN_BELOW,
	       "literal: below a match");
	is_int(from_start("a/b", SQK_PATTERN_LITERAL, "a/c"), SQK_PATTERN_NO, "literal: no");
	is_int(from_start("a/b", SQK_PATTERN_LITERAL, ""), SQK_PATTERN_LEADS,
	       "the root leads to every pattern");
	is_int(from_start("/", SQK_PATTERN_LITERAL, ""), SQK_PATTERN_WHOLE,
	       "a pattern of no component is the root");
	is_int(from_start("a*", SQK_PATTERN_LITERAL, "abc"), SQK_PATTERN_NO,
	       "literal: a '*' is itself");
	is_int(from_start("a*", SQK_PATTERN_LITERAL, "a*"), SQK_PATTERN_WHOLE,
	       "literal: and matches itself");

	/* Wildcards: fnmatch with FNM_PATHNAME, FNM_PERIOD and FNM_EXTMATCH. */
	is_int(from_start("*/*.c", SQK_PATTERN_WILDCARDS, "src/main.c"), SQK_PATTERN_WHOLE,
	       "wildcards: one '*' a name");
	is_int(from_start("*.c", SQK_PATTERN_WILDCARDS, "src/main.c"), SQK_PATTERN_NO,
	       "wildcards: a '*' stays in its name");
	is_int(from_start("*", SQK_PATTERN_WILDCARDS, ".hidden"), SQK_PATTERN_NO,
	       "wildcards: a '*' never matches a leading '.'");
	is_int(from_start(".*", SQK_PATTERN_WILDCARDS, ".hidden"), SQK_PATTERN_WHOLE,
	       "wildcards: an explicit '.' does");
	is_int(from_start("@(x|y)z", SQK_PATTERN_WILDCARDS, "yz"), SQK_PATTERN_WHOLE,
	       "wildcards: ksh's @(a|b)");
	is_int(from_start("!(*.o)", SQK_PATTERN_WILDCARDS, "a.o"), SQK_PATTERN_NO,
	       "wildcards: ksh's !(..) refuses");
	is_int(from_start("!(*.o)", SQK_PATTERN_WILDCARDS, "a.c"), SQK_PATTERN_WHOLE,
	       "wildcards: and accepts");
	is_int(from_start("a?c", SQK_PATTERN_WILDCARDS, "a/c"), SQK_PATTERN_NO,
	       "wildcards: '?' is one character of one name");

	/* Regex: anywhere in the name unless anchored. */
	is_int(from_start("b", SQK_PATTERN_REGEX, "abc"), SQK_PATTERN_WHOLE,
	       "regex: matches anywhere in the name");
	is_int(from_start("^b", SQK_PATTERN_REGEX, "abc"), SQK_PATTERN_NO, "regex: ^ anchors");
	is_int(from_start("c$", SQK_PATTERN_REGEX, "abc"), SQK_PATTERN_WHOLE, "regex: $ anchors");
	is_int(from_start("a+|z", SQK_PATTERN_REGEX, "zzz/q"), SQK_PATTERN_BELOW,
	       "regex: extended syntax, per name");

	/* At the end of a path: mksquashfs's excludes. */
	ok(at_end("*.o", SQK_PATTERN_WILDCARDS, "deep/down/x.o") == 1,
	   "end: an unanchored pattern applies at any depth");
	ok(at_end("down/*.o", SQK_PATTERN_WILDCARDS, "deep/down/x.o") == 1,
	   "end: its components are the last names");
	ok(at_end("deep/*.o", SQK_PATTERN_WILDCARDS, "deep/down/x.o") == 0,
	   "end: not names further up");
	ok(at_end("/*.o", SQK_PATTERN_WILDCARDS, "deep/x.o") == 0,
	   "end: an anchored pattern names the whole path");
	ok(at_end("/deep/x\\.o$", SQK_PATTERN_REGEX, "deep/x.o") == 1,
	   "end: anchored, regex, whole path");
	ok(at_end("a/b/c", SQK_PATTERN_LITERAL, "b/c") == 0,
	   "end: a path shorter than the pattern");
	return tap_done();
}
