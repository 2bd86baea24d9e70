// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

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

	if (err == SQK_ERR_IO || err == SQK_ERR_NOFILE || err == SQK_ERR_NOSPACE)
		cli_error_errno(path, err, e ? e : err == SQK_ERR_NOSPACE ? ENOSPC : EIO);
	else
		cli_error_errno(path, err, 0);
}

static int stdout_failed;

void cli_stdout_error(int errnum)
{
	if (stdout_failed)
		return;
	stdout_failed = 1;
	cli_error("stdout", "%s", errnum ? strerror(errnum) : "write error");
}

/*
 * A write failed before and its errno is gone (stdio keeps only the error
 * flag): a pipe whose reader went away still says so.
 */
static int lost_errno(void)
{
	struct pollfd p = {STDOUT_FILENO, POLLOUT, 0};
	struct stat st;

	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) && poll(&p, 1, 0) == 1 &&
	    (p.revents & POLLERR))
		return EPIPE;
	return 0;
}

int cli_stdout_flush(void)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		cli_stdout_error(errno ? errno : lost_errno());
	return stdout_failed ? -1 : 0;
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
