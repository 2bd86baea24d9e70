/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SRC_H
#define SQK_SRC_H

/*
 * The writer's sources: each adds entries to the tree. Directory walks and
 * listings only describe files (their data is read later, in inode
 * order); an archive must be read in its own order, so its file data goes
 * to the block pipeline as it streams by. Nodes are values (tree.h): a
 * source gets one, changes it and puts it back before anything else can.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/xattr_filter.h"
#include "write/data_writer.h"
#include "write/mkfs_opts.h"
#include "write/tree.h"
#include "write/xattr_writer.h"

/* What every source needs; the error fields say where a failure was. */
struct sqk_pattern;

struct sqk_src_ctx {
	struct sqk_tree *tree;
	struct sqk_xattrs *xattrs;  /* NULL: --no-xattrs */
	struct sqk_data_writer *dw; /* archives feed it directly */
	/* Attributes read from sources pass it (NULL: all pass). */
	const struct sqk_xattr_filter *xattr_filter;
	int no_hardlinks;
	const char *const *excludes;
	size_t nexcludes;
	/* How the excludes match; the per-component styles are compiled by prepare. */
	enum sqk_exclude_style exclude_style;
	struct sqk_pattern *pats;
	size_t npats;
	/* --one-file-system: entries on another device than their source's stay out. */
	int one_file_system;
	/* A pseudo definition that cannot be placed is a warning, and left out. */
	int pseudo_warn;
	void (*warn)(void *ctx, const char *where, const char *what);
	void *warn_ctx;
	/* Set by sqk_src_full_path(): an image path names one host path. */
	int full_paths;
	/* Files never to include (the image being written). */
	dev_t skip_dev[2];
	ino_t skip_ino[2];
	int nskip;
	/*
	 * Times outside what the format holds (before 1970, after 2106),
	 * clamped by sqk_src_time(): how many each way, and the image path of
	 * the first (malloc'd).
	 */
	uint64_t times_before, times_after;
	char *time_before_path, *time_after_path;
	struct sqk_spill *spill;
	void *links; /* hard links of directory walks, by device and inode */
	uint64_t lseeks;
	unsigned xattrs_skipped;
	uint64_t entries;
	/* Set on failure. */
	char err_path[4096];
	char err_msg[256];
	int err_errno;
};

void sqk_src_ctx_release(struct sqk_src_ctx *c);

/* Does the image path (no leading '/') match an --exclude pattern? */
int sqk_src_excluded(const struct sqk_src_ctx *c, const char *path);
/* The same for a path whose parents were not checked (archives, listings). */
int sqk_src_excluded_path(const struct sqk_src_ctx *c, const char *path);
/* Compile the excludes under --regex or --wildcards; SQK_ERR_ARG names a bad one in err_*. */
int sqk_src_exclude_prepare(struct sqk_src_ctx *c);
void sqk_src_exclude_release(struct sqk_src_ctx *c);
/* The image path matched one component pattern per path component (src_exclude.c). */
int sqk_src_excluded_components(const struct sqk_src_ctx *c, const char *path);

int sqk_src_dir(struct sqk_src_ctx *c, const char *path);
/* The host file or directory at path as one entry of the root, named after it. */
int sqk_src_entry(struct sqk_src_ctx *c, const char *path);
/*
 * The host file or directory at path placed at path in the image, as tar
 * does: the directories on the way take their host directories' attributes,
 * the root those of "/" or "." (whichever path starts from).
 */
int sqk_src_full_path(struct sqk_src_ctx *c, const char *path);
int sqk_src_listing(struct sqk_src_ctx *c, const char *path);
int sqk_src_archive(struct sqk_src_ctx *c, const char *path);
/* Archives applied one over the other as container image layers (layers.h), the first lowest. */
int sqk_src_layer_files(struct sqk_src_ctx *c, const char *const *paths, size_t n);
/*
 * The OCI image at spec, LAYOUT[:REF] or oci-archive:FILE[:REF], for
 * platform "os/arch[/variant]" (NULL: this machine's): its layers applied
 * (layer 0), or its layer'th alone as overlayfs keeps a layer
 * (layers.h). *nlayers: how many layers the image has (0 when it was not
 * found). SQK_ERR_NOENT for a layer past the last.
 */
int sqk_src_oci(struct sqk_src_ctx *c, const char *spec, const char *platform, unsigned layer,
		unsigned *nlayers);

/*
 * Feed the host file at path (size bytes when it was described) to the
 * pipeline: one SEEK_DATA/SEEK_HOLE sweep maps a sparse file, then a
 * cursor walks its blocks; holes are never read.
 */
int sqk_src_feed_file(struct sqk_src_ctx *c, const char *path, uint64_t size, uint64_t *id);

/* The same for an open descriptor; path names it in messages. */
int sqk_src_feed_fd(struct sqk_src_ctx *c, int fdesc, const char *path, uint64_t size,
		    uint64_t *id);
/* The data writer's file id as a file node keeps it: its data is placed. */
void sqk_src_data_done(struct sqk_node *n, uint64_t id);

/* The extended attributes of the host file at path (not followed) for node n. */
int sqk_src_read_xattrs(struct sqk_src_ctx *c, const char *path, struct sqk_node *n);

/*
 * A source's time t of the entry at path (in the image) as the format
 * holds it, 0 to 2^32 - 1 seconds since 1970: one outside is clamped to
 * the nearer end, and counted.
 */
uint32_t sqk_src_time(struct sqk_src_ctx *c, const char *path, int64_t t);
/*
 * One warning, through c->warn, for the times clamped: how many and the
 * first. after: count those after 2106 too (not when SOURCE_DATE_EPOCH
 * brings every newer time down anyway).
 */
void sqk_src_warn_times(struct sqk_src_ctx *c, int after);

/* Record an error location (errno kept in err_errno). */
void sqk_src_fail(struct sqk_src_ctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
