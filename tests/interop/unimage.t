#!/bin/sh
# unimage against unsquashfs: images that Debian's mksquashfs writes with every
# compressor and the options that change the layout, extracted by unsquashfs
# and by squashkit, must give the same tree; so must squashkit's tar archive
# extracted by GNU tar.
#
# What the comparison leaves out, and why:
# - holes, in the unsquashfs comparison: unsquashfs writes a hole for a
#   zero-size ("sparse") block only in an extended file inode with a non-zero
#   sparse count, and zeros elsewhere (mksquashfs writes a basic inode for
#   blocks/zeros-3-blocks). Holes are checked on their own instead: every
#   sparse block of the image must be a hole, every other block data, as the
#   block lists that rdsquashfs prints say.
# - the root entry and sockets, in the tar comparison: a tar archive has no
#   socket type, and the extraction directory is made by the test.
# Everything else (type, mode with setuid/setgid/sticky, owners, mtimes of
# directories and symlinks, contents, hard links, symlink targets, devices,
# xattrs of every namespace, the root's attributes) is compared exactly.

# Thousands of small files are made and removed again and again: on tmpfs this
# runs many times faster than on a disk. Use it when it takes every xattr
# namespace we need (user xattrs on tmpfs need Linux 6.6).
SCRATCH=shm-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs rdsquashfs setfattr tar timeout
. "$SQK_SRCDIR/tests/interop/compare.sh"

tree=$TMP/tree
ref_tree "$tree"

# The same image packed with each compressor, and with the options that
# change the layout (with the compressor varied too).
compressors="gzip lzma lzo xz lz4 zstd"
if [ -n "${SQK_SANITIZED:-}" ]; then
	optsets="
		gzip|-no-fragments
		lz4|-b 4K -Xhc
		gzip|-noI -noD -noF -noX"
else
	optsets="
		gzip|-no-fragments
		zstd|-always-use-fragments
		lz4|-b 4K -Xhc
		xz|-b 1M -Xbcj x86 -Xdict-size 512K
		gzip|-noI -noD -noF -noX
		lzo|-no-xattrs
		gzip|-no-duplicates -Xcompression-level 1 -Xwindow-size 9
		zstd|-no-exports"
fi

# Files whose extents are checked: every file with holes or zero blocks.
HOLE_PATHS="$(cd "$tree" && find blocks sparse -type f | sort)"

# --- the harness itself, with the peers only (in the plain pass) ---

img=$TMP/ref.img
if ! plain_pass; then
	skip "harness: the peers' own checks run in the plain pass"
else
	expect_success "mksquashfs packs the reference tree" \
		peer_image "$img" "$tree" mksquashfs "$tree" "$img" -noappend -quiet -no-progress \
		-comp gzip
	expect_success "unsquashfs extracts it" unsquashfs -q -n -d "$TMP/ref.A" "$img"
	manifest_of "$TMP/ref.A" "$TMP/ref.m"
	manifest_of "$tree" "$TMP/tree.m"
	no_holes <"$TMP/tree.m" >"$TMP/want.m"
	no_holes <"$TMP/ref.m" >"$TMP/got.m"
	same_file "$TMP/want.m" "$TMP/got.m" "harness: unsquashfs gives back the source tree, but for holes"
	unsquashfs -q -n -d "$TMP/ref.A2" "$img" >/dev/null 2>&1
	manifest_of "$TMP/ref.A2" "$TMP/got.m"
	same_file "$TMP/ref.m" "$TMP/got.m" "harness: two unsquashfs runs give the same manifest, holes too"
	rm -rf "$TMP/ref.A2"
	# unsquashfs makes holes for the sparse/ files (extended inodes), so the block
	# list reading must agree with it there.
	sparse_map "$img" | grep '^sparse/' >"$TMP/want.h"
	holes <"$TMP/ref.m" | grep '^sparse/' >"$TMP/got.h"
	same_file "$TMP/want.h" "$TMP/got.h" "harness: block lists predict unsquashfs's holes"
	# GNU tar with these flags restores what a tar archive can hold.
	if command -v sqfs2tar >/dev/null 2>&1 && sqfs2tar "$img" >"$TMP/ref.tar" 2>/dev/null &&
		extract_tar "$TMP/ref.tar" "$TMP/ref.T"; then
		manifest_of "$TMP/ref.T" "$TMP/got.m" --no-root
		no_holes <"$TMP/got.m" >"$TMP/got2.m"
		tar_view <"$TMP/ref.m" | no_holes >"$TMP/want.m"
		same_file "$TMP/want.m" "$TMP/got2.m" \
			"harness: sqfs2tar piped through GNU tar gives the unsquashfs tree"
	else
		skip "sqfs2tar is missing or failed"
	fi
	rm -rf "$TMP/ref.T" "$TMP/ref.tar"
	# The kernel agrees with unsquashfs (it reports no holes).
	mkdir "$TMP/mnt"
	if mount -t squashfs -o loop,ro "$img" "$TMP/mnt" 2>/dev/null; then
		at_exit "umount '$TMP/mnt' 2>/dev/null"
		manifest_of "$TMP/mnt" "$TMP/got.m" --no-holes
		umount "$TMP/mnt"
		no_holes <"$TMP/ref.m" >"$TMP/want.m"
		same_file "$TMP/want.m" "$TMP/got.m" "harness: the kernel's view equals the unsquashfs tree"
	else
		skip "cannot mount squashfs here"
	fi
	rm -rf "$TMP/ref.A" "$img"
fi

# --- unimage against unsquashfs ---

# check NAME COMPRESSOR OPTIONS...: pack, extract with both, compare.
check() {
	name=$1
	comp=$2
	shift 2
	img=$TMP/$name.img
	if ! peer_image "$img" "$tree" mksquashfs "$tree" "$img" -noappend -quiet -no-progress \
		-comp "$comp" "$@" >"$TMP/.mk" 2>&1; then
		ok 1 "$name: mksquashfs packs the tree"
		sed 's/^/#   /' "$TMP/.mk" | head -5
		return
	fi
	ref_extract "$name" "$img" || return
	unimage_vs_ref "$name" "$img"
	unimage_tar_vs_ref "$name" "$img"
	rm -rf "$img" "$TMP/A" "$TMP/B" "$TMP/T" "$TMP/T.tar"
}

for c in $compressors; do
	check "$c" "$c"
done
# (a here-document, not a pipe: the loop must run in this shell to count tests)
while IFS='|' read -r comp opts; do
	[ -n "$comp" ] || continue
	comp=$(echo $comp)
	# shellcheck disable=SC2086 # the options are meant to split
	check "$comp$(echo " $opts" | tr ' ' '_')" "$comp" $opts
done <<EOF
$optsets
EOF

done_testing
