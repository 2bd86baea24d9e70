/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TREE_H
#define SQK_TREE_H

/*
 * The writer's tree, in memory while it fits the build's budget and on
 * disk past it. Every source (directory walk, archive, listing, pseudo
 * definitions, entries one by one, the image appended to) adds here.
 *
 * A node is an inode to be: it has an id, and its value (struct sqk_node)
 * is copied in and out (sqk_tree_get, sqk_tree_put), so that the nodes can
 * wait in a paged array (util/store.h) while the budget is short. Strings
 * (symlink targets, host paths, a directory's path) go to a heap of bytes,
 * paged the same way, and a node keeps their offset.
 *
 * An entry names a node in a directory; several entries may name one node
 * (hard links). Entries are kept by their path, as a key of the names from
 * the root joined by NUL bytes: in that key's byte order, a directory
 * comes before what it holds, and the names of a directory in the order
 * the format requires (sqk_name_cmp). Recent entries are in a hash table
 * in memory; past its share they become sorted runs (util/run.h), found
 * again through their Bloom filters, and merged into one stream at the
 * end: the tree in order, whatever order the sources gave (tree_walk.c).
 * Nothing is added while a walk is open.
 *
 * The first failure of a temporary sticks: every later call returns it.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_spill;
struct sqk_xattr_set;

typedef uint64_t sqk_nid; /* 0: none */
#define SQK_NID_ROOT 1

enum {
	SQK_NODE_IMPLICIT = 0x01, /* directory made for a path's parent, attributes not seen */
	SQK_NODE_NUMBERED = 0x02,
	SQK_NODE_DATA_DONE = 0x04, /* file data already placed (archives, pseudo, entries fed) */
	SQK_NODE_KEPT = 0x08,	   /* from the image appended to: attributes as they are */
	SQK_NODE_ON_PATH = 0x10,   /* a directory on the way to a --full-paths source */
	SQK_NODE_WRITTEN = 0x20,   /* its inode is written: ref is where */
	/*
	 * A file whose data a caller's callback gives when the data is
	 * written (core/mkfs): file.src is its callback's index there.
	 */
	SQK_NODE_FED_LATER = 0x40,
};

struct sqk_node {
	uint8_t type;  /* basic inode type, SQK_DIR..SQK_SOCKET */
	uint8_t flags; /* SQK_NODE_* */
	uint16_t mode; /* permission bits only (07777) */
	uint32_t uid, gid;
	uint32_t mtime;
	uint32_t nlink;	 /* entries that name this node (non-directories) */
	uint32_t number; /* inode number, once numbered */
	int32_t prio;	 /* --sort: the priority a line gave it, SQK_PRIO_NONE */
	int32_t rank;	 /* --sort: its data's priority, once numbered */
	uint64_t ref;	 /* inode reference once written */
	uint64_t size;	 /* file size; a symlink's target length */
	struct sqk_xattr_set *xattrs;
	union {
		struct {
			sqk_nid parent;	   /* 0 for the root */
			uint64_t path;	   /* heap: names from the root, joined by NUL */
			uint32_t pathlen;  /* 0 for the root */
			uint32_t nsubdirs; /* once numbered */
			uint64_t key;	   /* --reuse: its path's key (reuse.h) */
			uint64_t epoch;	   /* entry runs made before it: none holds its entries */
		} dir;
		struct {
			uint64_t src;	 /* heap: host path to read, when srclen (or FED_LATER) */
			uint32_t srclen; /* 0: no host file (empty, or data fed) */
			uint64_t data;	 /* the data writer's file id + 1, once fed; 0 before */
			uint64_t key;	 /* --reuse: its path's key, 0 until known */
		} file;
		uint64_t target; /* symlink: heap offset of the target (size bytes) */
		struct {
			uint32_t major, minor;
		} dev;
	};
};

#define SQK_PRIO_NONE INT32_MIN

struct sqk_tree;

struct sqk_tree *sqk_tree_create(struct sqk_spill *sp);
void sqk_tree_destroy(struct sqk_tree *t);
/* The sticky failure, or 0. */
int sqk_tree_err(const struct sqk_tree *t);

/* A new node of the given basic type, not yet in any directory: its id and value. */
int sqk_tree_new(struct sqk_tree *t, unsigned type, sqk_nid *id, struct sqk_node *n);
int sqk_tree_get(struct sqk_tree *t, sqk_nid id, struct sqk_node *n);
int sqk_tree_put(struct sqk_tree *t, sqk_nid id, const struct sqk_node *n);
/* A copy of node id as a new node of its own (no entry, no link): --no-hardlinks. */
int sqk_tree_clone(struct sqk_tree *t, sqk_nid id, sqk_nid *copy);

/* Bytes to the heap (*ref: where), and back (buf: len + 1 bytes, NUL-terminated). */
int sqk_tree_str(struct sqk_tree *t, const char *s, size_t len, uint64_t *ref);
int sqk_tree_str_get(struct sqk_tree *t, uint64_t ref, size_t len, char *buf);

/*
 * Add an entry name -> node to dir. SQK_ERR_EXIST when dir already has
 * that name; SQK_ERR_BADNAME for a name the format refuses
 * (sqk_name_check: "", ".", "..", '/' or NUL, more than 256 bytes). A
 * directory node gets its parent and path here (a directory has one entry).
 */
int sqk_tree_add(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, sqk_nid node);
/* The node dir holds under name into *out, or 0 there when none. */
int sqk_tree_lookup(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, sqk_nid *out);

/*
 * An entry's tag: a number kept with the entry, and spilled with it, for
 * the source that made it (layers mark which layer made each entry); 0
 * when added. sqk_tree_lookup_tag gives node and tag (0 and 0: none);
 * sqk_tree_tag sets it, SQK_ERR_NOENT when dir has no such entry.
 */
int sqk_tree_lookup_tag(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len,
			sqk_nid *out, uint64_t *tag);
int sqk_tree_tag(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, uint64_t tag);
/*
 * Every entry of dir, in the format's order, to fn until it returns
 * non-zero (returned). They are listed first (one directory's listing in
 * memory), so fn may change the tree. SQK_ERR_NOTDIR for a non-directory.
 */
typedef int (*sqk_tree_list_fn)(void *ctx, const char *name, size_t len, sqk_nid node,
				uint64_t tag);
int sqk_tree_list(struct sqk_tree *t, sqk_nid dir, sqk_tree_list_fn fn, void *ctx);
/*
 * Take the entry name out of dir (layers: a whiteout, a path replaced),
 * and for a directory everything under it: each node named loses that
 * link. Nodes stay (their ids are not given again); one no entry names is
 * not written. SQK_ERR_NOENT when dir has no such entry.
 */
int sqk_tree_remove(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len);

/*
 * Walk path (relative to root, '/'-separated, "." and empty components
 * ignored, ".." refused) to its parent directory, making missing parents
 * as implicit directories. On success *parent is the parent and
 * name and len give the last component (len 0 means the root itself).
 */
int sqk_tree_walk_parent(struct sqk_tree *t, const char *path, sqk_nid *parent, const char **name,
			 size_t *len);

/* The image path of dir (no leading '/'), into buf; for messages. */
void sqk_tree_dir_path(struct sqk_tree *t, sqk_nid dir, char *buf, size_t cap);
/* The same for the entry name of dir: "dir/name". */
void sqk_tree_entry_path(struct sqk_tree *t, sqk_nid dir, const char *name, size_t len, char *buf,
			 size_t cap);

/* Nodes made, and bytes of memory the tree holds now. */
uint64_t sqk_tree_nodes(const struct sqk_tree *t);
uint64_t sqk_tree_memory(const struct sqk_tree *t);

/*
 * Every entry in tree order (tree_walk.c): depth first, a directory before
 * what it holds, the names of a directory in the format's order. The root
 * has no entry. A walk may start again as often as needed; no entry is
 * added while one is open.
 */
struct sqk_tree_item {
	const uint8_t *key; /* the path: names joined by NUL */
	uint32_t klen;
	const char *name; /* the last name, inside key */
	uint32_t len;
	unsigned depth; /* 1 for an entry of the root */
	sqk_nid node;
	sqk_nid parent;
};
struct sqk_tree_walk;
int sqk_tree_walk_start(struct sqk_tree *t, struct sqk_tree_walk **w);
/* 0 and *it (valid until the next call), 1 at the end, or an error. */
int sqk_tree_walk_next(struct sqk_tree_walk *w, struct sqk_tree_item *it);
void sqk_tree_walk_end(struct sqk_tree_walk *w);

#endif
