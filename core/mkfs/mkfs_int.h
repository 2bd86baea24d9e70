/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MKFS_INT_H
#define SQK_MKFS_INT_H

/*
 * The build driver's state, shared by its files (mkfs.c, mkfs_entry.c,
 * mkfs_files.c, mkfs_finish.c).
 */
#include <stddef.h>
#include <stdint.h>

#include "compressors/compressor.h"
#include "source/src.h"
#include "write/mkfs_opts.h"
#include "util/spill.h"
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
	struct sqk_spill sp; /* the budget, and where temporaries go */
	char **dirs;	     /* real paths of the directory sources, for --sort */
	size_t ndirs;
	int in_image; /* the last collision was with the image appended to */
	/* The callbacks of sqk_mkfs_feed_later(), by the index their nodes keep. */
	struct sqk_node_fn *fns;
	size_t nfns, capfns;
};

struct sqk_number;

/*
 * err, with a temporary that failed (the first) as what failed: its path
 * and its errno's words, whatever the caller saw of it.
 */
int sqk_mkfs_said(struct sqk_mkfs *m, int err);
/* A failure at path, said in words of its own (errno cleared). */
int sqk_mkfs_fail(struct sqk_mkfs *m, int err, const char *path, const char *msg);
/* The budget when none is given: a quarter of the memory, at most 2 GiB, at least 64 MiB. */
uint64_t sqk_mkfs_default_memory(void);
/* The files whose data is still to be read, in nb's inode order or --sort's (mkfs_files.c). */
int sqk_mkfs_write_data(struct sqk_mkfs *m, struct sqk_number *nb);
/* Free what sqk_mkfs_feed_later() kept (mkfs_files.c). */
void sqk_mkfs_fns_release(struct sqk_mkfs *m);

#endif
