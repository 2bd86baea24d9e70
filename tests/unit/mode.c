// SPDX-License-Identifier: BSD-2-Clause
/*
 * The mode parser: octal and symbolic modes as chmod(1) documents them,
 * applied to files and directories, and the strings chmod refuses.
 */
#include "tap.h"
#include "util/error.h"
#include "util/mode.h"

struct apply_case {
	const char *mode;
	unsigned in;
	int dir;
	unsigned want;
};

/* Worked by hand from chmod(1): clauses apply in turn to the mode so far. */
static const struct apply_case cases[] = {
	{"0755", 0644, 0, 0755},
	{"755", 04777, 0, 0755},
	{"00000644", 0777, 1, 0644},
	{"0", 0777, 0, 0},
	{"07777", 0, 0, 07777},
	{"2755", 0700, 1, 02755},
	{"u+x", 0644, 0, 0744},
	{"go-w", 0666, 0, 0644},
	{"a=r", 0755, 0, 0444},
	{"=", 04755, 0, 0},
	{"u=rw,go=", 0777, 0, 0600},
	{"u+rwX,go-w", 0664, 0, 0644},
	{"u+rwX,go-w", 0674, 0, 0754},
	{"a+X", 0644, 0, 0644},
	{"a+X", 0644, 1, 0755},
	{"a+X", 0604, 0, 0604},
	{"a+X", 0614, 0, 0715},
	/* X looks at the mode the clauses before it left. */
	{"a-x,u+X", 0755, 0, 0644},
	{"u+x,g+X", 0644, 0, 0754},
	{"+X", 0600, 1, 0711},
	{"g=u", 0644, 0, 0664},
	{"u=rw,g=u", 0754, 0, 0664},
	{"o=g-w", 0640, 0, 0644},
	{"u=rwx,g=u-x", 0644, 0, 0764},
	{"g+u", 0640, 0, 0660},
	{"u=g=o", 0641, 0, 0141},
	{"+s", 0755, 0, 06755},
	{"u+s", 0755, 0, 04755},
	{"g+s", 0755, 1, 02755},
	{"o+s", 0755, 0, 0755},
	{"u+t", 0755, 1, 0755},
	{"o+t", 0777, 1, 01777},
	{"+t", 0777, 1, 01777},
	{"a-s", 06755, 0, 0755},
	{"u-s", 06755, 0, 02755},
	{"u+rw-w+x", 0644, 0, 0544},
	{"=rwx", 0, 0, 0777},
	{"-w", 0666, 0, 0444},
	{"+", 0644, 0, 0644},
	{"a=rwx,o-rwx", 0, 0, 0770},
	{"ugo+r", 0, 0, 0444},
	{"uu+r", 0, 0, 0400},
	{"ug=rw,o=r", 07777, 0, 0664},
	/* Unlike GNU chmod, a directory keeps no setuid or setgid bit a mode clears. */
	{"ug=rw,o=r", 07777, 1, 0664},
	{"0755", 06755, 1, 0755},
	{"a=", 07777, 1, 0},
	{"u=", 04755, 0, 055},
};

static const char *const bad[] = {
	"",	",",	    "u",       "ug", "u=rg",  "u=gr",	"u+Z",	 "a=r,",
	",a=r", "u+r,,g+w", "755,u+x", "8",  "0758",  "017777", "10000", " 644",
	"644 ", "u r",	    "x",       "r",  "-0644", "u+r w",	"=a",	 "u=g+s,?",
};

int main(void)
{
	struct sqk_mode m;
	size_t i;
	char many[4 * (SQK_MODE_MAX_OPS + 1) + 1];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct apply_case *c = &cases[i];
		int err = sqk_mode_parse(c->mode, &m);

		if (!ok(err == 0, "'%s' parses", c->mode))
			continue;
		is_int(sqk_mode_apply(&m, (uint16_t)c->in, c->dir), c->want,
		       "'%s' on %s %04o gives %04o", c->mode, c->dir ? "directory" : "file", c->in,
		       c->want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(sqk_mode_parse(bad[i], &m), SQK_ERR_ARG, "'%s' is refused", bad[i]);
	is_int(sqk_mode_parse(NULL, &m), SQK_ERR_ARG, "NULL is refused");

	/* As many clauses as fit, then one more. */
	many[0] = '\0';
	for (i = 0; i < SQK_MODE_MAX_OPS; i++)
		strcat(many, i ? ",u+r" : "u+r");
	is_int(sqk_mode_parse(many, &m), 0, "%d clauses parse", SQK_MODE_MAX_OPS);
	strcat(many, ",g+r");
	is_int(sqk_mode_parse(many, &m), SQK_ERR_ARG, "one clause more is refused");

	/* The parser keeps nothing of a refused mode that apply could use. */
	sqk_mode_parse("u+x", &m);
	is_int(sqk_mode_parse("u+x,?", &m), SQK_ERR_ARG, "a bad second clause is refused");
	return tap_done();
}
