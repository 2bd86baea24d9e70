// SPDX-License-Identifier: BSD-2-Clause
#include <stdint.h>
#include <stdlib.h>

#include "array.h"
#include "error.h"

/* Small arrays start here rather than growing one element at a time. */
#define ARRAY_MIN 16

int sqk_array_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t max, n;
	void *np;

	if (need <= *cap)
		return 0;
	if (!elem)
		return SQK_ERR_ARG;
	max = SIZE_MAX / elem;
	if (need > max)
		return SQK_ERR_NOMEM;
	n = *cap > max / 2 ? max : *cap * 2;
	if (n < ARRAY_MIN)
		n = ARRAY_MIN < max ? ARRAY_MIN : max;
	if (n < need)
		n = need;
	np = realloc(*p, n * elem);
	/* Doubling may ask too much where exactly enough still fits. */
	if (!np && n > need) {
		n = need;
		np = realloc(*p, n * elem);
	}
	if (!np)
		return SQK_ERR_NOMEM;
	*p = np;
	*cap = n;
	return 0;
}
