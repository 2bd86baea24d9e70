/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_ARRAY_H
#define SQK_ARRAY_H

/*
 * Growing arrays: one rule for every buffer that grows as it fills. The
 * capacity at least doubles, so filling n elements one at a time copies
 * O(n) elements in all; a size whose bytes would not fit a size_t is
 * refused, never wrapped.
 */
#include <stddef.h>

/*
 * Make the array at *p (*cap elements of elem bytes) hold at least need
 * elements. Returns 0, or SQK_ERR_NOMEM with *p and *cap unchanged (also
 * when need * elem would overflow).
 */
int sqk_array_reserve(void **p, size_t *cap, size_t need, size_t elem);

/*
 * The same for a typed pointer and a size_t capacity, both lvalues:
 *	if (SQK_ARRAY_GROW(v, cap, n + 1)) return SQK_ERR_NOMEM;
 * Room already there costs one comparison.
 */
#define SQK_ARRAY_GROW(ptr, capacity, need)                                                        \
	__extension__({                                                                            \
		size_t need_ = (need);                                                             \
		int err_ = 0;                                                                      \
		if (need_ > (capacity)) {                                                          \
			void *p_ = (ptr);                                                          \
			err_ = sqk_array_reserve(&p_, &(capacity), need_, sizeof(*(ptr)));         \
			(ptr) = p_;                                                                \
		}                                                                                  \
		err_;                                                                              \
	})

#endif
