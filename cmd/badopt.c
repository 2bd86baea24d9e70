// SPDX-License-Identifier: BSD-2-Clause
/*
 * The native commands' option parsing: getopt_long, and one wording for
 * every option it refuses, naming the option as it was typed. A word with
 * one dash that spells a long option (-all-root, -dest: how mksquashfs and
 * unsquashfs spell theirs) is refused before getopt could take it for a
 * cluster of short options (-d est), with the native spelling and the
 * front end that takes the peer's.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "compat.h"

/* A word of short options ("-qz"), not "-" or a long option. */
static int short_word(const char *w)
{
	return w && w[0] == '-' && w[1] && w[1] != '-';
}

/* The long option named by name[0..len), exactly or as getopt takes a unique start. */
static const struct option *long_named(const struct option *opts, const char *name, size_t len,
				       int exact)
{
	const struct option *o, *found = NULL;
	int n = 0;

	for (o = opts; o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(o->name) == len)
			return o;
		found = o;
		n++;
	}
	return !exact && n == 1 ? found : NULL;
}

/* 0: the short option ch takes no value, 1: it needs one, 2: it may have one glued. */
static int short_value(const char *shortopts, int ch)
{
	const char *p = ch != ':' ? strchr(shortopts, ch) : NULL;

	if (!p || p[1] != ':')
		return 0;
	return p[2] == ':' ? 2 : 1;
}

/* -all-root: a long option of this command, or of its peer's front end, with one dash. */
static int single_dash(const char *word, const struct option *opts)
{
	size_t len = strcspn(word + 1, "=");
	const struct option *here = long_named(opts, word + 1, len, 1);
	const char *peer = cli_compat_peer_spells(cli_cmd_name, word);

	if (here && peer)
		return cli_usage_error("unknown option '%.*s' (squashkit %s spells it '--%s'; "
				       "squashkit %s takes %s's spelling)",
				       (int)(len + 1), word, cli_cmd_name, here->name, peer, peer);
	if (here)
		return cli_usage_error("unknown option '%.*s' (did you mean '--%s'?)",
				       (int)(len + 1), word, here->name);
	if (peer)
		return cli_usage_error("unknown option '%.*s' (%s's spelling: squashkit %s takes "
				       "%s's command line)",
				       (int)(len + 1), word, peer, peer, peer);
	return 0;
}

/*
 * Look through the words as getopt will, values skipped, for a word with
 * one dash that spells a long option. EXIT_USAGE after saying so, or 0.
 */
static int check_single_dash(int argc, char **argv, const char *shortopts,
			     const struct option *opts)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (strcmp(w, "--") == 0)
			break;
		if (strncmp(w, "--", 2) == 0) {
			size_t len = strcspn(w + 2, "=");
			const struct option *o = long_named(opts, w + 2, len, 0);

			if (o && o->has_arg == required_argument && !w[2 + len])
				i++;
			continue;
		}
		if (!short_word(w))
			continue;
		if (w[2] && single_dash(w, opts))
			return EXIT_USAGE;
		for (int k = 1; w[k]; k++) {
			int v = short_value(shortopts, w[k]);

			if (v == 1 && !w[k + 1])
				i++;
			if (v)
				break;
		}
	}
	return 0;
}

/*
 * The word getopt was reading when it failed. It moves optind past a word
 * once it is done with it, so a short option that failed in the middle of
 * a word leaves optind at that word, one that failed at its end after it.
 */
static const char *typed_word(int c, int argc, char **argv)
{
	const char *cur = optind < argc ? argv[optind] : NULL;

	if (c == '?' && optopt > 0 && optopt < 128 && short_word(cur) && strchr(cur + 1, optopt))
		return cur;
	return optind > 0 && optind <= argc ? argv[optind - 1] : "";
}

/* "--no": every long option it could be the start of, or the one it names. */
static int bad_long(const char *word, const struct option *opts)
{
	const char *name = word + 2;
	size_t len = strcspn(name, "="), n = 0;
	const struct option *o = long_named(opts, name, len, 1);
	char list[512] = "";

	if (o && name[len] == '=' && o->has_arg == no_argument)
		return cli_usage_error("option '--%.*s' takes no value", (int)len, name);
	for (o = opts; o->name && len; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(list) + strlen(o->name) + 5 < sizeof(list))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s--%s",
				 n ? ", " : "", o->name);
		n++;
	}
	if (n > 1)
		return cli_usage_error("ambiguous option '%.*s' (%s)", (int)(len + 2), word, list);
	return cli_usage_error("unknown option '%.*s'", (int)(len + 2), word);
}

static void bad_option(int c, int argc, char **argv, const struct option *opts)
{
	const char *word = typed_word(c, argc, argv);

	if (c == ':') {
		if (strncmp(word, "--", 2) == 0)
			cli_usage_error("option '%.*s' needs a value", (int)strcspn(word, "="),
					word);
		else
			cli_usage_error("option '-%c' needs a value", optopt);
	} else if (strncmp(word, "--", 2) == 0) {
		bad_long(word, opts);
	} else if (!short_word(word) || optopt <= 0 || optopt >= 128 || !isprint(optopt)) {
		cli_usage_error("unknown option '%s'", word);
	} else if (!word[2] || word[1] == optopt) {
		cli_usage_error("unknown option '%s'", word);
	} else {
		cli_usage_error("unknown option '-%c' in '%s'", optopt, word);
	}
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts)
{
	char quiet[64];
	int c;

	/* At the first word: one look at them all. */
	if (optind <= 1 && check_single_dash(argc, argv, shortopts, opts))
		return '?';
	snprintf(quiet, sizeof(quiet), ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, quiet, opts, NULL);
	if (c == '?' || c == ':') {
		bad_option(c, argc, argv, opts);
		return '?';
	}
	return c;
}

int cli_refused(const char *name)
{
	const char *msg = sqk_error_message(), *at = msg;
	size_t n = strlen(name);

	/* The library names an option as its setter does: the first mention, as a word. */
	while ((at = strstr(at, name)) != NULL) {
		if ((at == msg || at[-1] == ' ') && !isalnum((unsigned char)at[n]) && at[n] != '-')
			return cli_usage_error("%.*s--%s", (int)(at - msg), msg, at);
		at += n;
	}
	return cli_usage_error("%s", msg);
}
