// SPDX-License-Identifier: BSD-2-Clause
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

/*
 * pat compiled in style and matched against path: from its first name
 * (sqk_pattern_match) or, with end, at its end (sqk_pattern_match_end);
 * -1 if it does not compile.
 */
static int match(const char *pat, enum sqk_pattern_style style, const char *path, int end)
{
	struct sqk_pattern p;
	char msg[100];
	int m;

	if (sqk_pattern_compile(&p, pat, style, msg, sizeof(msg)) != 0)
		return -1;
	m = end ? sqk_pattern_match_end(&p, path) : (int)sqk_pattern_match(&p, path);
	sqk_pattern_free(&p);
	return m;
}

/*
 * pattern, style, path, where (0 from the first name, 1 at the end), the
 * answer, and what it shows.
 */
static const struct {
	const char *pat;
	enum sqk_pattern_style style;
	const char *path;
	int end, want;
	const char *what;
} cases[] = {
	{"a/b", SQK_PATTERN_LITERAL, "a/b", 0, SQK_PATTERN_WHOLE, "literal: whole"},
	{"a/b", SQK_PATTERN_LITERAL, "a", 0, SQK_PATTERN_LEADS, "literal: a directory on the way"},
	{"a/b", SQK_PATTERN_LITERAL, "a/b/c", 0, SQK_PATTERN_BELOW, "literal: below a match"},
	{"a/b", SQK_PATTERN_LITERAL, "a/c", 0, SQK_PATTERN_NO, "literal: no"},
	{"a/b", SQK_PATTERN_LITERAL, "", 0, SQK_PATTERN_LEADS, "the root leads to every pattern"},
	{"/", SQK_PATTERN_LITERAL, "", 0, SQK_PATTERN_WHOLE,
	 "a pattern of no component is the root"},
	{"a*", SQK_PATTERN_LITERAL, "abc", 0, SQK_PATTERN_NO, "literal: a '*' is itself"},
	{"a*", SQK_PATTERN_LITERAL, "a*", 0, SQK_PATTERN_WHOLE, "literal: and matches itself"},
	{"*/*.c", SQK_PATTERN_WILDCARDS, "src/main.c", 0, SQK_PATTERN_WHOLE,
	 "wildcards: one '*' a name"},
	{"*.c", SQK_PATTERN_WILDCARDS, "src/main.c", 0, SQK_PATTERN_NO,
	 "wildcards: a '*' stays in its name"},
	{"*", SQK_PATTERN_WILDCARDS, ".hidden", 0, SQK_PATTERN_NO,
	 "wildcards: a '*' never matches a leading '.'"},
	{".*", SQK_PATTERN_WILDCARDS, ".hidden", 0, SQK_PATTERN_WHOLE,
	 "wildcards: an explicit '.' does"},
	{"@(x|y)z", SQK_PATTERN_WILDCARDS, "yz", 0, SQK_PATTERN_WHOLE, "wildcards: ksh's @(a|b)"},
	{"!(*.o)", SQK_PATTERN_WILDCARDS, "a.o", 0, SQK_PATTERN_NO,
	 "wildcards: ksh's !(..) refuses"},
	{"!(*.o)", SQK_PATTERN_WILDCARDS, "a.c", 0, SQK_PATTERN_WHOLE, "wildcards: and accepts"},
	{"a?c", SQK_PATTERN_WILDCARDS, "a/c", 0, SQK_PATTERN_NO,
	 "wildcards: '?' is one character of one name"},
	{"b", SQK_PATTERN_REGEX, "abc", 0, SQK_PATTERN_WHOLE,
	 "regex: matches anywhere in the name"},
	{"^b", SQK_PATTERN_REGEX, "abc", 0, SQK_PATTERN_NO, "regex: ^ anchors"},
	{"c$", SQK_PATTERN_REGEX, "abc", 0, SQK_PATTERN_WHOLE, "regex: $ anchors"},
	{"a+|z", SQK_PATTERN_REGEX, "zzz/q", 0, SQK_PATTERN_BELOW,
	 "regex: extended syntax, per name"},
	{"*.o", SQK_PATTERN_WILDCARDS, "deep/down/x.o", 1, 1,
	 "end: an unanchored pattern applies at any depth"},
	{"down/*.o", SQK_PATTERN_WILDCARDS, "deep/down/x.o", 1, 1,
	 "end: its components are the last names"},
	{"deep/*.o", SQK_PATTERN_WILDCARDS, "deep/down/x.o", 1, 0, "end: not names further up"},
	{"/*.o", SQK_PATTERN_WILDCARDS, "deep/x.o", 1, 0,
	 "end: an anchored pattern names the whole path"},
	{"/deep/x\\.o$", SQK_PATTERN_REGEX, "deep/x.o", 1, 1, "end: anchored, regex, whole path"},
	{"a/b/c", SQK_PATTERN_LITERAL, "b/c", 1, 0, "end: a path shorter than the pattern"},
};

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

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(match(cases[i].pat, cases[i].style, cases[i].path, cases[i].end),
		       cases[i].want, "%s", cases[i].what);
	return tap_done();
}
