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
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"

tree=$TMP/tree
if ! sh "$SQK_SRCDIR/tests/interop/mktree.sh" "$tree" 2>"$TMP/mktree.err"; then
	echo "Bail out! mktree.sh failed: $(head -1 "$TMP/mktree.err")"
	exit 1
fi

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
sparse_paths="$(cd "$tree" && find blocks sparse -type f | sort)"

sqk() {
	timeout 300 "$SQUASHKIT" "$@"
}

# manifest_of DIR OUT FLAGS...: DIR's manifest, or a line saying what went wrong.
manifest_of() {
	dir=$1
	out=$2
	shift 2
	if [ -d "$dir" ]; then
		"$MANIFEST" "$@" "$dir" >"$out" 2>&1 || echo "manifest failed" >>"$out"
	else
		echo "$dir: was not created" >"$out"
	fi
}

# no_holes < MANIFEST: the manifest without data extents.
no_holes() {
	sed 's/ data=[^ ]*//'
}

# tar_view < MANIFEST: what a tar archive can hold: no root entry, no sockets.
tar_view() {
	awk '$1 != "." && $2 != "sock"'
}

# holes < MANIFEST: "PATH data=EXTENTS" for $sparse_paths.
holes() {
	awk -v list="$sparse_paths" '
		BEGIN { n = split(list, p, "\n"); for (i = 1; i <= n; i++) want[p[i]] = 1 }
		$1 in want { for (i = 3; i <= NF; i++) if ($i ~ /^data=/) print $1, $i }'
}

# same_tree DESC DIR1 DIR2 FLAGS...: both trees have the same manifest.
same_tree() {
	desc=$1
	d1=$2
	d2=$3
	shift 3
	manifest_of "$d1" "$TMP/1.m" "$@"
	manifest_of "$d2" "$TMP/2.m" "$@"
	same_file "$TMP/1.m" "$TMP/2.m" "$desc"
}

# sparse_map IMG: "PATH data=EXTENTS" for $sparse_paths, as the image's block
# lists say an extraction must look: a zero-size block is a hole, any other
# block and the fragment tail are data.
sparse_map() {
	bs=$(unsquashfs -s "$1" | awk '/^Block size/ { print $3 }')
	for p in $sparse_paths; do
		printf '%s data=' "$p"
		rdsquashfs -s "/$p" "$1" | awk -v bs="$bs" '
			/^File size:/ { size = $3 }
			/^Fragment index:/ { frag = ($3 != "0xFFFFFFFF") }
			/^\tBlock #/ { len[n++] = $4 }
			function emit() {
				out = out sep start "+" (last - start)
				sep = ","
				start = -1
			}
			END {
				start = -1
				for (i = 0; i < n; i++) {
					stop = (i + 1) * bs
					if (stop > size)
						stop = size
					if (len[i] == 0) {
						if (start >= 0)
							emit()
						continue
					}
					if (start < 0)
						start = i * bs
					last = stop
				}
				if (frag && n * bs < size) {
					if (start < 0)
						start = n * bs
					last = size
				}
				if (start >= 0)
					emit()
				print out == "" ? "-" : out
			}'
	done
}

# extract_tar ARCHIVE DIR: GNU tar restores everything it can.
extract_tar() {
	mkdir "$2" && tar -C "$2" -x --xattrs --xattrs-include='*' --numeric-owner -p \
		--warning=no-timestamp -f "$1"
}

# --- the harness itself, with the peers only ---

img=$TMP/ref.img
expect_success "mksquashfs packs the reference tree" \
	mksquashfs "$tree" "$img" -quiet -no-progress -comp gzip
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

# --- unimage against unsquashfs ---

# check NAME COMPRESSOR OPTIONS...: pack, extract with both, compare.
check() {
	name=$1
	comp=$2
	shift 2
	img=$TMP/$name.img
	if ! mksquashfs "$tree" "$img" -quiet -no-progress -comp "$comp" "$@" \
		>"$TMP/.mk" 2>&1; then
		ok 1 "$name: mksquashfs packs the tree"
		sed 's/^/#   /' "$TMP/.mk" | head -5
		return
	fi
	if ! unsquashfs -q -n -d "$TMP/A" "$img" >"$TMP/.un" 2>&1; then
		ok 1 "$name: unsquashfs extracts the image"
		sed 's/^/#   /' "$TMP/.un" | head -5
		return
	fi
	manifest_of "$TMP/A" "$TMP/A.m"
	no_holes <"$TMP/A.m" >"$TMP/want.m"
	sparse_map "$img" >"$TMP/want.h"

	expect_success "$name: unimage extracts" sqk unimage -d "$TMP/B" "$img"
	manifest_of "$TMP/B" "$TMP/B.m"
	no_holes <"$TMP/B.m" >"$TMP/got.m"
	same_file "$TMP/want.m" "$TMP/got.m" "$name: unimage tree equals unsquashfs tree"
	holes <"$TMP/B.m" >"$TMP/got.h"
	same_file "$TMP/want.h" "$TMP/got.h" \
		"$name: unimage makes a hole of every sparse block, and only those"

	expect_success "$name: unimage --tar writes an archive" \
		sqk unimage --tar "$TMP/T.tar" "$img"
	extract_tar "$TMP/T.tar" "$TMP/T" >"$TMP/.tar" 2>&1
	manifest_of "$TMP/T" "$TMP/T.m" --no-root
	tar_view <"$TMP/want.m" >"$TMP/want2.m"
	no_holes <"$TMP/T.m" >"$TMP/got.m"
	same_file "$TMP/want2.m" "$TMP/got.m" \
		"$name: unimage --tar, extracted by GNU tar, equals unsquashfs tree"
	holes <"$TMP/T.m" >"$TMP/got.h"
	same_file "$TMP/want.h" "$TMP/got.h" "$name: the archive keeps the holes"
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
