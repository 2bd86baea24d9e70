/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITY_READ_H
#define SQK_VERITY_READ_H

/*
 * Reading an image through its hash tree, as dm-verity does, without
 * device-mapper: a file whose every read reads the data blocks it covers
 * and checks each against its digest, in a hash block checked up to the
 * root. Hash blocks are checked once and kept (a few KiB per MiB of image);
 * data blocks are checked on every read, never taken on trust from a
 * cache. A block that does not match fails the read with SQK_ERR_IO and
 * errno EIO, and is recorded. Safe from many threads at once.
 */
#include <stdint.h>

#include "verity_area.h"

struct sqk_file;

/*
 * A file reading image (taken) through area a (taken): 0, or SQK_ERR_NOMEM
 * (both are freed).
 */
int sqk_verity_reader_create(struct sqk_file *image, struct sqk_verity_area *a,
			     struct sqk_file **out);
/*
 * Call fn for each block that fails a read, from the thread reading (set
 * before the file is shared).
 */
void sqk_verity_reader_on_bad(struct sqk_file *f,
			      void (*fn)(void *ctx, const struct sqk_verity_bad *b), void *ctx);
/* Is f such a file? */
int sqk_verity_is_reader(const struct sqk_file *f);
/* The file a reader reads (f itself for a file that is no reader). */
struct sqk_file *sqk_verity_reader_inner(struct sqk_file *f);
/*
 * How many blocks failed a read of f so far, and the first (a snapshot;
 * first may be NULL). 0 for a file that is no reader.
 */
uint64_t sqk_verity_reader_failures(struct sqk_file *f, struct sqk_verity_bad *first);
/* Its area (NULL for a file that is no reader). */
const struct sqk_verity_area *sqk_verity_reader_area(const struct sqk_file *f);

#endif
