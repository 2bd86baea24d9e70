// SPDX-License-Identifier: BSD-2-Clause
#include <string.h>

#include "fmt_name.h"
#include "format.h"
#include "util/error.h"

int sqk_name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	if (r)
		return r;
	return alen < blen ? -1 : alen > blen;
}

int sqk_name_check(const char *name, size_t len, struct sqk_fmt_report *r)
{
	const char *why = NULL;

	if (len == 0)
		why = "is empty";
	else if (len > SQK_NAME_MAX)
		why = "is longer than 256 bytes";
	else if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		why = "is a dot entry";
	else if (memchr(name, '/', len))
		why = "holds a '/'";
	else if (memchr(name, '\0', len))
		why = "holds a NUL byte";
	if (!why)
		return 0;
	sqk_fmt_fail(r, "name", len, why);
	return SQK_ERR_BADNAME;
}

int sqk_name_check_order(const char *prev, size_t prev_len, const char *name, size_t len,
			 struct sqk_fmt_report *r)
{
	int c = sqk_name_cmp(prev, prev_len, name, len);

	if (c < 0)
		return 0;
	sqk_fmt_fail(r, "name", len,
		     c ? "sorts before the name listed before it" : "is listed twice");
	return SQK_ERR_SEQUENCE;
}
