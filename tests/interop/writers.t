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
. "$SQK_SRCDIR/tests/interop/compare.sh"

B=131072

. "$SQK_SRCDIR/tests/interop/gen.sh"
TXT_LABEL="a file from another writer"

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
HOLE_PATHS=$files

# The pack file lists every entry with its source (relative to -D).
{
	echo "dir /sparse 0755 0 0"
	echo "dir /plain 0755 0 0"
	for f in $files; do
		echo "file /$f 0644 0 0 $f"
	done
} >"$TMP/pack"

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
	ref_extract "$name" "$img" $B || return

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

	unimage_vs_ref "$name" "$img"

	bad=""
	for f in $files; do
		sqk cat "$img" "/$f" >"$TMP/cat" 2>"$TMP/cat.err" && cmp -s "$TMP/cat" "$src/$f" ||
			bad="$bad $f"
	done
	is "${bad:-none}" none "$name: cat gives every file's source bytes"

	unimage_tar_vs_ref "$name" "$img"

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
