// SPDX-License-Identifier: BSD-2-Clause
/* The parts a build stores uncompressed, by name (mkimage --uncompressed). */
#include <string.h>

#include "mkfs.h"
#include "util/error.h"

int sqk_mkfs_raw_parse(const char *list, unsigned *raw)
{
	static const struct {
		const char *name;
		unsigned bit;
	} parts[] = {
		{"inodes", SQK_RAW_INODES},
		{"data", SQK_RAW_DATA},
		{"fragments", SQK_RAW_FRAGMENTS},
		{"xattrs", SQK_RAW_XATTRS},
		{"ids", SQK_RAW_IDS},
	};
	const char *p = list;
	unsigned bits = 0;

	for (;;) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
			if (strlen(parts[i].name) == len && strncmp(p, parts[i].name, len) == 0)
				break;
		if (i == sizeof(parts) / sizeof(parts[0]))
			return SQK_ERR_ARG;
		bits |= parts[i].bit;
		if (!p[len])
			break;
		p += len + 1;
	}
	*raw |= bits;
	return 0;
}
