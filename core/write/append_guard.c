// SPDX-License-Identifier: BSD-2-Clause
/*
 * The roll-back of an append. The writer never touches a byte the file
 * holds but the superblock, last; so while the old superblock stands,
 * cutting the file back to its old length gives the old image back whole.
 * A signal does that from the moment the guard is armed; a failure does
 * it when the guard is released, after putting the old superblock back if
 * the new one was written but its sync failed.
 */
#include <string.h>
#include <unistd.h>

#include "append.h"
#include "util/error.h"
#include "util/file.h"
#include "util/signals.h"

int sqk_append_guard_arm(struct sqk_append_guard *g, int fd, uint64_t size, uint64_t offset)
{
	int r;

	memset(g, 0, sizeof(*g));
	r = sqk_read_full(fd, g->super, sizeof(g->super), offset);
	if (r != 0)
		return r < 0 ? SQK_ERR_IO : 1;
	g->slot = sqk_sig_cut_back(fd, size, offset, g->super, sizeof(g->super));
	if (g->slot < 0)
		return g->slot;
	g->fd = fd;
	g->size = size;
	g->offset = offset;
	g->armed = 1;
	return 0;
}

void sqk_append_guard_release(struct sqk_append_guard *g, int failed)
{
	uint8_t now[SQK_SUPER_SIZE];

	if (!g->armed)
		return;
	/* Only while the old superblock is in place: the new one needs every byte after it. */
	if (failed && sqk_read_full(g->fd, now, sizeof(now), g->offset) == 0) {
		/*
		 * The new superblock is in place only when its own sync failed:
		 * the old one goes back, then the file is cut back.
		 */
		if (memcmp(now, g->super, sizeof(now)) != 0 &&
		    sqk_write_full(g->fd, g->super, sizeof(g->super), g->offset) == 0)
			memcpy(now, g->super, sizeof(now));
		if (memcmp(now, g->super, sizeof(now)) == 0 &&
		    ftruncate(g->fd, (off_t)g->size) == 0)
			fsync(g->fd);
	}
	sqk_sig_forget(g->slot);
	g->armed = 0;
}
