// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "error.h"

const char *sqk_cmd_name = "squashkit";

static void vmessage(const char *path, const char *fmt, va_list ap)
{
	fprintf(stderr, "squashkit %s: ", sqk_cmd_name);
	if (path)
		fprintf(stderr, "%s: ", path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void sqk_error(const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(path, fmt, ap);
	va_end(ap);
}

void sqk_error_code(const char *path, int err)
{
	if (err == SQK_ERR_IO && errno)
		sqk_error(path, "%s", strerror(errno));
	else
		sqk_error(path, "%s", sqk_strerror(err));
}

int sqk_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'squashkit %s --help'.\n", sqk_cmd_name);
	return EXIT_USAGE;
}
