// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: fsck. Every check runs on the input bytes, with the data
 * blocks checked in the calling thread (no pool: one thread is faster
 * under the fuzzer and keeps runs reproducible).
 */
#include <stdint.h>
#include <string.h>

#include "fsck/fsck.h"
#include "util/file.h"

static void report(void *ctx, const char *path, const char *check, const char *detail)
{
	size_t *n = ctx;

	/* Touch every byte, so a bad string is caught here. */
	*n += strlen(path) + strlen(check) + strlen(detail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sqk_fsck_opts o = {0};
	struct sqk_fsck *f;
	struct sqk_file *file;
	size_t n = 0;

	file = sqk_file_mem(data, size);
	if (!file)
		return 0;
	o.report = report;
	o.ctx = &n;
	if (sqk_fsck_create(file, &o, &f) == 0)
		sqk_fsck_run(f);
	sqk_fsck_destroy(f);
	return 0;
}
