// SPDX-License-Identifier: BSD-2-Clause
/*
 * Open options by the names the command line gives them, and the entry
 * counts of an image's lookup tables: what the front ends took from the
 * reader before.
 */
#include <string.h>

#include "api_int.h"
#include "cache/cache.h"
#include "format/format.h"
#include "read/layout.h"
#include "util/parse.h"

int sqk_open_opts_set(struct sqk_open_opts *o, const char *name, const char *value)
{
	uint64_t n;

	if (!o || !name || !value)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no options, name or value");
	if (!strcmp(name, "cache")) {
		if (sqk_image_opts_cache(value, &o->image))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid cache sizes '%s'",
					    value);
		return sqk_api_ok();
	}
	if (!strcmp(name, "cache-policy")) {
		if (sqk_policy_parse(value, &o->image.policy))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "unknown cache policy '%s'",
					    value);
		return sqk_api_ok();
	}
	if (!strcmp(name, "decompressors")) {
		if (sqk_parse_uint(value, 65536, &n) || !n)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid decompressors '%s'",
					    value);
		o->image.decompressors = (unsigned)n;
		return sqk_api_ok();
	}
	return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no open option '%s'", name);
}

int sqk_image_table_entries(const struct sqk_image *img, enum sqk_table_kind kind,
			    uint64_t *entries)
{
	const struct sqk_table *t;

	if (kind != SQK_TABLE_FRAG && kind != SQK_TABLE_EXPORT && kind != SQK_TABLE_ID &&
	    kind != SQK_TABLE_XATTR)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "table %d has no entry count", (int)kind);
	t = sqk_image_table(img, kind);
	if (!t || !t->present)
		return sqk_api_fail(SQK_ERR_NOENT, 0, NULL, "the image has no such table");
	*entries = t->entries;
	return sqk_api_ok();
}
