/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SPOOL_H
#define SQK_SPOOL_H

/*
 * A spool: bytes appended, then read back (in order, or anywhere). Up to
 * its share of memory they stay there; past it, the older bytes go to a
 * temporary and only the newest stay in memory. For what is written in
 * one order and read whole later: the inode numbers in order, the export
 * table, a directory's listing waiting for its inode, a table waiting
 * for another.
 */
#include <stddef.h>
#include <stdint.h>

#include "spill.h"

struct sqk_spool {
	struct sqk_spill *sp;
	uint64_t limit;
	struct sqk_tmp *tmp;
	uint64_t size;	  /* bytes appended */
	uint64_t flushed; /* bytes [0, flushed) are in tmp, the rest in mem */
	uint8_t *mem;
	size_t cap;
	/* A window of tmp's bytes read back last: reads in order cost one read a window. */
	uint8_t *win;
	uint64_t win_off;
	size_t win_len;
};

void sqk_spool_init(struct sqk_spool *s, struct sqk_spill *sp, uint64_t limit);
void sqk_spool_release(struct sqk_spool *s);
int sqk_spool_write(struct sqk_spool *s, const void *buf, size_t len);
/* len bytes at off (below size). */
int sqk_spool_read(struct sqk_spool *s, uint64_t off, void *buf, size_t len);
/* Forget every byte; the memory and the temporary stay for reuse. */
int sqk_spool_clear(struct sqk_spool *s);
/* Forget the bytes from size on (a stack's top popped). */
void sqk_spool_truncate(struct sqk_spool *s, uint64_t size);

#endif
