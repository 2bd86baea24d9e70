# Comparing what squashkit extracts with what unsquashfs extracts, for the
# interop tests that read images other writers made. Source it after
# tests/lib.sh. Before calling sparse_map or holes, set HOLE_PATHS to the
# files whose extents are checked (paths relative to the root, one a line).
#
# The comparison works on manifests (tests/tools/manifest). unsquashfs writes
# a hole for a zero-size block only in an extended inode with a non-zero
# sparse count, and zeros elsewhere, so trees are compared without data
# extents and holes on their own, against what the image's block lists say.

MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"

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

# holes < MANIFEST: "PATH data=EXTENTS" for $HOLE_PATHS.
holes() {
	awk -v list="$HOLE_PATHS" '
		BEGIN { n = split(list, p, "\n"); for (i = 1; i <= n; i++) want[p[i]] = 1 }
		$1 in want { for (i = 3; i <= NF; i++) if ($i ~ /^data=/) print $1, $i }'
}

# sparse_map IMG [BLOCK_SIZE]: "PATH data=EXTENTS" for $HOLE_PATHS, as the
# image's block lists say an extraction must look: a zero-size block is a
# hole, any other block and the fragment tail are data. Without BLOCK_SIZE,
# the image's own, as unsquashfs reports it.
sparse_map() {
	bs=${2:-$(unsquashfs -s "$1" | awk '/^Block size/ { print $3 }')}
	for p in $HOLE_PATHS; do
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

# ref_extract NAME IMG [BLOCK_SIZE]: unsquashfs extracts IMG to $TMP/A; its
# manifest without extents goes to $TMP/want.m and the extents the block
# lists call for to $TMP/want.h. Fails (and reports it) when unsquashfs does.
ref_extract() {
	if ! unsquashfs -q -n -d "$TMP/A" "$2" >"$TMP/.un" 2>&1; then
		ok 1 "$1: unsquashfs extracts the image"
		sed 's/^/#   /' "$TMP/.un" | head -5
		return 1
	fi
	manifest_of "$TMP/A" "$TMP/A.m"
	no_holes <"$TMP/A.m" >"$TMP/want.m"
	sparse_map "$2" ${3:+"$3"} >"$TMP/want.h"
}

# unimage_vs_ref NAME IMG: after ref_extract, unimage's tree equals
# unsquashfs's, and its holes are where the block lists put them.
unimage_vs_ref() {
	expect_success "$1: unimage extracts" sqk unimage -d "$TMP/B" "$2"
	manifest_of "$TMP/B" "$TMP/B.m"
	no_holes <"$TMP/B.m" >"$TMP/got.m"
	same_file "$TMP/want.m" "$TMP/got.m" "$1: unimage tree equals unsquashfs tree"
	holes <"$TMP/B.m" >"$TMP/got.h"
	same_file "$TMP/want.h" "$TMP/got.h" \
		"$1: unimage makes a hole of every sparse block, and only those"
}

# unimage_tar_vs_ref NAME IMG: after ref_extract, the archive unimage --tar
# writes, extracted by GNU tar, holds what a tar archive can of unsquashfs's
# tree, holes kept.
unimage_tar_vs_ref() {
	expect_success "$1: unimage --tar writes an archive" \
		sqk unimage --tar "$TMP/T.tar" "$2"
	extract_tar "$TMP/T.tar" "$TMP/T" >"$TMP/.tar" 2>&1
	manifest_of "$TMP/T" "$TMP/T.m" --no-root
	tar_view <"$TMP/want.m" >"$TMP/want2.m"
	no_holes <"$TMP/T.m" >"$TMP/got.m"
	same_file "$TMP/want2.m" "$TMP/got.m" \
		"$1: unimage --tar, extracted by GNU tar, equals unsquashfs tree"
	holes <"$TMP/T.m" >"$TMP/got.h"
	same_file "$TMP/want.h" "$TMP/got.h" "$1: the archive keeps the holes"
}
