/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_IMAGE_H
#define SQK_IMAGE_H

/*
 * An open image: the superblock, the compressor, the three block caches,
 * the block layer under them, and what is read at open (where each table
 * lies with the lookup lists, the ids). Everything else is read on demand
 * through the caches. Safe to use from several threads at once after open.
 */
#include <squashkit/image.h>
#include <stdint.h>

#include "block.h"
#include "cache/cache.h"
#include "compressors/compressor.h"
#include "format/fmt_check.h"
#include "format/format.h"
#include "layout.h"
#include "util/file.h"

struct sqk_image_opts {
	enum sqk_wait_policy policy;
	enum sqk_lookup lookup;
	unsigned meta_entries;	/* kernel: 8 */
	unsigned frag_entries;	/* kernel: 3 */
	size_t frag_bytes;	/* more fragment entries, to hold this many bytes; 0 = none */
	unsigned data_entries;	/* kernel: 1 */
	unsigned comp_entries;	/* compressed blocks kept in front of the file; 0 = none */
	unsigned decompressors; /* instances shared by the fills; 1 = one behind a lock */
	unsigned stall_ms;
	/*
	 * Decode as the kernel does, not as readers do (see sqk_blocks_create):
	 * fsck sets it, so that what it calls clean the kernel reads.
	 */
	int strict;
	/*
	 * When set, each cache of blocks (fragment, data, compressed) is cut
	 * to at most this many bytes, but never below 8 blocks: the entries
	 * above are meant for the usual block sizes.
	 */
	size_t block_cache_max;
	/*
	 * When set: after an open that fails with SQK_ERR_CORRUPT at the
	 * superblock or the tables' layout, the rule it broke, as the checker
	 * words it (field "" when the failure came later).
	 */
	struct sqk_fmt_issue *why;
	/*
	 * What the readers of the image keep about all of it (a walk's hard
	 * links and directories, fsck's inodes) may hold this many bytes in
	 * memory (0: sqk_spill_default(SQK_SPILL_READ_MOST)), the rest in temporary files in
	 * tmpdir (NULL: $TMPDIR, else /tmp).
	 */
	uint64_t memory;
	const char *tmpdir;
};

void sqk_image_opts_default(struct sqk_image_opts *o);
/*
 * The cache sizes of --cache, "meta=N,frag=N,data=N,comp=N" (any subset),
 * into o: 0, or -1 (o unchanged) for a bad one.
 */
int sqk_image_opts_cache(const char *s, struct sqk_image_opts *o);

struct sqk_image;

/*
 * Open and check an image read through file (which the image then owns,
 * and closes on failure: for SQK_ERR_IO, errno is then the file's).
 */
int sqk_image_open(struct sqk_file *file, const struct sqk_image_opts *opts,
		   struct sqk_image **out);
void sqk_image_destroy(struct sqk_image *img);

const struct sqk_super *sqk_image_super(const struct sqk_image *img);
const struct sqk_comp_config *sqk_image_comp(const struct sqk_image *img);
struct sqk_file *sqk_image_file(const struct sqk_image *img);
struct sqk_cache *sqk_image_cache(const struct sqk_image *img, int which);
/* The budget of the stores its readers keep (util/store.h). */
struct sqk_spill *sqk_image_budget(struct sqk_image *img);
/*
 * which: enum sqk_cache_kind of the public API (the open image is its
 * struct sqk_image). The compressed-block cache is optional:
 * sqk_image_cache() gives NULL without it.
 */
enum { SQK_CACHE_COUNT = SQK_CACHE_COMPRESSED + 1 };
struct sqk_blocks *sqk_image_blocks(const struct sqk_image *img);

/* Where each table lies (see layout.h); every table in it is usable. */
const struct sqk_layout *sqk_image_layout(const struct sqk_image *img);
const struct sqk_table *sqk_image_table(const struct sqk_image *img, int which);

/* Where the metadata of the table starting at start ends (sqk_layout_meta_end()). */
uint64_t sqk_image_table_end(const struct sqk_image *img, uint64_t start);

/* The data area: from the end of the options block to the inode table. */
void sqk_image_data_area(const struct sqk_image *img, uint64_t *start, uint64_t *end);

/* The id table: 0 and *id, or SQK_ERR_CORRUPT for an index out of range. */
int sqk_image_id(const struct sqk_image *img, uint32_t index, uint32_t *id);

/* Read len bytes at pos of the image file. */
int sqk_image_pread(struct sqk_image *img, uint64_t pos, void *buf, size_t len);

/* Decompressed blocks counted by the image (every fill, every cache). */
uint64_t sqk_image_decompressions(const struct sqk_image *img);

#endif
