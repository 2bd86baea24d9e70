/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_XNODE_H
#define SQK_XNODE_H

/*
 * The extraction's entries, held by a descriptor from the moment they
 * exist. A destination another user can write to (a shared directory, or
 * one an image's world-writable directory left open) lets that user swap
 * a name the extraction has just made for a symlink or a hard link to any
 * file, at any instant. So after the creation nothing goes by the name
 * again: the name is opened once without following (O_PATH|O_NOFOLLOW),
 * the descriptor is checked to be the entry made, and owner, mode, xattrs
 * and times are set through it. The audit of every call the extraction
 * makes on a name is in docs/DESIGN.md ("Extracting into a directory
 * others can write to").
 */
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/*
 * Whose entries the destination's file system makes ours: the euid, or
 * the uid a squashing server gives them, and whether it keeps the modes
 * they are made with (learnt once, from a file made for it), for a file
 * system at a time.
 */
struct sqk_xowner {
	uid_t euid;
	dev_t dev; /* the file system fs_uid and modes_kept were learnt on */
	uid_t fs_uid;
	int modes_kept; /* a file made 0600 shows 0600 (not on vfat and the like) */
	int known;
};

/*
 * Open name under dirfd without following it, and check it is the entry
 * just made there: of type type (S_IFDIR, S_IFLNK, ...), one link (a
 * directory: closed to others, as the extraction makes them, where the
 * file system keeps modes), owned by us, and
 * for a device, of device number rdev. Returns 0 and *fd (an O_PATH
 * descriptor, or for a directory one to read it by); SQK_ERR_IO (errno
 * kept) when it cannot be opened; SQK_ERR_EXIST when something else is
 * there now: *fd is -1 and the entry must be left alone.
 */
int sqk_xnode_hold(struct sqk_xowner *o, int dirfd, const char *name, mode_t type, dev_t rdev,
		   int *fd);

/* The calls on a held entry (fd from sqk_xnode_hold); -1 and errno as theirs. */
int sqk_xnode_chown(int fd, uid_t uid, gid_t gid);
int sqk_xnode_chmod(int fd, mode_t mode);
int sqk_xnode_utimens(int fd, const struct timespec ts[2]);
int sqk_xnode_setxattr(int fd, const char *name, const void *value, size_t len);

/* Remove name under dirfd and everything below it, following no symlink: 0 or -1 (errno). */
int sqk_xnode_remove(int dirfd, const char *name);
/* Remove everything in the directory open as fd, following no symlink: 0 or -1 (errno). */
int sqk_xnode_empty(int fd);

#endif
