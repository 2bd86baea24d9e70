/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MKFS_INT_H
#define SQK_MKFS_INT_H

/* The build driver's state, shared by its files (mkfs.c, mkfs_entry.c, mkfs_files.c). */
#include <stddef.h>
#include <stdint.h>

#include "compressors/compressor.h"
#include "source/src.h"
#include "write/mkfs_opts.h"
#include "write/table_writer.h"

struct sqk_mkfs {
	struct sqk_mkfs_opts o;
	struct sqk_file *out;
	struct sqk_compressor **comps; /* threads + 1: the last is the main thread's */
	unsigned ncomps;
	uint8_t options[256];
	size_t options_len;
	uint64_t data_start;
	struct sqk_tree *tree;
	struct sqk_xattrs *xattrs;
	struct sqk_data_writer *dw;
	struct sqk_reuse *reuse;
	struct sqk_src_ctx src;
	struct sqk_id_table ids;
	struct sqk_node **order;
	uint32_t count;
	char **dirs; /* real paths of the directory sources, for --sort */
	size_t ndirs;
	int in_image; /* the last collision was with the image appended to */
};

/* A failure said as the sources' are (path "" for the image): returns err. */
int sqk_mkfs_fail(struct sqk_mkfs *m, int err, const char *path, const char *msg);
/* Owners, times and the id table, in inode order (mkfs_files.c); *newest: the latest time. */
int sqk_mkfs_settle_attrs(struct sqk_mkfs *m, uint32_t *newest);
/* The data of the files in list[0..count), in that order (mkfs_files.c). */
int sqk_mkfs_write_data(struct sqk_mkfs *m, struct sqk_node *const *list, uint32_t count);

#endif
