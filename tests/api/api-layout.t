#!/bin/sh
# api-layout.t: sqk_inode_open_lstat, sqk_inode_layout, sqk_inode_blocks
# and sqk_dirent_open (tests/api/api-layout.c, against the installed
# library) on an image mksquashfs builds from a tree made here: the block
# count, holes, sparse bytes and tail (packed, -tailends) of a file are the
# ones the tree was made with, a directory's size is the one the kernel's
# mount reports, a path is resolved as lstat(2) resolves it, and an entry
# opens as the inode it says.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd mksquashfs setfattr
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount

api_cc "$SQK_SRCDIR/tests/api/api-layout.c"

# /f: a block of data, a block of zeros (a hole), a block of data, 100 bytes of tail.
S=$TMP/src
mkdir -p "$S/d"
head -c 4096 /dev/urandom >"$S/f"
head -c 4096 /dev/zero >>"$S/f"
head -c 4196 /dev/urandom >>"$S/f"
setfattr -n user.note -v here "$S/f"
printf 'small\n' >"$S/g"
printf 'e\n' >"$S/d/e"
: >"$S/d/empty"
ln -s d "$S/l"
mksquashfs "$S" "$TMP/img" -b 4096 -tailends -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs the tree"

api_run api-layout "$TMP/img" >"$TMP/out" 2>"$TMP/err"
ok $? "api-layout reads every inode and its checks hold"
sed 's/^/#   /' "$TMP/err"
mount -t squashfs -o loop,ro "$TMP/img" "$MNT"
dsize=$(stat -c %s "$MNT/d")
umount "$MNT"
is "$(grep '^/f ' "$TMP/out")" "/f blocks 3 holes 1 sparse 4096 tail 100 fragment yes xattr yes mounted $((3 * 4096 + 100))" \
	"a file: three blocks, one a hole of 4096 bytes, a tail of 100, its xattr"
is "$(grep '^/g ' "$TMP/out")" "/g blocks 0 holes 0 sparse 0 tail 6 fragment yes xattr none mounted 6" \
	"a small file: its tail alone, no xattr"
is "$(grep '^/d mounted' "$TMP/out")" "/d mounted $dsize parent-is-root 1 blocks-of-a-dir refused" \
	"a directory: the size the kernel reports, the root its parent, no block list"
is "$(grep '^/d entries' "$TMP/out")" "/d entries 2 liar refused" \
	"sqk_dirent_open: each entry opens as what it says; one that says another type is refused"
is "$(grep '^/l ' "$TMP/out")" "/l symlink" "the last symlink is not followed"
is "$(grep '^/l/ ' "$TMP/out")" "/l/ directory" "unless the path ends with a slash"
is "$(grep '^/l/e ' "$TMP/out")" "/l/e file" "a symlink on the way is followed"
is "$(grep '^/l/missing ' "$TMP/out")" "/l/missing /l/missing: no such file or directory in the image" \
	"a missing path: the path and the code's words"

done_testing
