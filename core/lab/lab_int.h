/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_LAB_INT_H
#define SQK_LAB_INT_H

/* Inside the laboratory: what the runner hands to the place an operation runs in. */
#include "lab.h"

/* One worker's means to carry out operations. */
struct sqk_lab_io {
	const struct sqk_lab_target *t;
	const struct sqk_lab_files *f;
	uint8_t *buf;	/* f->block_size bytes */
	char *path;	/* PATH_MAX bytes, for the VFS */
	uint64_t bytes; /* file bytes read so far */
};

/*
 * One operation of workload wl on file i (off: the block randread reads),
 * through the image's caches or through the VFS. 0, or non-zero on failure.
 */
int sqk_lab_model_op(struct sqk_lab_io *io, enum sqk_workload wl, size_t i, uint64_t off);
int sqk_lab_vfs_op(struct sqk_lab_io *io, enum sqk_workload wl, size_t i, uint64_t off);

#endif
