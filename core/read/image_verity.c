// SPDX-License-Identifier: BSD-2-Clause
/* An image file and its hash area (image_verity.h). */
#include <string.h>

#include "format/fmt_super.h"
#include "image_verity.h"
#include "util/error.h"
#include "util/file.h"
#include "verity/verity_read.h"
#include "verity/verity_tree.h"

/* Where the image in f ends, by its superblock. */
static int image_end(struct sqk_file *f, uint64_t *end)
{
	uint8_t raw[SQK_SUPER_SIZE];
	struct sqk_super sb;
	int err = f->read_at(f, 0, raw, sizeof(raw));

	if (err == SQK_ERR_TRUNCATED)
		return SQK_ERR_MAGIC;
	if (err)
		return err;
	sqk_fmt_super_decode(&sb, raw);
	if (sb.magic != SQK_MAGIC)
		return SQK_ERR_MAGIC;
	*end = (sb.bytes_used + SQK_DEVBLK_SIZE - 1) / SQK_DEVBLK_SIZE * SQK_DEVBLK_SIZE;
	return 0;
}

int sqk_image_verity_area(struct sqk_file *f, const struct sqk_verity_where *w,
			  struct sqk_verity_area **out, const char **why)
{
	uint64_t end = 0;
	int err = image_end(f, &end);

	*why = NULL;
	*out = NULL;
	if (err == SQK_ERR_MAGIC)
		*why = "no SquashFS superblock to find the hash area after";
	return err ? err : sqk_verity_area_open(f, end, w, out, why);
}

int sqk_image_verity_file(struct sqk_file *f, const struct sqk_verity_where *w,
			  struct sqk_file **out, const char **why)
{
	struct sqk_verity_area *a;
	int err = sqk_image_verity_area(f, w, &a, why);

	*out = NULL;
	if (err) {
		sqk_file_destroy(f);
		return err;
	}
	return sqk_verity_reader_create(f, a, out);
}

int sqk_image_verity_find(struct sqk_file *f, struct sqk_verity_params *p)
{
	uint8_t raw[SQK_VERITY_SB_SIZE];
	struct sqk_verity_sb sb;
	uint64_t end;
	const char *why;
	int err = image_end(f, &end);

	if (err)
		return err;
	if (f->read_at(f, end, raw, sizeof(raw)) != 0 || sqk_verity_sb_decode(raw, &sb, &why) != 0)
		return SQK_ERR_NOENT;
	sqk_verity_sb_params(&sb, end, p);
	return 0;
}
