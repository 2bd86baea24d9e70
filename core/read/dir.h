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

/*
 * A listing read a piece at a time, so that walking a directory of millions
 * of entries holds a few of them: ents[0..n) are entries first.. of the
 * listing. Between calls the list holds no metadata block, so whoever reads
 * it may read other inodes and listings, and go down a tree with lists open
 * on the way.
 */
#define SQK_DIR_PIECE 32

struct sqk_dir_list {
	struct sqk_dir_iter it; /* where the next piece starts */
	struct sqk_dir_entry *ents;
	size_t n;
	uint64_t first;
	/* The listing breaks after ents: the error (and, for SQK_ERR_BADNAME and
	 * SQK_ERR_SEQUENCE, the offending entry in bad); 0 when it does not. */
	int error;
	struct sqk_dir_entry bad;
	int end; /* no entry after ents */
};

/*
 * Open the listing of dir and read its first piece. With check, the whole
 * listing is read first and its first broken rule returned here, before
 * any entry is (l->bad holds the offending entry): a walk leaves out a
 * directory it cannot read whole, as it did when it read each listing into
 * memory. Without, a broken rule comes in l->error after the entries before
 * it, piece by piece. 0, or a negative code (l needs no close then).
 */
int sqk_dir_list_open(struct sqk_image *img, const struct sqk_inode *dir, int check,
		      struct sqk_dir_list *l);
/* The next piece (after one with end set: none). 0, or SQK_ERR_NOMEM. */
int sqk_dir_list_next(struct sqk_dir_list *l);
void sqk_dir_list_close(struct sqk_dir_list *l);

/* Does ino agree with what ent says of it (type and number)? 0 or SQK_ERR_CORRUPT. */
int sqk_dirent_check(const struct sqk_dir_entry *ent, const struct sqk_inode *ino);
/*
 * The inode an entry names, checked by sqk_dirent_check. On success the
 * caller frees it (sqk_inode_free).
 */
int sqk_dirent_inode(struct sqk_image *img, const struct sqk_dir_entry *ent, struct sqk_inode *ino);

struct sqk_store;

/*
 * A reader going down a tree enters the directory number at depth (the
 * root at 0). SQK_ERR_LOOP when it was entered before (a loop in a corrupt
 * image, or a directory listed twice), SQK_ERR_DEPTH at max_depth or
 * deeper, or the store's error; else 0 and seen, a bitmap by inode number
 * (util/store.h: a bit an inode, whatever the tree's size), keeps number.
 */
int sqk_dir_enter(struct sqk_store *seen, uint32_t number, unsigned depth, unsigned max_depth);

/* Find name in dir, using its index when it has one. SQK_ERR_NOENT if absent. */
int sqk_dir_lookup(struct sqk_image *img, const struct sqk_inode *dir, const char *name, size_t len,
		   struct sqk_dir_entry *ent);

#endif
