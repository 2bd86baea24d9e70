// SPDX-License-Identifier: BSD-2-Clause
/*
 * mkimage --append: the refusals of the command line, and the build's
 * failures to open the image appended to, in mkimage's words; the library
 * opens the image and adds to it.
 */
#include <errno.h>
#include <string.h>

#include "cmd.h"
#include "mkimage.h"

int cli_mkimage_append_check(const struct args *a, const char *image)
{
	if (strcmp(image, "-") == 0)
		return cli_usage_error("--append needs an IMAGE file, not '-'");
	if (a->force)
		return cli_usage_error("--append and --force exclude each other");
	if (a->level >= 0 || a->ncomp_opts)
		return cli_usage_error("--append keeps the image's compressor settings; "
				       "--level and --comp-opt cannot change them");
	return 0;
}

/* A compressor or block size given that is not the image's: a usage error that says whose. */
static int settings(const struct args *a, const char *image, int err)
{
	struct sqk_open_opts *oo = sqk_open_opts_create();
	struct sqk_image_info info;
	struct sqk_image *img = NULL;
	int rc;

	if (oo && a->offset)
		sqk_open_opts_set_offset(oo, a->offset);
	if (!oo || sqk_image_open_path(image, oo, &img) || sqk_image_info(img, &info)) {
		cli_error_code(image, err);
		rc = EXIT_FAIL;
	} else if (a->comp_given && strcmp(a->comp_name, info.compressor) != 0) {
		rc = cli_usage_error("%s is compressed with %s; --append cannot add %s blocks",
				     image, info.compressor, a->comp_name);
	} else {
		rc = cli_usage_error("%s has a block size of %u; --append cannot use %llu", image,
				     info.block_size, (unsigned long long)a->block_size);
	}
	sqk_image_destroy(img);
	sqk_open_opts_destroy(oo);
	return rc;
}

int cli_mkimage_append_error(const struct args *a, const char *image, int err)
{
	enum sqk_build_step step = sqk_build_failed_step_id(NULL);
	int e = sqk_error_errno();

	if (step == SQK_STEP_APPEND && err == SQK_ERR_ARG)
		return settings(a, image, err);
	if (step == SQK_STEP_APPEND_OPEN && e == ENOENT)
		cli_error(image, "no such file (--append adds to an existing image)");
	else if (step == SQK_STEP_APPEND_OPEN || step == SQK_STEP_APPEND_IO)
		cli_error(image, "%s", strerror(e));
	else if (step == SQK_STEP_APPEND_NOT_REGULAR)
		cli_error(image, "--append needs a regular file or a block device");
	else if (step == SQK_STEP_APPEND_LOCKED)
		cli_error(image, "is locked by another process (%s)", strerror(e));
	else if (step == SQK_STEP_APPEND_PAST_END)
		cli_error(image, "offset %llu is past the end of the file",
			  (unsigned long long)a->offset);
	else if (step == SQK_STEP_APPEND_NOT_IMAGE)
		cli_error(image, "not a squashfs image");
	else
		cli_error_code(image, err);
	return EXIT_FAIL;
}
