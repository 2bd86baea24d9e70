/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_XATTR_WRITER_H
#define SQK_XATTR_WRITER_H

/*
 * Extended attributes for the writer. Sources hand in each inode's
 * attributes; identical sets are stored once and share one xattr id. Ids
 * are handed out in the order inodes are written, so the table does not
 * depend on the order sources were read. A value that several sets
 * carry is stored once and referenced out of line (flag 0x100).
 */
#include <stddef.h>
#include <stdint.h>

#include "compressors/compressor.h"
#include "util/file.h"

struct sqk_xattr_in {
	const char *name; /* full name, "user.foo" */
	const void *value;
	size_t value_len;
};

struct sqk_xattr_set;
struct sqk_xattrs;

struct sqk_xattrs *sqk_xattrs_create(void);
void sqk_xattrs_destroy(struct sqk_xattrs *x);

/*
 * Intern the attributes in[0..n): *out is the shared set, or NULL when
 * none is storable (names outside user., trusted., security. are
 * skipped; *skipped counts them when not NULL).
 */
int sqk_xattrs_intern(struct sqk_xattrs *x, const struct sqk_xattr_in *in, size_t n,
		      struct sqk_xattr_set **out, unsigned *skipped);
/*
 * The set of set's attributes and add[0..n) together (set may be NULL).
 * SQK_ERR_EXIST when set has one of add's names already; *dup is its index.
 */
int sqk_xattrs_extend(struct sqk_xattrs *x, struct sqk_xattr_set *set,
		      const struct sqk_xattr_in *add, size_t n, struct sqk_xattr_set **out,
		      size_t *dup);
/*
 * The set of set's attributes with kv in place of its attribute of that
 * name (kv->value NULL: without it); set may be NULL, and *out is NULL
 * when nothing is left.
 */
int sqk_xattrs_put(struct sqk_xattrs *x, struct sqk_xattr_set *set, const struct sqk_xattr_in *kv,
		   struct sqk_xattr_set **out);
/* Does set (NULL: none) hold the attribute name ("security.selinux")? */
int sqk_xattrs_has(const struct sqk_xattr_set *set, const char *name);
/*
 * The codec's rules on each attribute of set (fmt_xattr.h): a name of
 * 1..255 bytes after its prefix, a value of at most 64 KiB. 0, or
 * SQK_ERR_CORRUPT after reporting the first broken rule through r.
 */
struct sqk_fmt_report;
int sqk_xattrs_set_check(const struct sqk_xattr_set *set, struct sqk_fmt_report *r);
/* The set's xattr id, assigned on first use. */
uint32_t sqk_xattrs_id(struct sqk_xattrs *x, struct sqk_xattr_set *set);
uint32_t sqk_xattrs_count(const struct sqk_xattrs *x);
/*
 * Write the key/value area, the id table and its lookup list at *pos;
 * *table gets the superblock's xattr_table position.
 */
int sqk_xattrs_write(struct sqk_xattrs *x, struct sqk_compressor *comp, struct sqk_file *f,
		     uint64_t *pos, uint64_t *table);

#endif
