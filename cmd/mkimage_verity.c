// SPDX-License-Identifier: BSD-2-Clause
/* mkimage --verity: its options against each other, and the tree made, as pipelines read it. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "mkimage.h"
#include "fe.h"
#include "verityopt.h"

int cli_mkimage_verity_check(const struct args *a, const char *image)
{
	unsigned o = a->verity_opts;

	if (!a->verity && o)
		return cli_usage_error("the --verity-* options need --verity");
	if (!a->verity)
		return 0;
	if (a->no_pad)
		return cli_usage_error("--verity and --no-pad exclude each other (the tree covers "
				       "whole 4K blocks)");
	if (!!(o & CLI_VERITY_SIGN) != !!(o & CLI_VERITY_CERT))
		return cli_usage_error("--verity-sign and --verity-cert go together");
	if ((o & (CLI_VERITY_SIG | CLI_VERITY_SIG_JSON)) && !(o & CLI_VERITY_SIGN))
		return cli_usage_error("--verity-sig and --verity-sig-json need --verity-sign");
	/* stdout holds the image: the root hash needs a place of its own. */
	if (!strcmp(image, "-") && !(o & CLI_VERITY_ROOT_HASH_FILE))
		return cli_usage_error("IMAGE '-' (stdout) with --verity needs "
				       "--verity-root-hash-file: stdout holds the image");
	if (!strcmp(image, "-") && (o & CLI_VERITY_SIGN) &&
	    !(o & (CLI_VERITY_SIG | CLI_VERITY_SIG_JSON)))
		return cli_usage_error("IMAGE '-' (stdout) with --verity-sign needs --verity-sig "
				       "(there is no IMAGE.roothash.p7s)");
	return 0;
}

int cli_mkimage_verity_print(const struct args *a, const struct sqk_build *b)
{
	struct sqk_verity_info info;

	if (!a->verity || a->json || (a->verity_opts & CLI_VERITY_ROOT_HASH_FILE))
		return 0;
	if (sqk_build_verity(b, &info) != 0)
		return 0;
	printf("%s\n", info.root_hash);
	return 0;
}

void cli_mkimage_verity_stats(const struct sqk_build *b)
{
	struct sqk_verity_info info;

	if (sqk_build_verity(b, &info) == 0)
		printf("verity           %s, %llu data blocks, hash area %llu bytes at %llu, root "
		       "hash %s\n",
		       info.hash, (unsigned long long)info.data_blocks,
		       (unsigned long long)info.hash_size, (unsigned long long)info.hash_offset,
		       info.root_hash);
}

void cli_mkimage_verity_json(struct sqk_json *j, const struct sqk_build *b)
{
	struct sqk_verity_info info;

	if (sqk_build_verity(b, &info) != 0)
		return;
	sqk_json_key(j, "verity");
	sqk_json_begin_object(j, 0);
	cli_verity_json_members(j, &info);
	/* Blocks not hashed as they were written (rewound over, or part-written): read back. */
	sqk_json_key_uint(j, "blocks_read_back", cli_mkimage_stat(b, "verity_reread_blocks"));
	sqk_json_end_object(j);
}
