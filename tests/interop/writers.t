#!/bin/sh
# Sparse files from squashfs-tools-ng: gensquashfs (from a pack file) and
# tar2sqfs (from GNU and pax sparse archives) write a file that is nothing
# but holes with blocks_start 0, since its block list points nowhere. The
# kernel and unsquashfs read such images; so must unimage, cat and the
# archive output, and fsck must call them clean. The same images hold a file
# with holes on both sides of a data block, holes with a tail, and ordinary
# files.
#
# For each image:
#   - unimage extracts it, and its tree equals the one unsquashfs extracts
#     (contents by sha256: unsquashfs writes zeros where a block is sparse in
#     a basic inode, we write holes);
#   - every sparse block becomes a hole and every other block data, as the
#     block lists that rdsquashfs prints say;
#   - cat gives each file's source bytes;
#   - unimage --tar writes an archive that GNU tar extracts to the same tree,
#     holes kept;
#   - fsck exits 0.
# As a check of the harness, the kernel's view (where it can mount) equals
# the source's contents.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd gensquashfs tar2sqfs unsquashfs rdsquashfs tar timeout
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"

B=131072

# txt SEED BYTES: deterministic compressible text.
txt() {
	awk -v seed="$1" -v n="$2" 'BEGIN {
		line = 0
		while (n > 0) {
			l = sprintf("%d line %d of a file from another writer\n", seed, line++)
			if (length(l) > n)
				l = substr(l, 1, n)
			printf "%s", l
			n -= length(l)
		}
	}'
}

# put FILE OFFSET: stdin into FILE at OFFSET, keeping the rest.
put() {
	dd of="$1" bs=65536 seek="$2" oflag=seek_bytes conv=notrunc status=none
}

src=$TMP/src
mkdir -p "$src/sparse" "$src/plain"
# nothing but holes: whole blocks; whole blocks and a tail; less than a block
truncate -s $((5 * B)) "$src/sparse/all-hole"
truncate -s $((5 * B + 100)) "$src/sparse/all-hole-tail"
truncate -s 1000 "$src/sparse/hole-small"
# holes on both sides of one data block
truncate -s $((5 * B)) "$src/sparse/middle"
txt 1 $B | put "$src/sparse/middle" $((2 * B))
# the same with a data tail after the last hole
truncate -s $((4 * B)) "$src/sparse/middle-tail"
txt 2 $B | put "$src/sparse/middle-tail" $B
txt 3 700 | put "$src/sparse/middle-tail" $((4 * B))
# data, then holes to the end
txt 4 5000 >"$src/sparse/hole-end"
truncate -s $((3 * B)) "$src/sparse/hole-end"
: >"$src/plain/empty"
printf 'hello\n' >"$src/plain/small"
txt 5 $B >"$src/plain/block"
txt 6 $((3 * B + 1000)) >"$src/plain/blocks-tail"
files="$(cd "$src" && find sparse plain -type f | sort)"

# The pack file lists every entry with its source (relative to -D).
{
	echo "dir /sparse 0755 0 0"
	echo "dir /plain 0755 0 0"
	for f in $files; do
		echo "file /$f 0644 0 0 $f"
	done
} >"$TMP/pack"

sqk() {
	timeout 300 "$SQUASHKIT" "$@"
}

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

# no_holes < MANIFEST: without data extents.
no_holes() {
	sed 's/ data=[^ ]*//'
}

# holes < MANIFEST: "PATH data=EXTENTS" for the files.
holes() {
	awk -v list="$files" '
		BEGIN { n = split(list, p, "\n"); for (i = 1; i <= n; i++) want[p[i]] = 1 }
		$1 in want { for (i = 3; i <= NF; i++) if ($i ~ /^data=/) print $1, $i }'
}

# sparse_map IMG: "PATH data=EXTENTS" as the block lists rdsquashfs prints
# say an extraction must look: a zero-size block is a hole, any other block
# and the fragment tail are data.
sparse_map() {
	for p in $files; do
		printf '%s data=' "$p"
		rdsquashfs -s "/$p" "$1" | awk -v bs=$B '
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

can_mount=0
mkdir "$TMP/mnt"
if [ "$(id -u)" -eq 0 ]; then
	at_exit "umount '$TMP/mnt' 2>/dev/null"
	can_mount=1
fi

# check NAME IMG
check() {
	name=$1
	img=$2
	if ! unsquashfs -q -n -d "$TMP/A" "$img" >"$TMP/.un" 2>&1; then
		ok 1 "$name: unsquashfs extracts the image"
		sed 's/^/#   /' "$TMP/.un" | head -5
		return
	fi
	manifest_of "$TMP/A" "$TMP/A.m"
	no_holes <"$TMP/A.m" >"$TMP/want.m"
	sparse_map "$img" >"$TMP/want.h"

	# The harness: the all-hole file really has blocks_start 0 here, as the
	# case this test is about; and the kernel reads the source's contents.
	rdsquashfs -s /sparse/all-hole "$img" >"$TMP/rd" 2>&1
	ok "$(grep -q '^Blocks start: 0$' "$TMP/rd"; echo $?)" \
		"$name: harness: the all-hole file's blocks_start is 0"
	if [ $can_mount -eq 1 ] && mount -t squashfs -o loop,ro "$img" "$TMP/mnt" 2>/dev/null; then
		manifest_of "$TMP/mnt" "$TMP/k.m" --no-holes --no-owner --no-mtime-dirs
		umount "$TMP/mnt"
		manifest_of "$src" "$TMP/s.m" --no-holes --no-owner --no-mtime-dirs
		awk '{ for (i = 1; i <= NF; i++) if ($i !~ /^(mode|mtime)=/) printf "%s ", $i; print "" }' \
			"$TMP/k.m" >"$TMP/k2.m"
		awk '{ for (i = 1; i <= NF; i++) if ($i !~ /^(mode|mtime)=/) printf "%s ", $i; print "" }' \
			"$TMP/s.m" >"$TMP/s2.m"
		same_file "$TMP/s2.m" "$TMP/k2.m" "$name: harness: the kernel reads the source's contents"
	else
		skip "$name: cannot mount squashfs here"
	fi

	expect_success "$name: unimage extracts" sqk unimage -d "$TMP/B" "$img"
	manifest_of "$TMP/B" "$TMP/B.m"
	no_holes <"$TMP/B.m" >"$TMP/got.m"
	same_file "$TMP/want.m" "$TMP/got.m" "$name: unimage tree equals unsquashfs tree"
	holes <"$TMP/B.m" >"$TMP/got.h"
	same_file "$TMP/want.h" "$TMP/got.h" \
		"$name: unimage makes a hole of every sparse block, and only those"

	bad=""
	for f in $files; do
		sqk cat "$img" "/$f" >"$TMP/cat" 2>"$TMP/cat.err" && cmp -s "$TMP/cat" "$src/$f" ||
			bad="$bad $f"
	done
	is "${bad:-none}" none "$name: cat gives every file's source bytes"

	expect_success "$name: unimage --tar writes an archive" \
		sqk unimage --tar "$TMP/T.tar" "$img"
	mkdir "$TMP/T"
	tar -C "$TMP/T" -x --numeric-owner -p -f "$TMP/T.tar" >"$TMP/.tar" 2>&1
	manifest_of "$TMP/T" "$TMP/T.m" --no-root
	awk '$1 != "."' "$TMP/want.m" >"$TMP/want2.m"
	no_holes <"$TMP/T.m" >"$TMP/got.m"
	same_file "$TMP/want2.m" "$TMP/got.m" \
		"$name: unimage --tar, extracted by GNU tar, equals unsquashfs tree"
	holes <"$TMP/T.m" >"$TMP/got.h"
	same_file "$TMP/want.h" "$TMP/got.h" "$name: the archive keeps the holes"

	sqk fsck -q "$img" >"$TMP/fsck.out" 2>&1
	st=$?
	is "$st" 0 "$name: fsck says clean"
	[ "$st" -eq 0 ] || head -5 "$TMP/fsck.out" | sed 's/^/#   /'
	rm -rf "$TMP/A" "$TMP/B" "$TMP/T" "$TMP/T.tar" "$img"
}

# gensquashfs from the pack file: with tails in fragments, and without.
for opts in "-c gzip" "-c zstd -T"; do
	img=$TMP/gen.img
	# shellcheck disable=SC2086 # the options are words
	if gensquashfs -q $opts -F "$TMP/pack" -D "$src" "$img" >"$TMP/gen.err" 2>&1; then
		check "gensquashfs $opts" "$img"
	else
		ok 1 "gensquashfs $opts builds the image"
		head -3 "$TMP/gen.err" | sed 's/^/#   /'
	fi
done

# tar2sqfs from archives that record the holes (GNU and pax sparse formats).
for fmt in gnu posix; do
	img=$TMP/t2s.img
	if tar -C "$src" --format=$fmt -S -cf "$TMP/in.tar" sparse plain 2>"$TMP/tar.err" &&
		tar2sqfs -q -c xz "$img" <"$TMP/in.tar" >"$TMP/t2s.err" 2>&1; then
		check "tar2sqfs ($fmt sparse archive)" "$img"
	else
		ok 1 "tar2sqfs builds the image from a $fmt sparse archive"
		head -3 "$TMP/tar.err" "$TMP/t2s.err" | sed 's/^/#   /'
	fi
	rm -f "$TMP/in.tar"
done

done_testing
