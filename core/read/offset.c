// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "format/fmt_super.h"
#include "format/format.h"
#include "layout.h"
#include "offset.h"
#include "util/error.h"

#define CHUNK (1u << 20)

/*
 * Does a superblock at base of f, as decoded into sb, keep every rule the
 * reader keeps at open: its own, and where each table lies?
 */
static int image_at(struct sqk_file *f, uint64_t base, const struct sqk_super *sb, int *found)
{
	struct sqk_file *w;
	struct sqk_layout l;
	int err;

	*found = 0;
	if (sqk_fmt_super_check(sb, f->size(f) - base, NULL))
		return 0;
	w = sqk_file_window_rw(f, base);
	if (!w)
		return SQK_ERR_NOMEM;
	err = sqk_layout_read(&l, w, sb, NULL);
	sqk_layout_free(&l);
	sqk_file_destroy(w);
	if (err == SQK_ERR_IO || err == SQK_ERR_NOMEM)
		return err;
	*found = !err;
	return 0;
}

int sqk_find_images(struct sqk_file *f, uint64_t found[2], unsigned *count)
{
	return sqk_find_images_before(f, UINT64_MAX, found, 2, count);
}

int sqk_find_images_before(struct sqk_file *f, uint64_t limit, uint64_t *found, size_t max,
			   unsigned *count)
{
	static const uint8_t magic[4] = {'h', 's', 'q', 's'};
	uint64_t size = f->size(f), pos;
	uint8_t *buf;
	int err = 0;

	*count = 0;
	buf = malloc(CHUNK + SQK_SUPER_SIZE);
	if (!buf)
		return SQK_ERR_NOMEM;
	/* Chunks overlap by a superblock less a byte, so none is missed at a seam. */
	for (pos = 0; pos < size && pos < limit && !err; pos += CHUNK) {
		size_t n = size - pos < CHUNK + SQK_SUPER_SIZE - 1 ? (size_t)(size - pos)
								   : CHUNK + SQK_SUPER_SIZE - 1;
		size_t i = 0;

		err = f->read_at(f, pos, buf, n);
		while (!err && i + SQK_SUPER_SIZE <= n && i < CHUNK) {
			uint8_t *hit = memmem(buf + i, n - i, magic, sizeof(magic));
			struct sqk_super sb;
			int found_here;

			if (!hit)
				break;
			i = (size_t)(hit - buf);
			if (i >= CHUNK || i + SQK_SUPER_SIZE > n || pos + i >= limit)
				break;
			sqk_fmt_super_decode(&sb, buf + i);
			err = image_at(f, pos + i, &sb, &found_here);
			if (!err && found_here) {
				if (*count < max)
					found[*count] = pos + i;
				(*count)++;
			}
			i++;
		}
	}
	free(buf);
	return err;
}
