// SPDX-License-Identifier: BSD-2-Clause
/* The calling thread's last failure, and the library's version. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

static __thread char message[SQK_FAULT_PATH_MAX + 512];
static __thread int message_errno;

int sqk_api_code(int err, int errnum)
{
	return err == SQK_ERR_IO && errnum == ENOENT ? SQK_ERR_NOFILE : err;
}

int sqk_api_fail(int err, int errnum, const char *where, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	err = sqk_api_code(err, errnum);
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
	} else {
		snprintf(what, sizeof(what), "%s", errnum ? strerror(errnum) : sqk_strerror(err));
	}
	if (where && *where)
		snprintf(message, sizeof(message), "%s: %s", where, what);
	else
		snprintf(message, sizeof(message), "%s", what);
	message_errno = errnum;
	return err;
}

int sqk_api_fault(const struct sqk_fault *f, const char *where)
{
	const char *what = *f->what    ? f->what
			   : f->errnum ? strerror(f->errnum)
				       : sqk_strerror(f->err);

	if (*f->path)
		return sqk_api_fail(f->err, f->errnum, where, "/%s: %s", sqk_api_relpath(f->path),
				    what);
	return sqk_api_fail(f->err, f->errnum, where, "%s", what);
}

const char *sqk_api_relpath(const char *path)
{
	while (*path == '/')
		path++;
	return path;
}

const char *sqk_api_abspath(struct sqk_api_abs *a, const char *path)
{
	size_t len = strlen(path);
	char *to = a->small;

	a->big = NULL;
	while (path[0] == '/' && path[1] == '/')
		path++;
	if (*path == '/')
		return path;
	if (len + 2 > sizeof(a->small) && !(to = a->big = malloc(len + 2)))
		return NULL;
	to[0] = '/';
	memcpy(to + 1, path, len + 1);
	return to;
}

void sqk_api_abs_done(struct sqk_api_abs *a)
{
	free(a->big);
	a->big = NULL;
}

int sqk_api_io_errnum(const struct sqk_image *img, int err)
{
	return err == SQK_ERR_IO ? sqk_image_file(img)->errnum : 0;
}

int sqk_api_ok(void)
{
	message[0] = '\0';
	message_errno = 0;
	return 0;
}

const char *sqk_error_message(void)
{
	return message;
}

int sqk_error_errno(void)
{
	return message_errno;
}

const char *sqk_version(void)
{
	return SQK_VERSION;
}
