// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: mkimage's listing parser (core/source/src_listing.c). The input is
 * the listing; it reaches sqk_src_listing() through a memfd, since the
 * parser reads a named file. The tree it builds is then walked in
 * order, as mkimage numbers it next. A "file" line may name a host file: the
 * parser only stats it, nothing is read or written.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source/src.h"
#include "util/spill.h"
#include "write/tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sqk_src_ctx c;
	struct sqk_spill sp;
	struct sqk_tree_walk *w;
	struct sqk_tree_item it;
	char path[64];
	int fd;

	fd = memfd_create("listing", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&c, 0, sizeof(c));
	/* Odd first bytes keep the tree on disk: the spilled paths get fuzzed too. */
	if (sqk_spill_init(&sp, "/tmp", 64u << 20, size && (data[0] & 1))) {
		close(fd);
		return 0;
	}
	c.spill = &sp;
	c.tree = sqk_tree_create(&sp);
	if (c.tree && sqk_src_listing(&c, path) == 0) {
		/* Every entry in the order mkimage numbers them. */
		if (sqk_tree_walk_start(c.tree, &w) == 0) {
			while (sqk_tree_walk_next(w, &it) == 0)
				;
			sqk_tree_walk_end(w);
		}
	}
	sqk_src_ctx_release(&c);
	sqk_tree_destroy(c.tree);
	sqk_spill_release(&sp);
	close(fd);
	return 0;
}
