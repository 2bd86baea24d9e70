#!/bin/sh
# api-paths.t: the library's plain path calls take the one PATH rule
# (docs/CLI.md "Paths in an image"), built against the installed library:
# sqk_inode_open() follows a symlink on the way inside the image and not
# the last one (the mode is what the kernel's mount shows with lstat), "/"
# at the end follows it too; 40 symlinks and more is SQK_ERR_LOOP with the
# errno ELOOP; sqk_walk_tree() from a path through symlinks walks what it
# names, under its path in the image.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount

api_cc "$SQK_SRCDIR/tests/api/api-paths.c"

s=$TMP/tree
mkdir -p "$s/d/real/sub"
echo f >"$s/d/real/f"
echo g >"$s/d/real/sub/g"
ln -s d/real "$s/link"
ln -s link "$s/chain"
ln -s loop2 "$s/loop1"
ln -s loop1 "$s/loop2"
"$SQUASHKIT" mkimage -q "$s" "$TMP/img" || {
	echo "Bail out! the image cannot be built"
	exit 1
}
mount -t squashfs -o loop,ro "$TMP/img" "$MNT" 2>/dev/null || skip_all "the kernel cannot mount squashfs"
at_exit "umount '$MNT' 2>/dev/null"

for p in link/f chain/sub/g link link/ chain d/real/sub/../f; do
	want="mode $(printf '%o' 0x"$(stat -c %f "$MNT/$p")")"
	is "$(api_run api-paths "$TMP/img" open "$p")" "$want" \
		"sqk_inode_open $p: what lstat shows in the mount"
done
elooop=$(python3 -c 'import errno; print(errno.ELOOP)' 2>/dev/null || echo 40)
is "$(api_run api-paths "$TMP/img" open loop1/x | cut -d' ' -f1,3)" "error $elooop" \
	"sqk_inode_open through a loop of symlinks: an error, its errno ELOOP"
api_run api-paths "$TMP/img" walk chain/ >"$TMP/walk"
is "$(tr '\n' ' ' <"$TMP/walk")" "/d/real /d/real/f /d/real/sub /d/real/sub/g " \
	"sqk_walk_tree from chain/: what it leads to, under its path in the image"
api_run api-paths "$TMP/img" walk link/sub >"$TMP/walk"
is "$(tr '\n' ' ' <"$TMP/walk")" "/d/real/sub /d/real/sub/g " \
	"sqk_walk_tree from link/sub: through the symlink"

done_testing
