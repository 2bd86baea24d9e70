/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DIRSTACK_H
#define SQK_DIRSTACK_H

/*
 * The directories an extraction has open, from the destination's root down
 * to the one being filled: a level each. Only the deepest levels keep a
 * descriptor, so that a tree thousands of levels deep does not use up the
 * process's descriptors; a level whose descriptor was closed is opened again,
 * by name from the levels above it (never following a symlink), when the
 * walk comes back up to it.
 */
struct sqk_dirstack_level;

struct sqk_dirstack {
	int root_fd;			   /* the destination: level 1 is a dup of it */
	struct sqk_dirstack_level *levels; /* [1..depth] */
	size_t cap;
	unsigned depth;
};

/*
 * Enter a directory: fd is its descriptor (the stack owns it now), name its
 * name in the level above (NULL for the root); setgid: new entries take its
 * group; owner_ok: it was made with the owner it must have.
 */
int sqk_dirstack_push(struct sqk_dirstack *s, int fd, const char *name, int setgid, int owner_ok);
/*
 * Leave the deepest level; *fd is its descriptor, the caller's to close.
 * SQK_ERR_EXIST: the level above, opened again, is not the directory it was.
 */
int sqk_dirstack_pop(struct sqk_dirstack *s, int *fd, int *owner_ok);
/* The deepest level's descriptor, and whether new entries take its group. */
int sqk_dirstack_fd(const struct sqk_dirstack *s);
int sqk_dirstack_setgid(const struct sqk_dirstack *s);
/* Close every level and free the stack. */
void sqk_dirstack_release(struct sqk_dirstack *s);

#endif
