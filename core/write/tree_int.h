/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TREE_INT_H
#define SQK_TREE_INT_H

/*
 * The tree's parts (tree.h), shared by its files:
 *   tree.c        nodes, strings, adding and finding entries, paths
 *   tree_index.c  the entries: in memory, then sorted runs; finding one again
 *   tree_walk.c   every entry in tree order, from memory and the runs merged
 *   tree_edit.c   a directory's entries listed, an entry's tag set, an entry removed
 *
 * An entry is written again, not changed where it lies: a later record of
 * the same directory and name (in memory, or in a newer run) stands over
 * an earlier one, and a record of node 0 says the entry was removed.
 */
#include <stddef.h>
#include <stdint.h>

#include "tree.h"
#include "util/hash.h"
#include "util/store.h"
#include "util/run.h"

/* An entry in memory (node 0: removed); its name is in the tree's names buffer. */
struct ment {
	sqk_nid parent, node;
	uint64_t name;
	uint64_t tag;
	uint32_t len;
	uint32_t ppath; /* sorting: where its parent's path is in the scratch buffer */
	uint32_t sib;	/* the index + 1 of the parent's entry in memory before it, or 0 */
};

/* An entry run's record value: the node (0: removed), the directory holding it, the tag. */
struct erec {
	sqk_nid node, parent;
	uint64_t tag;
};

/* A run of entries, and the count of runs made before it (dir.epoch). */
struct erun {
	struct sqk_run *run;
	uint64_t seq;
};

struct sqk_tree {
	struct sqk_spill *sp;
	struct sqk_store *nodes; /* by id - 1 */
	struct sqk_store *heap;
	uint64_t nnodes;
	/* The entries in memory. */
	struct ment *ments;
	size_t nments, ments_cap;
	char *names;
	size_t names_len, names_cap;
	struct sqk_hash by_name; /* sqk_tree_name_hash -> index + 1 */
	struct sqk_hash by_dir;	 /* directory -> index + 1 of its last entry in memory */
	uint64_t mem_limit;
	/* The runs, oldest first. */
	struct erun *runs;
	size_t nruns, runs_cap;
	uint64_t runs_made;
	/* The directories of the last path walked, to start the next walk from. */
	char *last;
	size_t last_len, last_cap;
	sqk_nid *last_dir; /* last_dir[i]: the directory at last_end[i] */
	size_t *last_end;
	size_t nlast, last_dir_cap, last_end_cap;
	int err;
};

uint64_t sqk_tree_name_hash(sqk_nid dir, const char *name, size_t len);
/* Record a failure: the first one sticks. */
int sqk_tree_fail(struct sqk_tree *t, int err);

/* The entries (tree_index.c): dir's name is node (0: removed) with tag, over what it was. */
int sqk_tree_index_add(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, sqk_nid node,
		       uint64_t tag);
/* epoch: the directory's (no run made before it holds its entries). */
int sqk_tree_index_find(struct sqk_tree *t, sqk_nid dir, uint64_t epoch, const char *name,
			size_t len, sqk_nid *out, uint64_t *tag);
/* The key of the directory's entries, its path and a NUL unless the root (*buf: malloc). */
int sqk_tree_dir_key(struct sqk_tree *t, const struct sqk_node *d, uint8_t **buf, size_t *len);
/* The entries in memory become a run. */
int sqk_tree_index_flush(struct sqk_tree *t);
/* The entries in memory sorted into *order (indexes of ments); their keys from sqk_tree_ment_key.
 */
int sqk_tree_index_sorted(struct sqk_tree *t, uint32_t **order, uint8_t **ppaths);
/* The key of entry m into buf (grown as needed); its length. */
int sqk_tree_ment_key(const struct sqk_tree *t, const struct ment *m, const uint8_t *ppaths,
		      uint8_t **buf, size_t *cap, uint32_t *klen);
void sqk_tree_index_release(struct sqk_tree *t);

#endif
