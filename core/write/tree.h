/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TREE_H
#define SQK_TREE_H

/*
 * The writer's in-memory tree. Every source (directory walk, archive,
 * listing) adds nodes here; the writer then numbers and writes them.
 * A directory keeps its entries in an array, sorted once by raw bytes of
 * the name (the order the format requires). A node is shared by every
 * entry that hard-links it. Nodes and names live in an arena: memory grows
 * with the number of entries, never with the bytes of file data.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_xattr_set;
struct sqk_file_data;

struct sqk_tree_entry {
	const char *name;
	uint32_t len;
	struct sqk_node *node;
};

enum {
	SQK_NODE_IMPLICIT = 0x01, /* directory made for a path's parent, attributes not seen */
	SQK_NODE_NUMBERED = 0x02,
	SQK_NODE_DATA_DONE = 0x04, /* file data already placed (archives) */
	SQK_NODE_KEPT = 0x08,	   /* from the image appended to: attributes as they are */
	SQK_NODE_ON_PATH = 0x10,   /* a directory on the way to a --full-paths source */
};

struct sqk_node {
	uint8_t type;  /* basic inode type, SQK_DIR..SQK_SOCKET */
	uint8_t flags; /* SQK_NODE_* */
	uint16_t mode; /* permission bits only (07777) */
	uint32_t uid, gid;
	uint32_t mtime;
	uint32_t nlink;	 /* entries that name this node (non-directories) */
	uint32_t number; /* inode number, once numbered */
	uint64_t ref;	 /* inode reference once written */
	uint64_t size;	 /* file size */
	struct sqk_xattr_set *xattrs;
	union {
		struct {
			struct sqk_tree_entry *ents;
			uint32_t n, cap;
			uint32_t nsubdirs;
			struct sqk_node *parent;
			const char *name; /* its own name, for messages */
			uint32_t namelen;
		} dir;
		struct {
			const char *src; /* host path to read, or NULL (empty or placed) */
			struct sqk_file_data *data;
			uint64_t key; /* --reuse: its path's key (reuse.h), 0 until known */
		} file;
		const char *target; /* symlink */
		struct {
			uint32_t major, minor;
		} dev;
	};
};

struct sqk_tree;

struct sqk_tree *sqk_tree_create(void);
void sqk_tree_destroy(struct sqk_tree *t);
struct sqk_node *sqk_tree_root(struct sqk_tree *t);

/* Arena allocations, freed with the tree. */
void *sqk_tree_alloc(struct sqk_tree *t, size_t len);
const char *sqk_tree_strdup(struct sqk_tree *t, const char *s, size_t len);

/* A new node of the given basic type, not yet in any directory. */
struct sqk_node *sqk_tree_node(struct sqk_tree *t, unsigned type);

/*
 * Add an entry name -> node to dir. SQK_ERR_EXIST when dir already has
 * that name; SQK_ERR_BADNAME for a name the format refuses
 * (sqk_name_check: "", ".", "..", '/' or NUL, more than 256 bytes).
 */
int sqk_tree_add(struct sqk_tree *t, struct sqk_node *dir, const char *name, size_t len,
		 struct sqk_node *node);
/* The node dir holds under name, or NULL. */
struct sqk_node *sqk_tree_lookup(struct sqk_tree *t, struct sqk_node *dir, const char *name,
				 size_t len);
/*
 * The name of dir's entry name as the tree keeps it, or NULL: the same
 * pointer for as long as the entry lives, and no other entry's, so it
 * stands for the entry (layers mark which layer made each).
 */
const char *sqk_tree_entry_name(struct sqk_tree *t, struct sqk_node *dir, const char *name,
				size_t len);
/*
 * Take the entry name out of dir (layers: a whiteout, a path replaced):
 * its node loses a link, and a directory with everything under it is no
 * longer reached (the arena keeps their memory). SQK_ERR_NOENT when dir
 * has no such entry.
 */
int sqk_tree_remove(struct sqk_tree *t, struct sqk_node *dir, const char *name, size_t len);

/*
 * Walk path (relative to root, '/'-separated, "." and empty components
 * ignored, ".." refused) to its parent directory, making missing parents
 * as implicit directories. On success *parent is the parent and
 * name and len give the last component (len 0 means the root itself).
 */
int sqk_tree_walk_parent(struct sqk_tree *t, const char *path, struct sqk_node **parent,
			 const char **name, size_t *len);

/* The image path of dir (no leading '/'), into buf; for messages. */
void sqk_tree_dir_path(const struct sqk_node *dir, char *buf, size_t cap);

/* Sort every directory's entries in the format's order (sqk_name_cmp). */
void sqk_tree_sort(struct sqk_tree *t);

/*
 * Number the inodes: depth first, children before their directory, root
 * last. Fills the array of nodes by inode number (index ino - 1) and
 * counts links and subdirectories. Call after sqk_tree_sort.
 */
int sqk_tree_number(struct sqk_tree *t, struct sqk_node ***order, uint32_t *count);

#endif
