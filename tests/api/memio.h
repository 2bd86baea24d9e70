/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TEST_MEMIO_H
#define SQK_TEST_MEMIO_H

/*
 * An image file loaded into memory and read back through the public API's
 * callbacks (struct sqk_io), for the test programs of tests/api.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

struct memio {
	unsigned char *data;
	size_t size;
	int closed; /* times io.close was called */
};

static int memio_read(void *ctx, uint64_t pos, void *buf, size_t len)
{
	struct memio *m = ctx;

	if (pos > m->size || len > m->size - pos)
		return SQK_ERR_TRUNCATED;
	memcpy(buf, m->data + pos, len);
	return 0;
}

static uint64_t memio_size(void *ctx)
{
	return ((struct memio *)ctx)->size;
}

static void memio_close(void *ctx)
{
	((struct memio *)ctx)->closed++;
}

/* Load path into m and describe it in io: 0, or -1. */
static int memio_load(const char *path, struct memio *m, struct sqk_io *io)
{
	FILE *f = fopen(path, "rb");
	long n;
	int ok;

	memset(m, 0, sizeof(*m));
	if (!f)
		return -1;
	ok = !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	     (m->data = malloc((size_t)n)) && fread(m->data, 1, (size_t)n, f) == (size_t)n;
	fclose(f);
	m->size = ok ? (size_t)n : 0;
	*io = (struct sqk_io){memio_read, memio_size, memio_close, m};
	return ok ? 0 : -1;
}

#endif
