// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkimage --append: the refusals of the command line, and the library's
 * reasons (core/mkfs/mkfs_append.c) in its words.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "compressors/compressor.h"
#include "mkimage.h"
#include "util/error.h"

/* Why the library could not open IMAGE for the append. */
static void say(const char *image, uint64_t offset, int err, int why, int errnum)
{
	switch (why) {
	case SQK_APPEND_OPEN:
		if (errnum == ENOENT)
			cli_error(image, "no such file (--append adds to an existing image)");
		else
			cli_error(image, "%s", strerror(errnum));
		break;
	case SQK_APPEND_NOT_REGULAR:
		cli_error(image, "--append needs a regular file");
		break;
	case SQK_APPEND_LOCKED:
		cli_error(image, "is locked by another process (%s)", strerror(errnum));
		break;
	case SQK_APPEND_PAST_END:
		cli_error(image, "offset %llu is past the end of the file",
			  (unsigned long long)offset);
		break;
	case SQK_APPEND_NOT_IMAGE:
		cli_error(image, "not a squashfs image");
		break;
	case SQK_APPEND_IO:
		cli_error(image, "%s", strerror(errnum));
		break;
	default:
		cli_error_code(image, err);
	}
}

int cli_mkimage_append_open(struct args *a, const char *image, struct sqk_mkfs_append **t)
{
	const struct sqk_codec *codec;
	int err, why, errnum;

	*t = NULL;
	if (strcmp(image, "-") == 0)
		return cli_usage_error("--append needs an IMAGE file, not '-'");
	if (a->force)
		return cli_usage_error("--append and --force exclude each other");
	if (a->level >= 0 || a->comp_opts.n)
		return cli_usage_error("--append keeps the image's compressor settings; "
				       "--level and --comp-opt cannot change them");
	err = sqk_mkfs_append_open(image, a->offset, t, &why, &errnum);
	if (err) {
		say(image, a->offset, err, why, errnum);
		return EXIT_FAIL;
	}
	codec = sqk_mkfs_append_codec(*t);
	if (a->comp_given && strcmp(a->comp_name, codec->name) != 0)
		return cli_usage_error("%s is compressed with %s; --append cannot add %s blocks",
				       image, codec->name, a->comp_name);
	if (a->block_given && a->o.block_size != sqk_mkfs_append_block_size(*t))
		return cli_usage_error("%s has a block size of %u; --append cannot use %u", image,
				       sqk_mkfs_append_block_size(*t), a->o.block_size);
	err = sqk_mkfs_append_settle(*t, &a->o, NULL, 0);
	if (err) {
		cli_error_code(image, err);
		return EXIT_FAIL;
	}
	return 0;
}
