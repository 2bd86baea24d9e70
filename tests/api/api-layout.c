// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-layout IMAGE: where the inodes of IMAGE lie, through the public API
 * (sqk_inode_open_lstat, sqk_inode_layout, sqk_inode_blocks, sqk_dirent_open), for the tree
 * api-layout.t builds: /f (blocks, a hole, a tail, an xattr), /g (none of
 * those), /d (a directory), /l (a symlink to d). Prints what the test
 * compares with the tree and the kernel's mount; the facts that can be
 * checked inside the image alone (each block starts where the one before
 * ends, a reference rebuilt from the position opens the same inode) are
 * checked here. Exits 1 when a call fails or a check does not hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

static struct sqk_image *img;

static void die(const char *what)
{
	fprintf(stderr, "api-layout: %s: %s\n", what, sqk_error_message());
	exit(1);
}

static struct sqk_inode *open_lstat(const char *path, struct sqk_stat *st,
				    struct sqk_inode_layout *l)
{
	struct sqk_inode *ino;

	if (sqk_inode_open_lstat(img, path, &ino))
		die(path);
	sqk_inode_stat(ino, st);
	if (sqk_inode_layout(img, ino, l))
		die(path);
	return ino;
}

/* The position names the inode: a reference made from it opens the same one. */
static void check_position(const char *path, const struct sqk_stat *st,
			   const struct sqk_inode_layout *l)
{
	struct sqk_inode *again;
	struct sqk_stat st2;

	if (sqk_inode_open_ref(img, l->inode_block << 16 | l->inode_offset, &again))
		die(path);
	sqk_inode_stat(again, &st2);
	if (st2.ino != st->ino || st2.ref != st->ref) {
		fprintf(stderr, "api-layout: %s: the position opens inode %u\n", path, st2.ino);
		exit(1);
	}
	sqk_inode_destroy(again);
}

static void file(const char *path)
{
	struct sqk_inode_layout l;
	struct sqk_block *b;
	struct sqk_stat st;
	struct sqk_inode *ino = open_lstat(path, &st, &l);
	int n = sqk_inode_blocks(ino, NULL, 0), i, holes = 0;
	uint64_t pos = l.blocks_start;

	check_position(path, &st, &l);
	b = calloc(n ? n : 1, sizeof(*b));
	if (n < 0 || (uint32_t)n != st.blocks || !b || sqk_inode_blocks(ino, b, n) != n)
		die(path);
	for (i = 0; i < n; i++) {
		if (b[i].start != pos || (!b[i].size && b[i].compressed)) {
			fprintf(stderr, "api-layout: %s: block %d at %llu, not %llu\n", path, i,
				(unsigned long long)b[i].start, (unsigned long long)pos);
			exit(1);
		}
		holes += !b[i].size;
		pos += b[i].size;
	}
	printf("%s blocks %d holes %d sparse %llu tail %u fragment %s xattr %s mounted %llu\n",
	       path, n, holes, (unsigned long long)l.sparse_bytes, l.tail,
	       l.fragment == UINT32_MAX ? "none" : "yes",
	       l.xattr_index == UINT32_MAX ? "none" : "yes", (unsigned long long)l.size_mounted);
	free(b);
	sqk_inode_destroy(ino);
}

int main(int argc, char **argv)
{
	struct sqk_inode_layout l, lr;
	struct sqk_stat st, root;
	struct sqk_inode *ino;

	if (argc != 2)
		return 2;
	if (sqk_image_open_path(argv[1], NULL, &img))
		die(argv[1]);
	file("/f");
	file("/g");

	sqk_inode_destroy(open_lstat("/", &root, &lr));
	ino = open_lstat("/d", &st, &l);
	check_position("/d", &st, &l);
	printf("/d mounted %llu parent-is-root %d blocks-of-a-dir %s\n",
	       (unsigned long long)l.size_mounted, l.parent == root.ino,
	       sqk_inode_blocks(ino, NULL, 0) == SQK_ERR_ARG ? "refused" : "given");
	sqk_inode_destroy(ino);

	/* The entries of /d open as what they say; an entry that says otherwise is refused. */
	ino = open_lstat("/d", &st, &l);
	{
		struct sqk_dir *d;
		struct sqk_dirent e, liar;
		struct sqk_inode *sub;
		int r, n = 0;

		if (sqk_dir_open(img, ino, &d))
			die("/d");
		while ((r = sqk_dir_next(d, &e)) == 1) {
			struct sqk_stat sst;

			if (sqk_dirent_open(img, &e, &sub))
				die(e.name);
			sqk_inode_stat(sub, &sst);
			n += sst.ino == e.ino && (sst.mode & S_IFMT) == e.type;
			sqk_inode_destroy(sub);
			liar = e;
		}
		sqk_dir_destroy(d);
		if (r < 0)
			die("/d listing");
		liar.type = S_IFDIR;
		printf("/d entries %d liar %s\n", n,
		       sqk_dirent_open(img, &liar, &sub) == SQK_ERR_CORRUPT ? "refused" : "opened");
	}
	sqk_inode_destroy(ino);

	/* lstat(2): the last symlink is not followed, unless the path ends with "/". */
	sqk_inode_destroy(open_lstat("/l", &st, &l));
	printf("/l %s\n", S_ISLNK(st.mode) ? "symlink" : "other");
	sqk_inode_destroy(open_lstat("/l/", &st, &l));
	printf("/l/ %s\n", S_ISDIR(st.mode) ? "directory" : "other");
	sqk_inode_destroy(open_lstat("/l/e", &st, &l));
	printf("/l/e %s\n", S_ISREG(st.mode) ? "file" : "other");
	if (sqk_inode_open_lstat(img, "/l/missing", &ino) != SQK_ERR_NOENT)
		die("/l/missing opens");
	printf("/l/missing %s\n", sqk_error_message());
	sqk_image_destroy(img);
	return 0;
}
