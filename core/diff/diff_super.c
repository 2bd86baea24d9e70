// SPDX-License-Identifier: BSD-2-Clause
/*
 * The superblocks of two images: the codec, the block size, the size,
 * the counts, each flag by its name, and the time when times are compared
 * at all. They come before every entry's changes.
 */
#include <string.h>

#include "compressors/compressor.h"
#include "diff_int.h"
#include "format/fmt_super.h"
#include "read/image.h"

static int super_change(struct diff *d, const char *name, uint64_t a, uint64_t b, int flag)
{
	struct sqk_diff_change c;

	if (a == b)
		return 0;
	memset(&c, 0, sizeof(c));
	c.what = SQK_DIFF_SUPER;
	c.name = name;
	c.a = a;
	c.b = b;
	c.flag = flag;
	return sqk_diff_emit(d, &c);
}

static const char *codec_name(uint16_t id)
{
	const struct sqk_codec *codec = sqk_codec_by_id(id);

	return codec ? codec->name : "unknown";
}

int sqk_diff_super(struct diff *d)
{
	const struct sqk_super *a = sqk_image_super(d->t[0]->img);
	const struct sqk_super *b = sqk_image_super(d->t[1]->img);
	int err = 0, i;

	if (a->compressor != b->compressor) {
		struct sqk_diff_change c;

		memset(&c, 0, sizeof(c));
		c.what = SQK_DIFF_SUPER;
		c.name = "compression";
		c.a = a->compressor;
		c.b = b->compressor;
		c.sa = codec_name(a->compressor);
		c.la = strlen(c.sa);
		c.sb = codec_name(b->compressor);
		c.lb = strlen(c.sb);
		err = sqk_diff_emit(d, &c);
	}
	if (!err)
		err = super_change(d, "block_size", a->block_size, b->block_size, 0);
	if (!err)
		err = super_change(d, "bytes_used", a->bytes_used, b->bytes_used, 0);
	if (!err && d->o->times)
		err = super_change(d, "mkfs_time", a->mkfs_time, b->mkfs_time, 0);
	if (!err)
		err = super_change(d, "inodes", a->inode_count, b->inode_count, 0);
	if (!err)
		err = super_change(d, "fragments", a->fragment_count, b->fragment_count, 0);
	if (!err)
		err = super_change(d, "ids", a->id_count, b->id_count, 0);
	for (i = 0; !err && sqk_fmt_super_flags[i].name; i++) {
		uint16_t bit = sqk_fmt_super_flags[i].bit;

		err = super_change(d, sqk_fmt_super_flags[i].name, !!(a->flags & bit),
				   !!(b->flags & bit), 1);
	}
	return err;
}
