// SPDX-License-Identifier: BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "compat.h"

static int spelled(const char *names, const char *word)
{
	size_t n = strlen(word);

	while (*names) {
		size_t len = strcspn(names, "|");

		if (len == n && memcmp(names, word, n) == 0)
			return 1;
		names += len;
		if (*names == '|')
			names++;
	}
	return 0;
}

const struct compat_opt *cli_compat_find(const struct compat_opt *table, const char *arg)
{
	const struct compat_opt *o;

	if (arg[0] != '-' || arg[1] == '\0')
		return NULL;
	for (o = table; o->names; o++)
		if (spelled(o->names, arg + 1))
			return o;
	return NULL;
}

void cli_compat_print_options(FILE *out, const struct compat_opt *table)
{
	static const char *const heading[] = {
		"Options (what each one maps to: squashkit-compat(1)):\n",
		"Accepted, with no effect (they tune the peer's memory and queues):\n",
	};
	static const enum compat_kind kinds[] = {COMPAT_MAPPED, COMPAT_NOEFFECT};

	for (int k = 0; k < 2; k++) {
		fputs(heading[k], out);
		for (const struct compat_opt *o = table; o->names; o++) {
			const char *p = o->names;

			if (o->kind != kinds[k])
				continue;
			fputs(" ", out);
			while (*p) {
				size_t len = strcspn(p, "|");

				fprintf(out, " -%.*s%s", (int)len, p, p[len] ? "," : "");
				p += len + (p[len] == '|');
			}
			fputs(o->nargs ? " VALUE\n" : "\n", out);
		}
	}
}

const char *cli_compat_peer_spells(const char *cmd, const char *arg)
{
	static const struct {
		const char *cmd, *peer;
		const struct compat_opt *(*table)(void);
	} peers[] = {
		{"mkimage", "mksquashfs", cli_compat_mksq_table},
		{"unimage", "unsquashfs", cli_compat_unsq_table},
		{"ls", "unsquashfs", cli_compat_unsq_table},
		{"cat", "unsquashfs", cli_compat_unsq_table},
		{"stat", "unsquashfs", cli_compat_unsq_table},
	};

	for (size_t i = 0; i < sizeof(peers) / sizeof(peers[0]); i++) {
		const struct compat_opt *o;

		if (strcmp(cmd, peers[i].cmd) != 0)
			continue;
		o = cli_compat_find(peers[i].table(), arg);
		return o && o->kind != COMPAT_REFUSED ? peers[i].peer : NULL;
	}
	return NULL;
}

const char *cli_compat_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		cli_compat_fail("%s: missing or invalid argument", argv[*i]);
		return NULL;
	}
	(*i)++;
	return argv[*i];
}

static void vsay(const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "squashkit %s: %s", cli_cmd_name, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_compat_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	return COMPAT_FATAL;
}

void cli_compat_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

int cli_compat_unsupported(const char *arg)
{
	return cli_compat_fail("%s is not supported", arg);
}

int cli_compat_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int cli_compat_size(const char *s, uint64_t *out)
{
	size_t len = strlen(s);
	unsigned shift = 0;
	char digits[32];
	uint64_t v;

	if (len == 0 || len >= sizeof(digits))
		return -1;
	switch (s[len - 1]) {
	case 'K':
	case 'k':
		shift = 10;
		break;
	case 'M':
	case 'm':
		shift = 20;
		break;
	case 'G':
	case 'g':
		shift = 30;
		break;
	}
	if (shift)
		len--;
	memcpy(digits, s, len);
	digits[len] = '\0';
	if (cli_compat_uint(digits, UINT64_MAX >> shift, &v) < 0)
		return -1;
	*out = v << shift;
	return 0;
}
