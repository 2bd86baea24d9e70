// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-open-errors FILE OFFSET CORRUPT MISSING: what the library says of an
 * image inside a file, a corrupt image and a file that is not there.
 * Prints, one fact a line:
 *   "open offset N", "report offset N": where sqk_image_info() says the
 *     image at OFFSET in FILE starts, opened, and as sqk_check_path()'s
 *     report lends it;
 *   "open-corrupt CODE MESSAGE": the open of CORRUPT, then
 *     "problem CHECK DETAIL" for each problem the check of CORRUPT lists;
 *   "missing CALL CODE WORDS|MESSAGE" for each call given MISSING.
 */
#include <stdio.h>
#include <string.h>

#include <squashkit/squashkit.h>

static void missing(const char *call, int err)
{
	printf("missing %s %d %s|%s\n", call, err, sqk_strerror(err), sqk_error_message());
}

int main(int argc, char **argv)
{
	struct sqk_open_opts *o = sqk_open_opts_create();
	struct sqk_image_info info;
	struct sqk_image *img;
	struct sqk_report *r;
	struct sqk_build_opts *bo;
	struct sqk_build *b;
	unsigned long long off;
	size_t i;
	int err;

	if (argc != 5 || sscanf(argv[2], "%llu", &off) != 1 || !o) {
		fprintf(stderr, "usage: api-open-errors FILE OFFSET CORRUPT MISSING\n");
		return 2;
	}
	if (sqk_open_opts_set_offset(o, off) || sqk_image_open_path(argv[1], o, &img) ||
	    sqk_image_info(img, &info)) {
		fprintf(stderr, "api-open-errors: %s\n", sqk_error_message());
		return 1;
	}
	printf("open offset %llu\n", (unsigned long long)info.offset);
	sqk_image_destroy(img);
	if (sqk_check_path(argv[1], o, 1, &r) || !sqk_report_image(r) ||
	    sqk_image_info(sqk_report_image(r), &info)) {
		fprintf(stderr, "api-open-errors: check: %s\n", sqk_error_message());
		return 1;
	}
	printf("report offset %llu\n", (unsigned long long)info.offset);
	sqk_report_destroy(r);

	err = sqk_image_open_path(argv[3], NULL, &img);
	printf("open-corrupt %d %s\n", err, sqk_error_message());
	if (!err || img)
		return 1;
	if (sqk_check_path(argv[3], NULL, 1, &r)) {
		fprintf(stderr, "api-open-errors: check: %s\n", sqk_error_message());
		return 1;
	}
	for (i = 0; i < sqk_report_count(r); i++)
		printf("problem %s %s\n", sqk_report_problem(r, i)->check,
		       sqk_report_problem(r, i)->detail);
	sqk_report_destroy(r);

	missing("sqk_image_open_path", sqk_image_open_path(argv[4], NULL, &img));
	missing("sqk_check_path", sqk_check_path(argv[4], NULL, 1, &r));
	bo = sqk_build_opts_create();
	if (!bo || sqk_build_create("/dev/null", bo, &b)) {
		sqk_build_opts_set(bo, "force", NULL);
		if (sqk_build_create("/dev/null", bo, &b)) {
			fprintf(stderr, "api-open-errors: build: %s\n", sqk_error_message());
			return 1;
		}
	}
	missing("sqk_build_add_file",
		sqk_build_add_file(b, "f", &(struct sqk_attr){0644, 0, 0, 0}, argv[4]));
	missing("sqk_build_add_dir", sqk_build_add_dir(b, argv[4]));
	sqk_build_destroy(b);
	sqk_build_opts_destroy(bo);
	sqk_open_opts_destroy(o);
	return 0;
}
