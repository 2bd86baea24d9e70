/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_API_TEST_H
#define SQK_API_TEST_H

/*
 * What the test programs of tests/api share. They are built against the
 * installed library alone, so this header uses the public API and nothing
 * else: an image read from memory through read callbacks (memio_*), the
 * operands of the comparison programs (diffargs_*), an extraction option
 * from the command line (extract_arg).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

/* ---- an image file loaded into memory, read back through struct sqk_io ---- */

struct memio {
	unsigned char *data;
	size_t size;
	int closed; /* times io.close was called */
};

static inline int memio_read(void *ctx, uint64_t pos, void *buf, size_t len)
{
	struct memio *m = ctx;

	if (pos > m->size || len > m->size - pos)
		return SQK_ERR_TRUNCATED;
	memcpy(buf, m->data + pos, len);
	return 0;
}

static inline uint64_t memio_size(void *ctx)
{
	return ((struct memio *)ctx)->size;
}

static inline void memio_close(void *ctx)
{
	((struct memio *)ctx)->closed++;
}

/* Load path into m and describe it in io: 0, or -1. */
static inline int memio_load(const char *path, struct memio *m, struct sqk_io *io)
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

/*
 * ---- the operands of the comparison programs ----
 * Each side an image, or a host directory when it is one; then
 * OPTION[=VALUE]... for sqk_diff_opts_set(), "path=P" for
 * sqk_diff_opts_add_path().
 */

static inline int diffargs_side(const char *arg, struct sqk_diff_side *s)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (!stat(arg, &st) && S_ISDIR(st.st_mode)) {
		s->dir = arg;
		return 0;
	}
	return sqk_image_open_path(arg, NULL, &s->img);
}

/* argv[from...] into o: 0, or the code after saying why on stderr. */
static inline int diffargs_opts(struct sqk_diff_opts *o, int argc, char **argv, int from)
{
	int i, r;

	for (i = from; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (eq)
			*eq++ = '\0';
		r = !strcmp(argv[i], "path") ? sqk_diff_opts_add_path(o, eq)
					     : sqk_diff_opts_set(o, argv[i], eq);
		if (r) {
			fprintf(stderr, "%s: %s\n", argv[0], sqk_error_message());
			return r;
		}
	}
	return 0;
}

/* ---- an extraction option: NAME (a switch), NAME=VALUE, or /PATH (a path to extract) ---- */

static inline int extract_arg(struct sqk_extract_opts *o, char *arg)
{
	char *eq = strchr(arg, '=');

	if (arg[0] == '/')
		return sqk_extract_opts_add_path(o, arg);
	if (eq)
		*eq++ = '\0';
	return sqk_extract_opts_set(o, arg, eq);
}

#endif
