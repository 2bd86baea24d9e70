/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DESCRIBE_H
#define SQK_DESCRIBE_H

/*
 * The describe sink: the walked tree as a pseudo file in mksquashfs's
 * syntax (4.5), which mkimage --pseudo-file (and mksquashfs -pf) turn back
 * into the same tree with no other source. One definition an entry: D for
 * directories (the root is "/"), S, B, C and I with their times, L for the
 * second and later names of a hard link, and R for regular files, whose
 * data follows the line "# START OF DATA - DO NOT MODIFY" in the order of
 * the definitions. Extended attributes have no definition in that syntax;
 * they are counted, not written.
 */
#include <stdint.h>

#include "walk.h"

struct sqk_image;
struct sqk_describe;

/* Write to fd (not closed by the sink). */
int sqk_describe_create(struct sqk_image *img, int fd, struct sqk_describe **out);
struct sqk_sink *sqk_describe_sink(struct sqk_describe *d);
/*
 * After the walk: the data section. A failure, here or in the walk, is
 * told by the sink's fault: a write's errno, an image failure at the file
 * whose data it was reading, or (SQK_ERR_UNSUPPORTED) in its words a name
 * or target the syntax cannot hold.
 */
int sqk_describe_finish(struct sqk_describe *d);
void sqk_describe_destroy(struct sqk_describe *d);
/* Entries whose extended attributes were left out. */
uint64_t sqk_describe_xattrs_left(const struct sqk_describe *d);

#endif
