// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: mkimage's listing parser (core/source/src_listing.c). The input is
 * the listing; it reaches sqk_src_listing() through a memfd, since the
 * parser reads a named file. The tree it builds is then sorted and
 * numbered, as mkimage does next. A "file" line may name a host file: the
 * parser only stats it, nothing is read or written.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source/src.h"
#include "write/tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sqk_src_ctx c;
	struct sqk_node **order = NULL;
	uint32_t count;
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
	c.tree = sqk_tree_create();
	if (c.tree && sqk_src_listing(&c, path) == 0) {
		sqk_tree_sort(c.tree);
		if (sqk_tree_number(c.tree, &order, &count) == 0)
			free(order);
	}
	sqk_src_ctx_release(&c);
	sqk_tree_destroy(c.tree);
	close(fd);
	return 0;
}
