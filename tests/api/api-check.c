// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * api-check IMAGE: verify IMAGE through the public API, from its path and
 * again through read callbacks over a copy in memory; print "clean 0|1",
 * the counts, and "problem CHECK PATH" for each problem. The two runs must
 * agree. Exits 1 when a call fails or they disagree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

struct mem {
	unsigned char *data;
	size_t size;
};

static int mem_read(void *ctx, uint64_t pos, void *buf, size_t len)
{
	struct mem *m = ctx;

	if (pos > m->size || len > m->size - pos)
		return SQK_ERR_TRUNCATED;
	memcpy(buf, m->data + pos, len);
	return 0;
}

static uint64_t mem_size(void *ctx)
{
	return ((struct mem *)ctx)->size;
}

int main(int argc, char **argv)
{
	struct sqk_report *r, *r2;
	struct sqk_check_counts c;
	struct mem m = {0};
	struct sqk_io io = {mem_read, mem_size, NULL, &m};
	size_t i, n;
	FILE *f;

	if (argc != 2)
		return 2;
	if (sqk_check_path(argv[1], NULL, 2, &r)) {
		fprintf(stderr, "api-check: %s\n", sqk_error_message());
		return 1;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (m.size = (size_t)ftell(f)) == 0 ||
	    fseek(f, 0, SEEK_SET) || !(m.data = malloc(m.size)) ||
	    fread(m.data, 1, m.size, f) != m.size)
		return 1;
	fclose(f);
	if (sqk_check_io(&io, NULL, 1, &r2)) {
		fprintf(stderr, "api-check: in memory: %s\n", sqk_error_message());
		return 1;
	}
	sqk_report_counts(r, &c);
	n = sqk_report_count(r);
	printf("clean %d\ninodes %llu\ndirectories %llu\nproblems %llu\n", sqk_report_clean(r),
	       (unsigned long long)c.inodes, (unsigned long long)c.directories,
	       (unsigned long long)c.problems);
	for (i = 0; i < n; i++) {
		const struct sqk_problem *p = sqk_report_problem(r, i),
					 *q = sqk_report_problem(r2, i);

		printf("problem %s %s\n", p->check, p->path);
		if (!q || strcmp(p->check, q->check) || strcmp(p->path, q->path) ||
		    strcmp(p->detail, q->detail)) {
			fprintf(stderr, "api-check: problem %zu differs in memory\n", i);
			return 1;
		}
	}
	if (sqk_report_count(r2) != n || sqk_report_problem(r, n) ||
	    sqk_report_clean(r) != (n == 0)) {
		fprintf(stderr, "api-check: the reports differ\n");
		return 1;
	}
	sqk_report_free(r);
	sqk_report_free(r2);
	sqk_report_free(NULL);
	free(m.data);
	return 0;
}
