/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SORT_H
#define SQK_SORT_H

/*
 * --sort FILE: mksquashfs's sort file, "PATH PRIORITY" a line (priority
 * -32768..32767, higher first, 0 for what no line names). A directory's
 * priority is that of every file below it that no deeper line names. The
 * data of files is written highest priority first, in inode order among
 * equals, so a sort file that changes nothing leaves the image as it was.
 */
#include <stddef.h>
#include <stdint.h>

#include "tree.h"

struct sqk_sort_entry {
	char *path;
	unsigned line;
	int32_t prio;
};

struct sqk_sort {
	char *file;
	struct sqk_sort_entry *ents;
	size_t n;
};

/*
 * Read a sort file: blank lines and lines starting with '#' are skipped; a
 * backslash takes the next byte of PATH as it is (a space, say); a PATH
 * ending in a slash and a star means the directory. SQK_ERR_IO (errno kept) when file
 * cannot be read; SQK_ERR_ARG for a bad line, with *line and why.
 */
int sqk_sort_load(const char *file, struct sqk_sort **out, unsigned *line, char *why,
		  size_t why_len);
void sqk_sort_free(struct sqk_sort *s);

/* A sort line that names nothing in the image: ignored, and said. */
typedef void (*sqk_sort_warn_fn)(void *ctx, const char *where, const char *what);

/*
 * Give the node each line names its priority (sqk_node.prio; later lines
 * win). A PATH is a path in the image, as it is relative to a source
 * directory; one starting with "/", "./" or "../" is a host path, found
 * below one of the source directories dirs[0..ndirs) (real paths); a
 * relative PATH not in the image is tried as a host path too. A host path
 * below more than one source is an error (SQK_ERR_ARG, with where and
 * why). The build then gives each file the priority of its nearest
 * directory that has one (0 at the root), or its own, the highest of its
 * names, and writes data in the order of sqk_sort_key.
 */
int sqk_sort_mark(const struct sqk_sort *s, struct sqk_tree *t, const char *const *dirs,
		  size_t ndirs, sqk_sort_warn_fn warn, void *warn_ctx, char *where,
		  size_t where_len, char *why, size_t why_len);
/* A key whose byte order is the data's: priority from high to low, then inode number. */
void sqk_sort_key(int32_t prio, uint32_t number, uint8_t key[8]);

#endif
