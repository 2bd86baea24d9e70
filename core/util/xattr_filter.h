/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_XATTR_FILTER_H
#define SQK_XATTR_FILTER_H

/*
 * Which extended attributes pass (--xattrs-include, --xattrs-exclude), and
 * the attributes --xattrs-add gives every inode. Patterns are POSIX
 * extended regular expressions matched against the full name
 * ("user.foo"), anywhere in it unless anchored: a name passes when it
 * matches the include pattern (if there is one) and not the exclude
 * pattern (if there is one).
 */
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

struct sqk_xattr_filter {
	regex_t include, exclude;
	int has_include, has_exclude;
};

/*
 * Set the include (exclude = 0) or exclude pattern, replacing one set
 * before. SQK_ERR_ARG for a pattern regcomp refuses; why gets its reason.
 */
int sqk_xattr_filter_set(struct sqk_xattr_filter *f, int exclude, const char *pattern, char *why,
			 size_t why_len);
/* Does name pass? A NULL filter passes everything. */
int sqk_xattr_filter_pass(const struct sqk_xattr_filter *f, const char *name);
void sqk_xattr_filter_release(struct sqk_xattr_filter *f);

/* One NAME=VALUE of --xattrs-add, decoded. */
struct sqk_xattr_add {
	char *name;
	uint8_t *value;
	size_t value_len;
};

/*
 * Parse NAME=VALUE. NAME must be in the user., trusted. or security.
 * namespace (the only ones the format stores) and VALUE not empty. VALUE
 * is taken as it is, unless it starts with 0s (base64), 0x (hexadecimal),
 * 0t (text where \ and three octal digits give any byte) or 0b (as it
 * is); the prefixes may be upper case, and a one-byte VALUE has none.
 * SQK_ERR_ARG with *why saying what is wrong, or SQK_ERR_NOMEM.
 */
int sqk_xattr_add_parse(const char *arg, struct sqk_xattr_add *out, const char **why);
void sqk_xattr_add_release(struct sqk_xattr_add *a);

#endif
