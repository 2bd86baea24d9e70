// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-check IMAGE: verify IMAGE through the public API, from its path and
 * again through read callbacks over a copy in memory; print "clean 0|1",
 * the counts, "fills N" (the data blocks the check's image decompressed,
 * from sqk_report_image()'s counters; "fills none" without that image) and
 * "problem CHECK PATH" for each problem. The two runs must agree. Exits 1
 * when a call fails or they disagree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

#include "api-test.h"

int main(int argc, char **argv)
{
	struct sqk_report *r, *r2;
	struct sqk_check_counts c;
	struct memio m;
	struct sqk_io io;
	size_t i, n;

	if (argc != 2)
		return 2;
	if (sqk_check_path(argv[1], NULL, 2, &r)) {
		fprintf(stderr, "api-check: %s\n", sqk_error_message());
		return 1;
	}
	if (memio_load(argv[1], &m, &io))
		return 1;
	if (sqk_check_io(&io, NULL, 1, &r2)) {
		fprintf(stderr, "api-check: in memory: %s\n", sqk_error_message());
		return 1;
	}
	sqk_report_counts(r, &c);
	n = sqk_report_count(r);
	printf("clean %d\ninodes %llu\ndirectories %llu\nproblems %llu\n", sqk_report_clean(r),
	       (unsigned long long)c.inodes, (unsigned long long)c.directories,
	       (unsigned long long)c.problems);
	printf("blocks %llu\n", (unsigned long long)c.blocks);
	if (sqk_report_image(r)) {
		struct sqk_image_info info;
		uint64_t fills;

		if (sqk_image_counter(sqk_report_image(r), SQK_CACHE_DATA, "fills", &fills) ||
		    sqk_image_info(sqk_report_image(r), &info)) {
			fprintf(stderr, "api-check: the report's image: %s\n", sqk_error_message());
			return 1;
		}
		printf("fills %llu\n", (unsigned long long)fills);
	} else {
		printf("fills none\n");
	}
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
	sqk_report_destroy(r);
	sqk_report_destroy(r2);
	sqk_report_destroy(NULL);
	free(m.data);
	if (m.closed != 1) {
		fprintf(stderr, "api-check: io.close was called %d times\n", m.closed);
		return 1;
	}
	return 0;
}
