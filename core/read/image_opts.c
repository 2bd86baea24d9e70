// SPDX-License-Identifier: BSD-2-Clause
/*
 * The cache sizes as the command line gives them ("meta=N,frag=N,data=N,
 * comp=N"): read once, here, for the public open options and for the
 * binary's own readers (mount, bench).
 */
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "util/parse.h"

int sqk_image_opts_cache(const char *s, struct sqk_image_opts *o)
{
	struct sqk_image_opts set = *o;
	char *copy = strdup(s), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v;

		if (!eq || sqk_parse_uint(eq + 1, 65536, &v) != 0) {
			ret = -1;
			break;
		}
		*eq = '\0';
		/* Every cache needs an entry; the compressed-block cache may be left out. */
		if (v == 0 && strcmp(tok, "comp") != 0) {
			ret = -1;
			break;
		}
		if (strcmp(tok, "meta") == 0)
			set.meta_entries = (unsigned)v;
		else if (strcmp(tok, "frag") == 0)
			set.frag_entries = (unsigned)v;
		else if (strcmp(tok, "data") == 0)
			set.data_entries = (unsigned)v;
		else if (strcmp(tok, "comp") == 0)
			set.comp_entries = (unsigned)v;
		else {
			ret = -1;
			break;
		}
	}
	free(copy);
	if (!ret)
		*o = set;
	return ret;
}
