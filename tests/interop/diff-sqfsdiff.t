#!/bin/sh
# squashkit diff against sqfsdiff (squashfs-tools-ng) on pairs of images made
# by mksquashfs, each pair differing in one way. Where sqfsdiff sees the
# change, both give the same exit status and name the same set of paths.
# Where sqfsdiff does not see it, or sees it differently, the case says why
# and what squashkit diff must say instead:
#   - xattrs: sqfsdiff does not compare them (exit 0); diff exits 1 naming the
#     path.
#   - a symlink's target: sqfsdiff prints it but exits 0; diff exits 1.
#   - a directory that became a file: sqfsdiff names the directory only; diff
#     also names what was below it ("- path"), as both do for a removed
#     directory.
#   - a hard-link group split: sqfsdiff sees only that the two files' inodes
#     became basic ("has a basic type"); diff names the entry that left the
#     group and, in the same line, the one it was linked with.
#   - sparse against dense with equal bytes: sqfsdiff finds the contents
#     equal but exits 1 as the inode became basic; diff exits 0.
SCRATCH=shm-user-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd sqfsdiff mksquashfs

# --- the base tree: every kind of entry the cases change ---
base=$TMP/base
mkdir -p "$base/dir" "$base/tree/sub"
printf 'small file\n' >"$base/file"
# Five 4 KiB blocks and a tail: the change lands in the third block.
awk 'BEGIN { for (i = 0; i < 1900; i++) printf "line %05d of a file of blocks\n", i }' \
	>"$base/blocks"
printf 'inner\n' >"$base/dir/inner"
printf 'leaf\n' >"$base/tree/sub/leaf"
ln -s file "$base/link"
printf 'linked\n' >"$base/hl1"
ln "$base/hl1" "$base/hl2"
truncate -s 16384 "$base/sparse"
printf 'end\n' >>"$base/sparse"
DEVS='dev c 644 0 0 1 3'

# mk SRC IMG [mksquashfs options]: the image, with the devices of $DEVS.
mk() {
	src=$1 img=$2
	shift 2
	mksquashfs "$src" "$img" -noappend -quiet -no-progress -b 4K -p "$DEVS" "$@" \
		>"$TMP/mks.err" 2>&1 || {
		echo "Bail out! mksquashfs failed: $(head -1 "$TMP/mks.err")"
		exit 1
	}
}
A=$TMP/a.img
mk "$base" "$A"

# variant NAME: a copy of the base tree to change, in $TMP/NAME.
variant() {
	rm -rf "$TMP/$1"
	cp -a "$base" "$TMP/$1"
}

# The paths a report names, sorted: sqfsdiff's ("< d/x", "> y", "/f has ...",
# "regular file /f differs") and squashkit diff's (the second field).
sq_paths() {
	awk '/^[<>] / { print "/" substr($0, 3); next }
	{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) { print $i; break } }' "$1" | sort -u
}
our_paths() {
	awk '{ p = $2; sub(/:$/, "", p); print p }' "$1" | sort -u
}

# run IMG_B [squashkit diff options] -- [sqfsdiff options]: both tools on
# $A and IMG_B; statuses in $st_sq and $st_us, reports in $TMP/sq and $TMP/us.
run() {
	b=$1
	shift
	us_opts=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		us_opts="$us_opts $1"
		shift
	done
	[ $# -gt 0 ] && shift
	sqfsdiff "$@" -a "$A" -b "$b" >"$TMP/sq" 2>"$TMP/sq.err"
	st_sq=$?
	# shellcheck disable=SC2086
	"$SQUASHKIT" diff $us_opts "$A" "$b" >"$TMP/us" 2>"$TMP/us.err"
	st_us=$?
}

# agree NAME IMG_B [options as run]: same status (1), same paths.
agree() {
	name=$1
	shift
	run "$@"
	is "$st_us:$st_sq" "1:1" "$name: both exit 1"
	if [ "$(sq_paths "$TMP/sq")" = "$(our_paths "$TMP/us")" ] && [ -s "$TMP/us" ]; then
		ok 0 "$name: the same paths ($(our_paths "$TMP/us" | tr '\n' ' '))"
	else
		ok 1 "$name: the same paths"
		sed 's/^/#   sqfsdiff: /' "$TMP/sq"
		sed 's/^/#   squashkit: /' "$TMP/us" "$TMP/us.err"
	fi
}

# The base against itself, rebuilt: nothing differs for either.
mk "$base" "$TMP/same.img"
run "$TMP/same.img"
is "$st_us:$st_sq" "0:0" "a rebuild of the same tree: both exit 0"
is "$(cat "$TMP/us")" "" "a rebuild of the same tree: diff prints nothing"

variant added
printf 'new\n' >"$TMP/added/dir/new"
mkdir "$TMP/added/newdir"
printf 'x\n' >"$TMP/added/newdir/x"
mk "$TMP/added" "$TMP/added.img"
agree "entries added" "$TMP/added.img"
grep -qx '+ /newdir/x' "$TMP/us"
ok $? "entries added: a line '+ /newdir/x' for what is inside a new directory"

variant removed
rm -r "$TMP/removed/dir"
mk "$TMP/removed" "$TMP/removed.img"
agree "entries removed" "$TMP/removed.img"

variant mode
chmod 600 "$TMP/mode/file"
mk "$TMP/mode" "$TMP/mode.img"
agree "mode" "$TMP/mode.img"
grep -qx 'M /file: mode 0644 -> 0600' "$TMP/us"
ok $? "mode: the line says both modes"

# Owners by a pseudo definition: no root needed.
mk "$base" "$TMP/owner.img" -p 'file m 644 5 6'
agree "owner" "$TMP/owner.img"
grep -qx "O /file: owner $(id -u):$(id -g) -> 5:6" "$TMP/us"
ok $? "owner: the line says both owners"

variant mtime
touch -d '2001-02-03 04:05:06 UTC' "$TMP/mtime/file"
mk "$TMP/mtime" "$TMP/mtime.img"
run "$TMP/mtime.img"
is "$st_us:$st_sq" "0:0" "mtime: without -T neither compares times"
agree "mtime, with -T (sqfsdiff -T)" "$TMP/mtime.img" -T -- -T
grep -q '^D /file: mtime .* -> 2001-02-03 04:05:06$' "$TMP/us"
ok $? "mtime: the line says the new time in UTC"

variant contents
printf 'X' | dd of="$TMP/contents/blocks" bs=1 seek=10000 conv=notrunc 2>/dev/null
mk "$TMP/contents" "$TMP/contents.img"
agree "contents in a middle block" "$TMP/contents.img"
grep -qx 'C /blocks: contents differ from byte 10000' "$TMP/us"
ok $? "contents: the first byte that differs is named"

# The same bytes, the zeros stored as blocks instead of holes. sqfsdiff
# finds the contents equal but reports that the inode became basic (a dense
# file needs no sparse count): layout, not a difference a mount shows.
mk "$base" "$TMP/dense.img" -no-sparse
run "$TMP/dense.img"
is "$st_us" 0 "sparse against dense with equal bytes: diff exits 0"
is "$(cat "$TMP/sq")" "/sparse has a basic type" \
	"sparse against dense: sqfsdiff finds the contents equal (it reports only the inode's type)"

variant link
ln -sfn dir "$TMP/link/link"
mk "$TMP/link" "$TMP/link.img"
run "$TMP/link.img"
is "$st_sq" 0 "symlink target: sqfsdiff exits 0 though it prints the change (its status is wrong)"
grep -q '/link' "$TMP/sq"
ok $? "symlink target: sqfsdiff names /link"
is "$st_us" 1 "symlink target: diff exits 1"
is "$(cat "$TMP/us")" "L /link: target file -> dir" "symlink target: diff names it, both targets"

DEVS='dev c 644 0 0 1 5' mk "$base" "$TMP/dev.img"
agree "device number" "$TMP/dev.img"
grep -qx 'R /dev: device 1,3 -> 1,5' "$TMP/us"
ok $? "device number: the line says both"

variant type
rm -r "$TMP/type/tree"
printf 'now a file\n' >"$TMP/type/tree"
mk "$TMP/type" "$TMP/type.img"
run "$TMP/type.img"
is "$st_us:$st_sq" "1:1" "type changed: both exit 1"
is "$(sq_paths "$TMP/sq" | tr '\n' ' ')" "/tree " "type changed: sqfsdiff names the directory only"
is "$(cat "$TMP/us" | tr '\n' '|')" \
	"T /tree: type directory -> file|- /tree/sub|- /tree/sub/leaf|" \
	"type changed: diff names it, and what went with the directory"

variant split
rm "$TMP/split/hl2"
cp -p "$TMP/split/hl1" "$TMP/split/hl2"
mk "$TMP/split" "$TMP/split.img"
run "$TMP/split.img"
is "$st_us:$st_sq" "1:1" "hard-link group split: both exit 1"
is "$(cat "$TMP/us")" "H /hl2: hard link /hl1 -> none" \
	"hard-link group split: diff names the entry that left and the one it was linked with"
# sqfsdiff names both files (their inodes became basic): the line names both too.
named=$(sed 's/: hard link / /; s/ -> .*//' "$TMP/us" | tr ' ' '\n' | grep '^/' | sort -u)
is "$(echo "$named" | tr '\n' ' ')" "$(sq_paths "$TMP/sq" | tr '\n' ' ')" \
	"hard-link group split: the paths sqfsdiff names are the ones the line names"

# xattrs: sqfsdiff does not compare them.
variant xattr
if setfattr -n user.note -v one "$TMP/xattr/file" 2>/dev/null; then
	cp -a "$TMP/xattr" "$TMP/xattr2"
	setfattr -n user.note -v two "$TMP/xattr2/file"
	mk "$TMP/xattr" "$TMP/xattr.img" -xattrs
	mk "$TMP/xattr2" "$TMP/xattr2.img" -xattrs
	A=$TMP/xattr.img
	run "$TMP/xattr2.img"
	is "$st_sq" 0 "xattr value: sqfsdiff exits 0 (it does not compare xattrs)"
	is "$st_us" 1 "xattr value: diff exits 1"
	is "$(cat "$TMP/us")" 'X /file: xattr user.note "one" -> "two"' \
		"xattr value: diff names the path, the attribute and both values"
	A=$TMP/a.img
	run "$TMP/xattr.img"
	is "$st_us" 1 "xattr added: diff exits 1 (sqfsdiff: $st_sq)"
	is "$(cat "$TMP/us")" 'X /file: xattr user.note none -> "one"' "xattr added: diff names it"
else
	skip "the scratch directory takes no user xattrs"
fi

done_testing
