/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DIR_H
#define SQK_DIR_H

/*
 * Directory listings: runs of entries behind headers. The iterator checks
 * everything a reader relies on for safety, by the codec's rules
 * (fmt_dir.h, fmt_name.h): names that are not empty, not "." or "..",
 * without "/" or NUL; strictly increasing order (so no duplicates); known
 * types; inode numbers in range. sqk_name_cmp() (fmt_name.h) gives the
 * order.
 */
#include <stdint.h>

#include "format/fmt_dir.h"
#include "format/format.h"
#include "meta.h"

struct sqk_image;
struct sqk_inode;

struct sqk_dir_entry {
	char name[SQK_NAME_MAX_BUF];
	uint32_t name_len;
	unsigned type; /* basic type 1..7 */
	uint32_t number;
	uint64_t ref; /* inode reference */
};

struct sqk_dir_iter {
	struct sqk_meta_cursor m;
	struct sqk_image *img;
	uint64_t remaining; /* listing bytes left */
	uint32_t in_header; /* entries left under the current header */
	struct sqk_fmt_dir_header hdr;
	char prev[SQK_NAME_MAX_BUF];
	uint32_t prev_len;
	int checked_order;
};

int sqk_dir_iter_open(struct sqk_image *img, const struct sqk_inode *dir, struct sqk_dir_iter *it);
/*
 * 1 and *ent for the next entry, 0 at the end, or a negative error. On
 * SQK_ERR_BADNAME and SQK_ERR_SEQUENCE, ent holds the offending name.
 */
int sqk_dir_iter_next(struct sqk_dir_iter *it, struct sqk_dir_entry *ent);
void sqk_dir_iter_close(struct sqk_dir_iter *it);

/*
 * The whole listing of dir, read and the iterator closed again, so that the
 * caller visits the entries holding no metadata block: *count entries in
 * *out (malloc'd). On SQK_ERR_BADNAME and SQK_ERR_SEQUENCE, *bad (when not
 * NULL) holds the offending entry.
 */
int sqk_dir_read_all(struct sqk_image *img, const struct sqk_inode *dir, struct sqk_dir_entry **out,
		     size_t *count, struct sqk_dir_entry *bad);

/* Does ino agree with what ent says of it (type and number)? 0 or SQK_ERR_CORRUPT. */
int sqk_dirent_check(const struct sqk_dir_entry *ent, const struct sqk_inode *ino);
/*
 * The inode an entry names, checked by sqk_dirent_check. On success the
 * caller frees it (sqk_inode_free).
 */
int sqk_dirent_inode(struct sqk_image *img, const struct sqk_dir_entry *ent, struct sqk_inode *ino);

struct sqk_u64set;

/*
 * A reader going down a tree enters the directory number at depth (the
 * root at 0). SQK_ERR_LOOP when it was entered before (a loop in a corrupt
 * image, or a directory listed twice), SQK_ERR_DEPTH at max_depth or
 * deeper, SQK_ERR_NOMEM; else 0 and seen keeps number.
 */
int sqk_dir_enter(struct sqk_u64set *seen, uint32_t number, unsigned depth, unsigned max_depth);

/* Find name in dir, using its index when it has one. SQK_ERR_NOENT if absent. */
int sqk_dir_lookup(struct sqk_image *img, const struct sqk_inode *dir, const char *name, size_t len,
		   struct sqk_dir_entry *ent);

#endif
