// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: mkimage's pseudo definitions (core/source/src_pseudo.c and
 * pseudo_parse.c). The input is a pseudo file; it reaches
 * sqk_pseudo_add_file() through a memfd, since the parser reads a named
 * file (R data included). Its first line is also given as one --pseudo
 * definition. The definitions are then placed in an empty tree, which is
 * walked in order, as mkimage numbers it next. Nothing is ever run: date
 * strings are refused (SQK_PSEUDO_NO_EXEC) and f commands only run when
 * the files are filled, which this target never does. An l definition may
 * name a host file: it is only stat'ed (and a symlink read).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source/pseudo.h"
#include "util/spill.h"
#include "write/tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sqk_src_ctx c;
	struct sqk_pseudo *p = NULL;
	struct sqk_spill sp;
	struct sqk_tree_walk *w;
	struct sqk_tree_item it;
	const uint8_t *nl;
	char path[64], *first;
	size_t len;
	int fd, err;

	fd = memfd_create("pseudo", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || sqk_pseudo_create(SQK_PSEUDO_NO_EXEC, &p)) {
		close(fd);
		return 0;
	}
	nl = memchr(data, '\n', size);
	len = nl ? (size_t)(nl - data) : size;
	first = malloc(len + 1);
	if (first) {
		memcpy(first, data, len);
		first[len] = '\0';
		sqk_pseudo_add_def(p, first);
		free(first);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = sqk_pseudo_add_file(p, path);
	memset(&c, 0, sizeof(c));
	/* Odd first bytes keep the tree on disk: the spilled paths get fuzzed too. */
	if (sqk_spill_init(&sp, "/tmp", 64u << 20, size && (data[0] & 1))) {
		close(fd);
		return 0;
	}
	c.spill = &sp;
	c.tree = sqk_tree_create(&sp);
	if (!err && c.tree && sqk_src_pseudo_place(&c, p) == 0) {
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
	sqk_pseudo_destroy(p);
	close(fd);
	return 0;
}
