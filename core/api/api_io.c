// SPDX-License-Identifier: BSD-2-Clause
/* The file an image is read from: a path, or the caller's callbacks (struct sqk_io). */
#include <errno.h>
#include <stdlib.h>

#include "api_int.h"

int sqk_api_io_file(const struct sqk_io *given, size_t given_size, struct sqk_file **out)
{
	struct sqk_io io;
	int err;

	if (!given)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no struct sqk_io");
	err = sqk_api_in(&io, sizeof(io), given, given_size, SQK_API_V1(struct sqk_io, ctx),
			 "sqk_io");
	if (err)
		return err;
	if (!io.read_at || !io.size)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "read_at and size are required");
	*out = sqk_file_io(&io);
	if (!*out)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	return 0;
}

int sqk_api_path_file(const char *path, struct sqk_file **out)
{
	int err = 0;

	errno = 0;
	*out = sqk_file_open(path, SQK_FILE_READ, &err);
	if (!*out)
		return sqk_api_fail(err, err == SQK_ERR_NOMEM ? 0 : errno, path, NULL);
	return 0;
}

struct sqk_file *sqk_api_io_url_file(struct sqk_file *f)
{
	const struct sqk_io *io = sqk_file_io_of(f);

	return io && io->read_at == sqk_api_url_read_at ? io->ctx : NULL;
}
