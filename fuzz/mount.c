// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the mount's file-system object, as the FUSE requests drive
 * it. Opens an image from the input bytes with small caches, then walks
 * the tree by node ids as the kernel would: opendir and readdir each
 * directory (at every offset, then some again out of order), look every
 * entry up (readdirplus) and by name (lookup), read files through open
 * handles and through the node's own file, piece by piece, read symlinks
 * and xattrs, statfs; then forgets every lookup. The node table must be
 * back to the root alone: a miscount is a bug the fuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mount/fs.h"
#include "read/image.h"
#include "util/file.h"

/* Work bounds, so that hostile sizes and counts do not time out. */
#define MAX_DIRS    64
#define MAX_ENTRIES 2048
#define FILE_BYTES  (64u * 1024)
#define TOTAL_BYTES (2u * 1024 * 1024)

struct walk {
	struct sqk_fs *fs;
	uint64_t dirs[MAX_DIRS];
	unsigned ndirs;
	uint64_t looked[MAX_ENTRIES]; /* one id per counted lookup */
	unsigned nlooked;
	uint64_t total;
};

static void count(struct walk *w, uint64_t node)
{
	if (w->nlooked < MAX_ENTRIES)
		w->looked[w->nlooked++] = node;
	else
		sqk_fs_forget(w->fs, node, 1);
}

static void read_file(struct walk *w, uint64_t node, const struct stat *st)
{
	static uint8_t buf[16384];
	struct sqk_fs_file *f, *own;
	uint64_t off;

	if (sqk_fs_open(w->fs, node, &f) != 0)
		return;
	for (off = 0; off < (uint64_t)st->st_size && off < FILE_BYTES && w->total < TOTAL_BYTES;) {
		struct sqk_fs_piece p;

		if (sqk_fs_read_piece(w->fs, f, off, 3000, &p) != 0 || p.len == 0)
			break;
		if (p.len > 3000 || p.block_off > off || p.block_len < p.len)
			abort();
		off += p.len;
		w->total += p.len;
		sqk_fs_piece_put(&p);
	}
	sqk_fs_close(f);
	/* The node's own file, at the end and past it. */
	if (sqk_fs_file_of(w->fs, node, &own) == 0 && st->st_size > 0) {
		size_t got;

		sqk_fs_read(w->fs, own, (uint64_t)st->st_size - 1, buf, sizeof(buf), &got);
		sqk_fs_read(w->fs, own, (uint64_t)st->st_size, buf, sizeof(buf), &got);
	}
}

static void other_calls(struct walk *w, uint64_t node, const struct stat *st)
{
	char *names = NULL, *target = NULL;
	uint8_t *value = NULL;
	size_t len, vlen;
	struct stat again;

	if (sqk_fs_getattr(w->fs, node, &again) != 0 || again.st_ino != st->st_ino)
		abort();
	if (S_ISREG(st->st_mode))
		read_file(w, node, st);
	if (S_ISLNK(st->st_mode) && sqk_fs_readlink(w->fs, node, &target) == 0 &&
	    strlen(target) != (size_t)st->st_size)
		abort();
	free(target);
	if (sqk_fs_listxattr(w->fs, node, 1, &names, &len) == 0 && len > 0)
		sqk_fs_getxattr(w->fs, node, names, &value, &vlen);
	free(names);
	free(value);
}

static void walk_dir(struct walk *w, uint64_t dir)
{
	struct sqk_fs_dirent ent;
	struct sqk_fs_dir *d;
	uint64_t off, node;
	struct stat st;
	unsigned i;

	if (sqk_fs_opendir(w->fs, dir, &d) != 0)
		return;
	for (off = 0; off < MAX_ENTRIES && sqk_fs_readdir(w->fs, d, off, &ent) == 1; off++) {
		if (off < 2)
			continue;
		if (sqk_fs_entry_lookup(w->fs, &ent, &node, &st) != 0)
			continue;
		count(w, node);
		if (st.st_ino != ent.number || (st.st_mode & S_IFMT) != ent.type)
			abort();
		other_calls(w, node, &st);
		if (S_ISDIR(st.st_mode)) {
			for (i = 0; i < w->ndirs && w->dirs[i] != node; i++)
				;
			if (i == w->ndirs && w->ndirs < MAX_DIRS)
				w->dirs[w->ndirs++] = node;
		}
		/* The same name looked up as the kernel does it. */
		if (sqk_fs_lookup(w->fs, dir, ent.name, &node, &st) == 0)
			count(w, node);
	}
	/* Offsets again, backwards: each names what it named before or fails. */
	while (off-- > 0)
		sqk_fs_readdir(w->fs, d, off, &ent);
	sqk_fs_closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sqk_image_opts o;
	struct sqk_image *img;
	struct sqk_file *f;
	struct statvfs sv;
	struct walk w;
	struct sqk_fs_dir *own;
	unsigned i;

	f = sqk_file_mem(data, size);
	if (!f)
		return 0;
	sqk_image_opts_default(&o);
	o.stall_ms = 100;
	if (sqk_image_open(f, &o, &img) != 0)
		return 0;
	memset(&w, 0, sizeof(w));
	if (sqk_fs_create(img, &w.fs) != 0) {
		sqk_image_destroy(img);
		return 0;
	}
	sqk_fs_statfs(w.fs, &sv);
	w.dirs[w.ndirs++] = SQK_FS_ROOT;
	for (i = 0; i < w.ndirs; i++)
		walk_dir(&w, w.dirs[i]);
	if (sqk_fs_dir_of(w.fs, SQK_FS_ROOT, &own) == 0) {
		struct sqk_fs_dirent ent;

		sqk_fs_readdir(w.fs, own, 2, &ent);
	}
	for (i = 0; i < w.nlooked; i++)
		sqk_fs_forget(w.fs, w.looked[i], 1);
	if (sqk_fs_nodes(w.fs) != 1)
		abort();
	sqk_fs_destroy(w.fs);
	sqk_image_destroy(img);
	return 0;
}
