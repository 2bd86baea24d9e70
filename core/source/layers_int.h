/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_LAYERS_INT_H
#define SQK_LAYERS_INT_H

/*
 * Between the layers' driver (src_layers.c) and what applies one entry
 * (layer_apply.c): the state of a layering.
 */
#include <stddef.h>
#include <stdint.h>

#include "layers.h"
#include "util/store.h"
#include "write/tree.h"

struct archive;
struct archive_entry;

/* The OCI image spec's whiteout names: ".wh.NAME", and the opaque marker. */
#define SQK_WH	      ".wh."
#define SQK_WH_LEN    4
#define SQK_WH_OPAQUE ".wh..wh..opq"

/*
 * An entry's tag in the tree (sqk_tree_tag): the layer that made it, and
 * the layer that gave a directory its attributes.
 */
#define SQK_LAYER_TAG(made, attrs) ((uint64_t)(made) | (uint64_t)(attrs) << 32)
#define SQK_LAYER_MADE(tag)	   ((uint32_t)(tag))
#define SQK_LAYER_ATTRS(tag)	   ((uint32_t)((tag) >> 32))

/* A file whose data is an entry of a lower layer, to be fed in the second pass. */
struct sqk_layer_pending {
	sqk_nid node;
	uint64_t ordinal; /* the entry's place in its layer, from 0 */
	uint64_t check;	  /* a hash of its path and size, to find the same entry again */
	sqk_nid parent;
	uint64_t name; /* where it stood, in the tree's strings (--reuse finds its data by it) */
	uint32_t len;
	uint32_t layer; /* from 1; 0: fed already */
};

struct sqk_layer_state {
	struct sqk_src_ctx *c;
	struct sqk_tree *t;
	enum sqk_layers_mode mode;
	uint32_t layer;	  /* the layer being applied, from 1 */
	uint64_t ordinal; /* the entry being applied */
	const char *name; /* the layer's, in messages */
	/* Its data goes to the pipeline as it streams (no layer above can hide it). */
	int feed_now;
	struct archive *a;
	/*
	 * The pending files, records of a store, and node -> index + 1 among
	 * them: both of the build's budget, as the tree is.
	 */
	struct sqk_store *pending;
	uint64_t npending;
	struct sqk_store_hash by_node;
	/* SQK_LAYERS_OVERLAY: the directories ".wh..wh..opq" made opaque, the whiteouts. */
	sqk_nid *opaque;
	size_t nopaque, cap_opaque;
	struct sqk_layer_whiteout *whiteouts;
	size_t nwhiteouts, cap_whiteouts;
};

/* A whiteout of an overlayfs layer, placed once the layer's own entries are known. */
struct sqk_layer_whiteout {
	sqk_nid dir;
	uint64_t name; /* in the tree's strings */
	uint32_t len;
	sqk_nid dev; /* the character device 0/0, with the whiteout's attributes */
};

/* Apply entry e (the st->ordinal-th of layer st->layer). 0, or the error, said. */
int sqk_layer_entry(struct sqk_layer_state *st, struct archive_entry *e);
/* The layer's last entry is applied: 0, or the error, said (layer_overlay.c). */
int sqk_layer_end(struct sqk_layer_state *st);
/* A whiteout (its path, its base name in it) of an overlayfs layer (layer_overlay.c). */
int sqk_layer_overlay_whiteout(struct sqk_layer_state *st, struct archive_entry *e, char *path,
			       char *base);
/* Put node at parent/name, over whatever this layer or those below left there. */
int sqk_layer_place(struct sqk_layer_state *st, sqk_nid parent, const char *name, size_t len,
		    sqk_nid node, const char *path);
/* The layer's entry path is wrong: what, said in the layer's name. */
int sqk_layer_fail(struct sqk_layer_state *st, int err, const char *path, const char *what);
/* The entry's check (sqk_layer_pending.check) as its header says it. */
uint64_t sqk_layer_check(struct archive_entry *e);
void sqk_layer_state_release(struct sqk_layer_state *st);

#endif
