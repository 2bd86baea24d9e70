/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_ARCHIVE_SINK_H
#define SQK_ARCHIVE_SINK_H

/*
 * The archive sink: writes the walked tree as one archive through
 * libarchive (pax, gnu, ustar, cpio or zip), keeping hard links, xattrs and,
 * in pax, sparse files.
 */
#include "walk.h"

struct sqk_image;
struct sqk_archive_sink;
struct sqk_xattr_filter;

/* Is name a format this sink writes? */
int sqk_archive_format_known(const char *name);

/*
 * Write to fd (not closed by the sink) in format; xattrs unless no_xattrs.
 * Entries an archive cannot hold (sockets) are skipped and reported to warn.
 * With the walk's --keep-going, each file is read once before its header
 * is written, so that one whose data cannot be read is left out whole.
 */
int sqk_archive_sink_create(struct sqk_image *img, int fd, const char *format, int no_xattrs,
			    void (*warn)(void *ctx, const char *path, const char *what),
			    void *warn_ctx, struct sqk_archive_sink **out);
struct sqk_sink *sqk_archive_sink_sink(struct sqk_archive_sink *s);
/* Write only the attributes that pass f (NULL, the default: all). */
void sqk_archive_sink_set_filter(struct sqk_archive_sink *s, const struct sqk_xattr_filter *f);
/*
 * Close the archive (writes its trailer). A failure, here or from a
 * callback, is told by the sink's fault: a write's errno (the output's),
 * or libarchive's words about an entry it could not store.
 */
int sqk_archive_sink_finish(struct sqk_archive_sink *s);
void sqk_archive_sink_destroy(struct sqk_archive_sink *s);

#endif
