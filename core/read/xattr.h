/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_XATTR_H
#define SQK_XATTR_H

/* Extended attributes: an inode's xattr index names a list of key/value pairs. */
#include <stddef.h>
#include <stdint.h>

struct sqk_image;

struct sqk_xattr {
	char *name; /* with its prefix: "user.foo" */
	uint8_t *value;
	uint32_t value_len;
	int out_of_line; /* the value was stored once and referenced */
};

/* Read the pairs of xattr index idx; *list is NULL when count is 0. */
int sqk_xattr_read(struct sqk_image *img, uint32_t idx, struct sqk_xattr **list, uint32_t *count);
void sqk_xattr_free(struct sqk_xattr *list, uint32_t count);

#endif
