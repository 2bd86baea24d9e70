// SPDX-License-Identifier: BSD-2-Clause
#include <stddef.h>

#include "error.h"
#include "parse.h"

/* Parse the digits at s; *end is the first byte after them. */
static int digits(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return SQK_ERR_ARG;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return SQK_ERR_ARG;
	*end = p;
	*out = v;
	return 0;
}

int sqk_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;

	if (!s || digits(s, &end, &v) != 0 || *end || v > max)
		return SQK_ERR_ARG;
	*out = v;
	return 0;
}

int sqk_parse_size(const char *s, uint64_t *out)
{
	const char *end;
	unsigned shift = 0;
	uint64_t v;

	if (!s || digits(s, &end, &v) != 0)
		return SQK_ERR_ARG;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end || v > (UINT64_MAX >> shift))
		return SQK_ERR_ARG;
	*out = v << shift;
	return 0;
}

int sqk_parse_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
