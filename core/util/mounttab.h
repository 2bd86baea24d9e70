/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MOUNTTAB_H
#define SQK_MOUNTTAB_H

/*
 * The mount table (/proc/self/mountinfo), read one mount at a time, in
 * the order the kernel lists them (a mount over another comes after it).
 */

/*
 * Call fn for every mount with its mount point (the table's octal escapes
 * undone), file system type and super options. A non-zero return of fn
 * stops the walk and is returned; SQK_ERR_IO when the table is unreadable.
 */
int sqk_mounts_each(int (*fn)(void *arg, const char *mnt, const char *type, const char *opts),
		    void *arg);

#endif
