// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkimage --append: the refusals of the command line; the library opens the
 * image (core/mkfs/mkfs_append.c) and says why it cannot.
 */
#include <string.h>

#include "cmd.h"
#include "compressors/compressor.h"
#include "mkimage.h"
#include "util/error.h"

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
		char words[256];

		sqk_mkfs_append_say(why, errnum, a->offset, "--append", words, sizeof(words));
		if (*words)
			cli_error(image, "%s", words);
		else
			cli_error_code(image, err);
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
