// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "util/error.h"

const char *cli_cmd_name = "squashkit";

static void vmessage(const char *path, const char *fmt, va_list ap)
{
	fprintf(stderr, "squashkit %s: ", cli_cmd_name);
	if (path)
		fprintf(stderr, "%s: ", path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(path, fmt, ap);
	va_end(ap);
}

void cli_error_errno(const char *path, int err, int errnum)
{
	if (errnum)
		cli_error(path, "%s", strerror(errnum));
	else
		cli_error(path, "%s", sqk_strerror(err));
}

void cli_error_code(const char *path, int err)
{
	int e = errno;

	if (err == SQK_ERR_IO || err == SQK_ERR_NOSPACE)
		cli_error_errno(path, err, e ? e : err == SQK_ERR_NOSPACE ? ENOSPC : EIO);
	else
		cli_error_errno(path, err, 0);
}

int cli_usage_hint = 1;

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
	if (cli_usage_hint)
		fprintf(stderr, "Try 'squashkit %s --help'.\n", cli_cmd_name);
	return EXIT_USAGE;
}

int cli_refuse_terminal(const char *what, int force)
{
	if (force || !isatty(STDOUT_FILENO))
		return 0;
	cli_error("stdout", "is a terminal: %s is not written to it (redirect it, or --force)",
		  what);
	return -1;
}

int cli_threads_option(const char *arg, unsigned *threads)
{
	uint64_t v;

	if (sqk_parse_uint(arg, 1024, &v) != 0 || v == 0) {
		cli_usage_error("invalid thread count '%s'", arg);
		return -1;
	}
	*threads = (unsigned)v;
	return 0;
}

void cli_print_escaped_len(FILE *out, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i = 0;

	while (i < len) {
		size_t run = i;

		/* Bytes that stand for themselves go out a run at a time. */
		while (run < len && b[run] >= 0x20 && b[run] != 0x7f && b[run] != '\\')
			run++;
		if (run > i) {
			fwrite(b + i, 1, run - i, out);
			i = run;
			continue;
		}
		if (b[i] == '\\')
			fputs("\\\\", out);
		else if (b[i] == '\n')
			fputs("\\n", out);
		else if (b[i] == '\t')
			fputs("\\t", out);
		else
			fprintf(out, "\\x%02x", b[i]);
		i++;
	}
}

void cli_print_escaped(FILE *out, const char *s)
{
	cli_print_escaped_len(out, s, strlen(s));
}

int cli_die_of_sigpipe;
