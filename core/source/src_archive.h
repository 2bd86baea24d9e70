/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SRC_ARCHIVE_H
#define SQK_SRC_ARCHIVE_H

/*
 * An archive's entries made into the tree's nodes as src_archive.c makes
 * them, for the sources that read archives of their own (layers).
 */
#include <stddef.h>

#include "src.h"

struct archive;
struct archive_entry;

/* Does an --exclude pattern match the entry path (leading '/' taken off)? */
int sqk_src_archive_excluded(struct sqk_src_ctx *c, const char *path);
/* The node type (SQK_DIR...) of the entry, 0 for one the format has not. */
unsigned sqk_src_archive_type(struct archive_entry *e);
/* Mode, owner, time and the xattrs (through the filter) of the entry, onto n. */
int sqk_src_archive_attrs(struct sqk_src_ctx *c, struct sqk_node *n, struct archive_entry *e,
			  const char *path);
/* A symlink's target, a device's numbers (nothing for other types). */
int sqk_src_archive_special(struct sqk_src_ctx *c, struct sqk_node *n, struct archive_entry *e);
/*
 * The data of the entry just read from a, to the pipeline now, for the
 * file node id (its value n); parent and name are where it stands
 * (--reuse finds it by them). Sets its size, marks its data placed and
 * puts n back into the tree.
 */
int sqk_src_archive_feed(struct sqk_src_ctx *c, struct archive *a, struct archive_entry *e,
			 sqk_nid id, struct sqk_node *n, const char *path, sqk_nid parent,
			 const char *name, size_t len);
/* The formats and compressions --archive reads, enabled on a. */
void sqk_src_archive_formats(struct archive *a);
/* libarchive's reason for a failure of a, said in c about what. */
int sqk_src_archive_fail(struct sqk_src_ctx *c, struct archive *a, const char *what);

#endif
