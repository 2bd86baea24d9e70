// SPDX-License-Identifier: BSD-2-Clause
/*
 * Files read with O_DIRECT (SQK_FILE_DIRECT): reads at any offset and of
 * any length give the file's bytes, from several threads at once (each
 * with its own aligned buffer); a read past the end is SQK_ERR_TRUNCATED,
 * as for a plain file; the size is the file's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "util/error.h"
#include "util/file.h"

#define SIZE 300001

static uint8_t *want;

/* Reads at offsets and lengths that are never aligned; 0 when all agree. */
static void *reader(void *arg)
{
	struct sqk_file *f = arg;
	uint8_t *buf = malloc(70000);
	uint64_t s = (uint64_t)(uintptr_t)&buf | 1;
	intptr_t bad = 0;
	int i;

	for (i = 0; i < 300; i++) {
		uint64_t off, len;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		off = s % (SIZE - 1);
		len = 1 + (s >> 20) % 65536;
		if (off + len > SIZE)
			len = SIZE - off;
		if (f->read_at(f, off, buf, (size_t)len) != 0 || memcmp(buf, want + off, len))
			bad++;
	}
	free(buf);
	return (void *)bad;
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	char path[4096];
	struct sqk_file *f;
	pthread_t t[4];
	uint8_t buf[16];
	FILE *fp;
	int i, err = 0, fd;
	intptr_t bad = 0;
	void *r;

	snprintf(path, sizeof(path), "%s/sqk-direct.XXXXXX", base);
	fd = mkstemp(path);
	if (fd < 0) {
		printf("1..0 # SKIP cannot make a scratch file in %s\n", base);
		return 0;
	}
	want = malloc(SIZE);
	for (i = 0; i < SIZE; i++)
		want[i] = (uint8_t)(i * 7 + i / 4099);
	fp = fdopen(fd, "w");
	fwrite(want, 1, SIZE, fp);
	fclose(fp);

	f = sqk_file_open(path, SQK_FILE_DIRECT, &err);
	if (!f && errno == EINVAL) {
		printf("1..0 # SKIP %s takes no O_DIRECT\n", base);
		unlink(path);
		free(want);
		return 0;
	}
	if (!ok(f != NULL, "the file opens with O_DIRECT"))
		return tap_done();
	is_int(f->size(f), SIZE, "its size is the file's");
	is_int(f->read_at(f, 1, buf, 3), 0, "three bytes at offset 1");
	is_mem(buf, want + 1, 3, "are the file's");
	is_int(f->read_at(f, SIZE - 5, buf, 5), 0, "the last five bytes");
	is_mem(buf, want + SIZE - 5, 5, "are the file's");
	is_int(f->read_at(f, SIZE - 5, buf, 6), SQK_ERR_TRUNCATED, "one byte more is truncated");
	is_int(f->read_at(f, SIZE + 4096, buf, 1), SQK_ERR_TRUNCATED, "a read past the end too");
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, reader, f);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &r);
		bad += (intptr_t)r;
	}
	is_int(bad, 0, "four threads, 1200 unaligned reads: all agree with the file");
	ok(f->reads >= 1204, "every read is counted (%llu)", (unsigned long long)f->reads);
	sqk_file_destroy(f);
	unlink(path);
	free(want);
	return tap_done();
}
