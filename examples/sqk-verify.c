// SPDX-License-Identifier: BSD-2-Clause
/*
 * sqk-verify IMAGE...: check each image as the Linux kernel will read it,
 * for a CI step: every problem is printed as "IMAGE: PATH: CHECK: DETAIL";
 * the exit status is 0 when every image is clean, 1 when one has a
 * problem, 2 when one could not be checked at all.
 *
 * Build it with libsquashkit's pkg-config file:
 *
 *   cc -o sqk-verify sqk-verify.c $(pkg-config --cflags --libs squashkit)
 */
#include <stdio.h>

#include <squashkit/squashkit.h>

int main(int argc, char **argv)
{
	int status = 0, i;

	if (argc < 2) {
		fprintf(stderr, "usage: sqk-verify IMAGE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct sqk_report *r;
		size_t n, k;

		if (sqk_check_path(argv[i], NULL, 0, &r)) {
			fprintf(stderr, "sqk-verify: %s\n", sqk_error_message());
			status = 2;
			continue;
		}
		n = sqk_report_count(r);
		for (k = 0; k < n; k++) {
			const struct sqk_problem *p = sqk_report_problem(r, k);

			printf("%s: %s: %s: %s\n", argv[i], p->path, p->check, p->detail);
		}
		if (!sqk_report_clean(r) && status == 0)
			status = 1;
		printf("%s: %s\n", argv[i], sqk_report_clean(r) ? "clean" : "PROBLEMS");
		sqk_report_destroy(r);
	}
	return status;
}
