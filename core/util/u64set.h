/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_U64SET_H
#define SQK_U64SET_H

/* A set of 64-bit keys (open addressing; a slot holds key + 1, 0 = empty). */
#include <stddef.h>
#include <stdint.h>

struct sqk_u64set {
	uint64_t *slot;
	size_t cap, count;
};

/* 1 when key was already there, 0 when added, or SQK_ERR_NOMEM. */
int sqk_u64set_add(struct sqk_u64set *s, uint64_t key);
/* 1 when key is there. */
int sqk_u64set_has(const struct sqk_u64set *s, uint64_t key);
void sqk_u64set_free(struct sqk_u64set *s);

#endif
