#!/bin/sh
# squashkit unsquashfs against Debian's unsquashfs (4.5.1) on the images of
# the interop suite (mktree.sh's tree, packed by mksquashfs with every
# compressor and the layout options): every listing option's output and -s
# byte for byte, in a time zone with an offset and with -UTC; the extracted
# trees (tests/tools/manifest) and the extraction output for -d/-f, PATH
# filters, -excludes, -e/-exc files, -regex, -no-wildcards, -max-depth,
# -no-xattrs, -user-xattrs, -i/-li; -cat, -o and the exit codes.
#
# Left out of the tree comparison, as in unimage.t: holes (unsquashfs writes
# zeros for some zero blocks). Left out of the output comparison: the
# progress bar, which the peer draws on stdout unless -n (we pass -n).
SCRATCH=shm-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs setfattr
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"
need_unsquashfs_4_5_1

tree=$TMP/tree
ref_tree "$tree"
# A zone with an offset and summer time, so that local time and -UTC differ.
TZ=America/Sao_Paulo
export TZ

sq() {
	"$SQUASHKIT" unsquashfs "$@"
}

# same_output DESC ARGS...: both print the same bytes on stdout and exit alike.
same_output() {
	desc=$1
	shift
	unsquashfs "$@" >"$TMP/p.out" 2>"$TMP/p.err"
	prc=$?
	sq "$@" >"$TMP/s.out" 2>"$TMP/s.err"
	src=$?
	if [ "$prc" != "$src" ]; then
		ok 1 "$desc"
		echo "#   exit status $src, unsquashfs $prc"
		sed 's/^/#   /' "$TMP/s.err" | head -3
	elif cmp -s "$TMP/p.out" "$TMP/s.out"; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		diff "$TMP/p.out" "$TMP/s.out" | head -6 | sed 's/^/#   /'
	fi
}

# same_extraction DESC ARGS...: unsquashfs -d A ARGS and squashkit -d B ARGS
# give the same tree (but for holes), the same stdout (A for B) and status.
same_extraction() {
	desc=$1
	shift
	rm -rf "$TMP/A" "$TMP/B"
	unsquashfs -n -d "$TMP/A" "$@" >"$TMP/p.out" 2>"$TMP/p.err"
	prc=$?
	sq -n -d "$TMP/B" "$@" >"$TMP/s.out" 2>"$TMP/s.err"
	src=$?
	is "$src" "$prc" "$desc: the same exit status"
	sed "s|$TMP/A|$TMP/B|g" "$TMP/p.out" >"$TMP/p2.out"
	same_file "$TMP/p2.out" "$TMP/s.out" "$desc: the same output"
	for d in A B; do
		if [ -d "$TMP/$d" ]; then
			"$MANIFEST" "$TMP/$d" 2>&1 | sed 's/ data=[^ ]*//' >"$TMP/$d.m"
		else
			echo "no tree" >"$TMP/$d.m"
		fi
	done
	same_file "$TMP/A.m" "$TMP/B.m" "$desc: the same tree"
}

# Every listing option on the reference image; on the others, what their
# layout and compressor change: -s, and the long listing.
listings() { # NAME IMAGE
	for opt in -s -lln; do
		same_output "$1: $opt" "$opt" "$2"
	done
	same_output "$1: -s -UTC" -s -UTC "$2"
}

compressors="gzip lzma lzo xz lz4 zstd"
optsets="
	gzip|-no-fragments -no-exports
	zstd|-always-use-fragments
	lz4|-b 4K -Xhc
	xz|-b 1M -Xbcj x86,arm -Xdict-size 512K
	gzip|-noI -noD -noF -noX
	lzo|-no-xattrs -Xalgorithm lzo1x_999 -Xcompression-level 7
	gzip|-no-duplicates -Xcompression-level 1 -Xwindow-size 9 -Xstrategy filtered
	zstd|-Xcompression-level 5"
if [ -n "${SQK_SANITIZED:-}" ]; then
	compressors="gzip"
	optsets="
	lz4|-b 4K -Xhc
	gzip|-noI -noD -noF -noX"
fi

img=$TMP/ref.img
peer_image "$img" "$tree" mksquashfs "$tree" "$img" -noappend -quiet -no-progress -comp gzip \
	>/dev/null 2>&1
for opt in -l -ls -ll -lls -lln -llnumeric -lc -llc -s -stat -mkfs-time -fstime; do
	same_output "$opt" "$opt" "$img"
done
same_output "-lln -UTC" -lln -UTC "$img"
same_output "-llc -d DIR" -llc -d some/where "$img"

for c in $compressors; do
	peer_image "$TMP/$c.img" "$tree" mksquashfs "$tree" "$TMP/$c.img" -noappend -quiet \
		-no-progress -comp "$c" >/dev/null 2>&1
	listings "$c" "$TMP/$c.img"
	rm -f "$TMP/$c.img"
done
while IFS='|' read -r comp opts; do
	[ -n "$comp" ] || continue
	comp=$(echo $comp)
	# shellcheck disable=SC2086 # the options are meant to split
	peer_image "$TMP/v.img" "$tree" mksquashfs "$tree" "$TMP/v.img" -noappend -quiet \
		-no-progress -comp "$comp" $opts >/dev/null 2>&1
	listings "$comp $opts" "$TMP/v.img"
	rm -f "$TMP/v.img"
done <<EOF
$optsets
EOF

# Listing with names to extract or exclude, and their option spellings.
same_output "-ll PATH with wildcards" -ll "$img" 'sp*/hole-*' owners
same_output "-lls -excludes" -lls -excludes "$img" bigdir 'deep/*'
same_output "-ls -max-depth 2" -ls -max-depth 2 "$img"
same_output "-lc -max 1" -lc -max 1 "$img"
same_output "-ls -regex" -ls -r "$img" '^sp' 'a.*e$'
same_output "-ls -no-wildcards" -ls -no-wild "$img" 'sp*' sparse/hole-end
same_output "-ls PATH that is not there" -ls "$img" no/such/path
same_output "-ls -ex LIST ;" -ls -ex bigdir deep ';' "$img"

# Extraction.
same_extraction "whole image" "$img"
same_extraction "-i" -i "$img"
same_extraction "-li -UTC" -li -UTC "$img"
same_extraction "PATH filters" "$img" 'sp*' hardlinks/three-b 'modes/*'
same_extraction "-excludes" -excludes "$img" bigdir deep 'x*'
printf 'sparse\nblocks/zeros-*\n' >"$TMP/extract.list"
printf 'bigdir\ndeep\n' >"$TMP/exclude.list"
same_extraction "-ef and -exc files" -ef "$TMP/extract.list" -exc "$TMP/exclude.list" "$img"
same_extraction "-e and -excf files" -e "$TMP/exclude.list" -excf "$TMP/extract.list" "$img"
same_extraction "-max-depth 2 (a hard link's first name left out)" -max-depth 2 "$img"
same_extraction "-no-xattrs" -no-xattrs "$img" xattr
same_extraction "-user-xattrs" -user-xattrs "$img" xattr
same_extraction "-x -p 1 -da 8 -fr 8 -q" -x -p 1 -da 8 -fr 8 -q "$img" xattr
# Into a directory that exists (the peer allows it), and again with -f.
rm -rf "$TMP/A" "$TMP/B"
mkdir "$TMP/A" "$TMP/B"
unsquashfs -n -d "$TMP/A" "$img" sparse >/dev/null 2>&1
sq -n -d "$TMP/B" "$img" sparse >/dev/null 2>&1
is "$?" 0 "an existing, empty -d DIR is extracted into"
unsquashfs -n -d "$TMP/A" "$img" sparse >/dev/null 2>&1
prc=$?
sq -n -d "$TMP/B" "$img" sparse >/dev/null 2>&1
is "$?" "$prc" "what is in the way without -f: the peer's exit status"
same_extraction "-f over an earlier extraction" -f "$img" sparse

# -cat, -o, the exit codes.
same_output "-cat" -cat "$img" sparse/hole-end bigdir/entry-0001
{
	head -c 8192 /dev/urandom
	cat "$img"
} >"$TMP/off.img"
same_output "-o 8K -ll" -o 8K -ll "$TMP/off.img"
same_output "-offset 8192 -s" -offset 8192 -s "$TMP/off.img"
same_output "an image that is not there" -ls "$TMP/no-such.img"
head -c 4096 "$img" >"$TMP/short.img"
same_output "a truncated image" -ls "$TMP/short.img"

done_testing
