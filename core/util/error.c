// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

int sqk_err_from_errno(void)
{
	return errno == ENOSPC || errno == EDQUOT ? SQK_ERR_NOSPACE : SQK_ERR_IO;
}

const char *sqk_strerror(int err)
{
	switch (err) {
	case SQK_OK:
		return "success";
	case SQK_ERR_NOMEM:
		return "out of memory";
	case SQK_ERR_IO:
		return "input/output error";
	case SQK_ERR_CORRUPT:
		return "corrupt image";
	case SQK_ERR_UNSUPPORTED:
		return "unsupported feature";
	case SQK_ERR_ARG:
		return "invalid argument";
	case SQK_ERR_NOENT:
		return "no such file or directory in the image";
	case SQK_ERR_NOTDIR:
		return "not a directory";
	case SQK_ERR_COMPRESSOR:
		return "block does not decompress";
	case SQK_ERR_OVERFLOW:
		return "value exceeds the format's limits";
	case SQK_ERR_TRUNCATED:
		return "image is truncated";
	case SQK_ERR_EXIST:
		return "file exists";
	case SQK_ERR_NOSPACE:
		return "no space left on device";
	case SQK_ERR_INTR:
		return "interrupted";
	case SQK_ERR_BADNAME:
		return "unsafe name in directory";
	case SQK_ERR_LOOP:
		return "directory loop";
	case SQK_ERR_SEQUENCE:
		return "directory entries unsorted or duplicated";
	case SQK_ERR_MAGIC:
		return "not a squashfs image (bad magic)";
	case SQK_ERR_VERSION:
		return "unsupported squashfs version (need 4.0)";
	case SQK_ERR_ARCHIVE:
		return "archive error";
	case SQK_ERR_TIMEOUT:
		return "timed out";
	case SQK_ERR_DEPTH:
		return "directories nested too deep for squashkit to walk";
	case SQK_ERR_NOFILE:
		return "no such file or directory";
	}
	return "unknown error";
}

void sqk_fault_set(struct sqk_fault *f, int err, int errnum, int output, const char *path)
{
	if (f->err)
		return;
	f->err = err;
	f->errnum = errnum;
	f->output = output;
	f->what[0] = '\0';
	sqk_fault_path(f, path);
}

void sqk_fault_path(struct sqk_fault *f, const char *path)
{
	size_t len = strlen(path), room = sizeof(f->path) - 2;

	/* "/" and the path, or "..." and as much of its end as fits. */
	if (!*path)
		f->path[0] = '\0';
	else if (len <= room)
		snprintf(f->path, sizeof(f->path), "/%s", path);
	else
		snprintf(f->path, sizeof(f->path), "...%s", path + len - (room - 2));
}

const char *sqk_fault_text(const struct sqk_fault *f, int image_errnum)
{
	if (*f->what)
		return f->what;
	if (f->errnum)
		return strerror(f->errnum);
	if (f->err == SQK_ERR_NOSPACE)
		return strerror(ENOSPC);
	if (f->err == SQK_ERR_IO)
		return strerror(!f->output && image_errnum ? image_errnum : EIO);
	return sqk_strerror(f->err);
}

int sqk_err_errnum(int err)
{
	if (err == SQK_ERR_IO)
		return errno ? errno : EIO;
	if (err == SQK_ERR_NOSPACE)
		return errno ? errno : ENOSPC;
	return 0;
}
