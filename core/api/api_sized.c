// SPDX-License-Identifier: BSD-2-Clause
/*
 * Structures a caller allocates, given with their size: each public call
 * that fills or reads one is a macro of its header that passes
 * sizeof(struct ...) as the program was compiled, so that a struct may
 * grow at its end without a new soname. A program built against an older
 * header gets the fields it knows; one built against a newer header gets
 * zeros past what this library knows, and may not ask for more.
 */
#include <string.h>

#include "api_int.h"

int sqk_api_size(size_t given, size_t min, const char *what)
{
	if (given >= min)
		return 0;
	return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "struct %s of %zu bytes: at least %zu expected",
			    what, given, min);
}

int sqk_api_out(void *dst, size_t given, const void *src, size_t have, size_t min, const char *what)
{
	if (sqk_api_size(given, min, what))
		return SQK_ERR_ARG;
	memcpy(dst, src, given < have ? given : have);
	if (given > have)
		memset((char *)dst + have, 0, given - have);
	return 0;
}

int sqk_api_in(void *dst, size_t have, const void *src, size_t given, size_t min, const char *what)
{
	const unsigned char *p = src;
	size_t i;

	if (sqk_api_size(given, min, what))
		return SQK_ERR_ARG;
	for (i = have; i < given; i++)
		if (p[i])
			return sqk_api_fail(SQK_ERR_UNSUPPORTED, 0, NULL,
					    "struct %s: a field at byte %zu this library "
					    "does not know is set",
					    what, i);
	memset(dst, 0, have);
	memcpy(dst, src, given < have ? given : have);
	return 0;
}
