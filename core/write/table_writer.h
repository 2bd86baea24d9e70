/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TABLE_WRITER_H
#define SQK_TABLE_WRITER_H

/*
 * The fragment, export and id tables share one shape: fixed-size entries
 * packed into metadata blocks, followed by a list of the absolute u64
 * positions of those blocks. The superblock points at the list.
 */
#include <stddef.h>
#include <stdint.h>

#include "compressors/compressor.h"
#include "util/file.h"
#include "util/hash.h"

/*
 * Write len bytes of entries at *pos as metadata blocks, then the lookup
 * list; *lookup gets the list's position and *pos moves past it.
 */
int sqk_table_write(struct sqk_compressor *comp, struct sqk_file *f, uint64_t *pos,
		    const uint8_t *data, size_t len, uint64_t *lookup);
/*
 * The same with hdr_len bytes of hdr between the blocks and the list (the
 * xattr ids); *table gets the header's position.
 */
int sqk_table_write_hdr(struct sqk_compressor *comp, struct sqk_file *f, uint64_t *pos,
			const uint8_t *data, size_t len, const uint8_t *hdr, size_t hdr_len,
			uint64_t *table);

/* The same, a piece at a time: begin at pos, add entries, end with the header and list. */
struct sqk_meta_writer;
struct sqk_pool;
struct sqk_table_stream {
	struct sqk_meta_writer *mw;
	struct sqk_file *f;
	uint64_t pos;
};
int sqk_table_begin(struct sqk_table_stream *ts, struct sqk_compressor *comp, struct sqk_file *f,
		    uint64_t pos);
/* The same, its blocks compressed on pool (worker i with comps[i]; NULL: stored). */
int sqk_table_begin_async(struct sqk_table_stream *ts, struct sqk_pool *pool,
			  struct sqk_compressor **comps, struct sqk_file *f, uint64_t pos);
int sqk_table_add(struct sqk_table_stream *ts, const void *data, size_t len);
/* *pos moves past the table, *table gets the header's (or list's) position. */
int sqk_table_end(struct sqk_table_stream *ts, const uint8_t *hdr, size_t hdr_len, uint64_t *pos,
		  uint64_t *table);
void sqk_table_abort(struct sqk_table_stream *ts);

/* The id table: distinct uids and gids, numbered by first use. */
struct sqk_id_table {
	uint32_t *ids; /* by index */
	uint32_t count;
	size_t cap;
	struct sqk_hash by_id; /* id -> index + 1 */
};

void sqk_id_table_init(struct sqk_id_table *t);
void sqk_id_table_release(struct sqk_id_table *t);
/* The index of id, adding it when new; SQK_ERR_OVERFLOW past 65535 ids. */
int sqk_id_table_get(struct sqk_id_table *t, uint32_t id, uint16_t *idx);
int sqk_id_table_write(const struct sqk_id_table *t, struct sqk_compressor *comp,
		       struct sqk_file *f, uint64_t *pos, uint64_t *lookup);

#endif
