// SPDX-License-Identifier: BSD-2-Clause
/*
 * Requests counted by kind as they arrive from the kernel, before libfuse
 * sees them: those it answers by itself (init, interrupt, and ENOSYS for
 * an operation we do not have, such as ioctl) are counted too. Every
 * request that reaches the daemon is a round trip the kernel's own
 * squashfs never makes, so these counts show what is left to remove.
 */
#include <linux/fuse.h>
#include <stdint.h>

#include "serve_int.h"

enum {
	K_INIT,
	K_LOOKUP,
	K_FORGET,
	K_GETATTR,
	K_READLINK,
	K_OPEN,
	K_READ,
	K_RELEASE,
	K_OPENDIR,
	K_READDIR,
	K_READDIRPLUS,
	K_RELEASEDIR,
	K_STATFS,
	K_GETXATTR,
	K_LISTXATTR,
	K_ACCESS,
	K_FLUSH,
	K_IOCTL,
	K_POLL,
	K_LSEEK,
	K_INTERRUPT,
	K_OTHER,
	K_COUNT
};

static const char *const names[K_COUNT] = {
	[K_INIT] = "init",
	[K_LOOKUP] = "lookup",
	[K_FORGET] = "forget",
	[K_GETATTR] = "getattr",
	[K_READLINK] = "readlink",
	[K_OPEN] = "open",
	[K_READ] = "read",
	[K_RELEASE] = "release",
	[K_OPENDIR] = "opendir",
	[K_READDIR] = "readdir",
	[K_READDIRPLUS] = "readdirplus",
	[K_RELEASEDIR] = "releasedir",
	[K_STATFS] = "statfs",
	[K_GETXATTR] = "getxattr",
	[K_LISTXATTR] = "listxattr",
	[K_ACCESS] = "access",
	[K_FLUSH] = "flush",
	[K_IOCTL] = "ioctl",
	[K_POLL] = "poll",
	[K_LSEEK] = "lseek",
	[K_INTERRUPT] = "interrupt",
	[K_OTHER] = "other",
};

_Static_assert(K_COUNT <= SQK_SERVE_KINDS, "every kind has a counter");

static unsigned kind_of(uint32_t opcode)
{
	switch (opcode) {
	case FUSE_INIT:
		return K_INIT;
	case FUSE_LOOKUP:
		return K_LOOKUP;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
		return K_FORGET;
	case FUSE_GETATTR:
		return K_GETATTR;
	case FUSE_READLINK:
		return K_READLINK;
	case FUSE_OPEN:
		return K_OPEN;
	case FUSE_READ:
		return K_READ;
	case FUSE_RELEASE:
		return K_RELEASE;
	case FUSE_OPENDIR:
		return K_OPENDIR;
	case FUSE_READDIR:
		return K_READDIR;
	case FUSE_READDIRPLUS:
		return K_READDIRPLUS;
	case FUSE_RELEASEDIR:
		return K_RELEASEDIR;
	case FUSE_STATFS:
		return K_STATFS;
	case FUSE_GETXATTR:
		return K_GETXATTR;
	case FUSE_LISTXATTR:
		return K_LISTXATTR;
	case FUSE_ACCESS:
		return K_ACCESS;
	case FUSE_FLUSH:
		return K_FLUSH;
	case FUSE_IOCTL:
		return K_IOCTL;
	case FUSE_POLL:
		return K_POLL;
	case FUSE_LSEEK:
		return K_LSEEK;
	case FUSE_INTERRUPT:
		return K_INTERRUPT;
	default:
		return K_OTHER;
	}
}

int sqk_serve_count(uint64_t *counts, const void *request, size_t len)
{
	const struct fuse_in_header *in = request;
	unsigned k;

	if (len < sizeof(*in))
		return 0;
	k = kind_of(in->opcode);
	__atomic_add_fetch(&counts[k], 1, __ATOMIC_RELAXED);
	return k == K_FORGET;
}

const char *sqk_serve_kind_name(unsigned kind)
{
	return kind < K_COUNT ? names[kind] : NULL;
}
